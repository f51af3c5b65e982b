// The JS rule against flowstate-core's Rust rule: crates/flowstate-core/tests/web_api_js.rs
// writes random input sequences with the Rust outputs to FLOWSTATE_WEB_API_VECTORS and
// runs this file; every output must agree within float rounding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WebApiRule } from '../index.js';

const path = process.env.FLOWSTATE_WEB_API_VECTORS;
const inf = (x) => (x === null ? Infinity : x);

function close(a, b) {
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

test('the JS rule gives the Rust rule\'s outputs', { skip: path ? false : 'FLOWSTATE_WEB_API_VECTORS not set' }, () => {
  const cases = JSON.parse(readFileSync(path, 'utf8'));
  assert.ok(cases.length >= 1000, `only ${cases.length} sequences`);
  let steps = 0;
  for (const [k, c] of cases.entries()) {
    const rule = new WebApiRule(c.config);
    for (const [i, s] of c.steps.entries()) {
      const input = {
        elapsedUs: s.elapsed_us,
        rttUs: s.rtt_us,
        media: s.media.map((m) => ({ id: m.id, priority: m.priority, target: m.target, sent: m.sent, max: m.max })),
        data: s.data.map((d) => ({ id: d.id, priority: d.priority, sent: d.sent, backlog: inf(d.backlog) })),
      };
      const out = rule.update(input);
      const where = `sequence ${k} step ${i}`;
      assert.equal(out.mediaMax.length, s.media_max.length, where);
      assert.equal(out.dataPacing.length, s.data_pacing.length, where);
      out.mediaMax.forEach((v, j) => assert.ok(close(v, s.media_max[j]), `${where} media_max[${j}]: JS ${v}, Rust ${s.media_max[j]}`));
      out.dataPacing.forEach((v, j) => assert.ok(close(v, inf(s.data_pacing[j])), `${where} data_pacing[${j}]: JS ${v}, Rust ${s.data_pacing[j]}`));
      assert.ok(close(out.aggregate, s.aggregate), `${where} aggregate: JS ${out.aggregate}, Rust ${s.aggregate}`);
      assert.ok(close(out.decrease, s.decrease), `${where} decrease: JS ${out.decrease}, Rust ${s.decrease}`);
      steps++;
    }
  }
  console.log(`${cases.length} sequences, ${steps} steps agree`);
});
