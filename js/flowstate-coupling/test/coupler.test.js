// The Coupler against a fake RTCPeerConnection: getStats in, setParameters and pacing out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Coupler } from '../index.js';

function fakeCall() {
  const call = { bytes: 0, target: 1e6, params: { encodings: [{}] }, applied: [] };
  const sender = {
    getParameters: () => structuredClone(call.params),
    setParameters: async (p) => { call.params = p; call.applied.push(p.encodings[0].maxBitrate); },
  };
  const pc = {
    getTransceivers: () => [{ sender, mid: '0' }],
    getStats: async () => new Map([
      ['T', { type: 'transport', selectedCandidatePairId: 'CP' }],
      ['CP', { type: 'candidate-pair', availableOutgoingBitrate: call.target, currentRoundTripTime: 0.1 }],
      ['O', { type: 'outbound-rtp', kind: 'video', mid: '0', ssrc: 1, bytesSent: call.bytes, headerBytesSent: 0 }],
    ]),
  };
  const channel = { readyState: 'open', bufferedAmount: 0, send() {}, addEventListener() {} };
  return { call, sender, pc, channel };
}

test('coupler: polls getStats, caps the video and paces the data by priority', async () => {
  let now = 0;
  const timers = { setTimeout: () => 1, clearTimeout: () => {}, setInterval: () => 1, clearInterval: () => {} };
  const updates = [];
  const coupler = new Coupler({ clock: () => now, timers, onUpdate: (u) => updates.push(u) });
  const { call, sender, pc, channel } = fakeCall();
  coupler.addSender(pc, sender, { priority: 2, maxBitrate: 2.5e6 });
  const data = coupler.addChannel(channel, { priority: 1, greedy: true });
  // 1 Mbit/s of video for 2 s, polled every 150 ms; the data sends nothing yet.
  for (let k = 0; k < 14; k++) {
    now += 150;
    call.bytes += 18750;
    await coupler.poll();
  }
  const last = updates.at(-1);
  assert.ok(Math.abs(last.media[0].sent - 1e6) < 1e3, `${last.media[0].sent}`);
  assert.equal(last.media[0].target, 1e6);
  // S = 1 Mbit/s: 2/3 to the video, 1/3 to the greedy data channel.
  assert.ok(Math.abs(last.decision.mediaMax[0] - 2e6 / 3) < 1, `${last.decision.mediaMax[0]}`);
  assert.ok(Math.abs(data.bucket.rate - 1e6 / 3) < 1, `${data.bucket.rate}`);
  assert.ok(call.applied.length >= 1 && Math.abs(call.params.encodings[0].maxBitrate - 666667) <= 1);
});
