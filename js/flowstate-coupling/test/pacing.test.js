import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenBucket, PacedChannel, WebApiRule, waterFill } from '../index.js';

test('token bucket: average rate, debt and depth', () => {
  const b = new TokenBucket({ rate: 80e3, depth: 1000, now: 0 });
  let now = 0;
  let writes = 0;
  while (now < 10000) {
    if (b.take(now, 1000)) writes++;
    else now += Math.max(b.wait(now), 0.001);
  }
  assert.ok(writes >= 100 && writes <= 101, `${writes}`);
  const z = new TokenBucket({ rate: 0 });
  assert.equal(z.take(5000, 1), false);
  assert.equal(z.wait(5000), Infinity);
});

test('paced channel: holds writes above bufferedAmountLowThreshold and paces the rest', () => {
  let now = 0;
  const timers = { setTimeout: () => 1, clearTimeout: () => {} };
  const sent = [];
  const ch = { readyState: 'open', bufferedAmount: 0, send: (m) => { sent.push(m); ch.bufferedAmount += m.byteLength; } };
  const p = new PacedChannel(ch, { lowThreshold: 2000, clock: () => now, timers });
  p.setRate(8e6); // 1 MB/s
  now = 10; // 10 kB of credit, capped at the 16 KiB depth
  for (let i = 0; i < 5; i++) p.send(new Uint8Array(1000));
  assert.equal(sent.length, 3, 'stops once bufferedAmount exceeds the threshold');
  assert.equal(p.backlog, 5000);
  ch.bufferedAmount = 0;
  p.pump();
  assert.equal(sent.length, 5);
  assert.equal(p.bytesSent, 3000, 'handed 5000, 2000 still buffered');
});

test('rule: bad input is a one-line error', () => {
  const r = new WebApiRule();
  assert.throws(() => r.update({ elapsedUs: 0, media: [], data: [] }), /elapsed must be positive, got 0 us/);
  assert.throws(() => r.update({ elapsedUs: 1000, media: [{ id: 1, priority: 0, target: 1, sent: 1 }], data: [] }), /media\[0\]: priority must be a finite number > 0/);
  assert.throws(() => new WebApiRule({ encoderHeadroom: 0.5 }), /config.encoderHeadroom: must be a finite number >= 1, got 0.5/);
});

test('waterFill: caps and priorities', () => {
  assert.deepEqual(waterFill(3e6, [{ priority: 1, cap: 1e6 }, { priority: 1, cap: Infinity }]), [1e6, 2e6]);
  assert.deepEqual(waterFill(3e6, [{ priority: 2, cap: Infinity }, { priority: 1, cap: Infinity }]), [2e6, 1e6]);
});
