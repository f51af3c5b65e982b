// flowstate-coupling: coupled congestion control for WebRTC media and data channels in an
// unmodified browser (flowstate's Web-API rule). Dependency-free ES module.
//
// The rule (WebApiRule) is the same as the Rust crate flowstate-coupling's
// coupling/web_api.rs, operation for operation, so that both give the same outputs
// (crates/flowstate-core/tests/web_api_js.rs runs them side by side on thousands of
// random input sequences). The reasoning is in flowstate's docs/ALGORITHMS.md, "The
// Web-API rule".
//
// Per update interval (default 150 ms) the Coupler reads getStats (each video sender's
// GCC target: candidate-pair availableOutgoingBitrate, or outbound-rtp targetBitrate;
// bytesSent; remote-inbound-rtp roundTripTime), runs the rule, sets each video sender's
// encodings[0].maxBitrate with RTCRtpSender.setParameters, and paces the data channels
// it manages with a token bucket and bufferedAmountLowThreshold.

/** The rule's constants (docs/ALGORITHMS.md says why each value). */
export const DEFAULT_CONFIG = Object.freeze({
  decreaseThreshold: 0.02,
  encoderLimitedRatio: 0.8,
  encoderHeadroom: 1.2,
  minMediaRate: 100e3,
  rttGuard: null,
  rttGuardFactor: 0.9,
  maxGrowth: 0.5,
});

function checkConfig(c) {
  const bad = (field, message) => {
    throw new RangeError(`config.${field}: ${message}`);
  };
  const fraction = (x) => Number.isFinite(x) && x > 0 && x < 1;
  if (!(Number.isFinite(c.decreaseThreshold) && c.decreaseThreshold >= 0 && c.decreaseThreshold < 1))
    bad('decreaseThreshold', `must be in [0, 1), got ${c.decreaseThreshold}`);
  if (!fraction(c.encoderLimitedRatio))
    bad('encoderLimitedRatio', `must be in (0, 1), got ${c.encoderLimitedRatio}`);
  if (!(Number.isFinite(c.encoderHeadroom) && c.encoderHeadroom >= 1))
    bad('encoderHeadroom', `must be a finite number >= 1, got ${c.encoderHeadroom}`);
  if (!(Number.isFinite(c.minMediaRate) && c.minMediaRate >= 0))
    bad('minMediaRate', `must be a finite number >= 0, got ${c.minMediaRate}`);
  if (c.rttGuard !== null && !(Number.isFinite(c.rttGuard) && c.rttGuard > 1))
    bad('rttGuard', `must be a finite number > 1, got ${c.rttGuard}`);
  if (c.maxGrowth !== null && !(Number.isFinite(c.maxGrowth) && c.maxGrowth > 0))
    bad('maxGrowth', `must be a finite number > 0, got ${c.maxGrowth}`);
  if (!fraction(c.rttGuardFactor))
    bad('rttGuardFactor', `must be in (0, 1), got ${c.rttGuardFactor}`);
}

/**
 * Weighted water-filling with caps (flowstate-core coupling/waterfill.rs, closed form):
 * share(f) = min(cap(f), P(f) * L) with the level L such that the shares sum to `total`
 * (or every flow sits at its cap).
 * @param {number} total bit/s
 * @param {{priority: number, cap: number}[]} claims cap = Infinity for none
 * @returns {number[]}
 */
export function waterFill(total, claims) {
  const n = claims.length;
  const out = new Array(n).fill(0);
  if (n === 0) return out;
  if (!(Number.isFinite(total) && total > 0)) total = 0;
  const order = claims.map((_, i) => i);
  const key = claims.map((c) => c.cap / c.priority);
  order.sort((a, b) => key[a] - key[b] || 0);
  const capPrefix = [0];
  let sum = 0;
  for (const i of order) {
    sum += claims[i].cap;
    capPrefix.push(sum);
  }
  const prioritySuffix = new Array(n + 1).fill(0);
  for (let k = n - 1; k >= 0; k--) prioritySuffix[k] = prioritySuffix[k + 1] + claims[order[k]].priority;
  const isCapped = (j) => {
    const c = claims[order[j]];
    const remaining = total - capPrefix[j];
    return Number.isFinite(c.cap) && remaining >= 0 && c.cap * prioritySuffix[j] <= remaining * c.priority;
  };
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (isCapped(mid)) lo = mid + 1;
    else hi = mid;
  }
  if (lo === n) {
    for (let i = 0; i < n; i++) out[i] = claims[i].cap;
    return out;
  }
  const level = Math.max(total - capPrefix[lo], 0) / prioritySuffix[lo];
  for (let i = 0; i < n; i++) out[i] = Math.min(claims[i].priority * level, claims[i].cap);
  return out;
}

/**
 * The rule (flowstate-coupling coupling/web_api.rs). Rates in bit/s, sizes in bytes, times
 * in microseconds (elapsedUs, rttUs) as in the Rust version.
 */
export class WebApiRule {
  constructor(config = {}) {
    this.config = { ...DEFAULT_CONFIG, ...config };
    checkConfig(this.config);
    /** media id -> [max set last interval, target last interval] */
    this.media = new Map();
    this.minRttUs = null;
    this.aggregate = null;
    this.mediaAtCeiling = false;
  }

  static check(input) {
    if (!(Number.isInteger(input.elapsedUs) && input.elapsedUs > 0))
      throw new RangeError(`elapsed must be positive, got ${input.elapsedUs} us`);
    if (input.rttUs != null && !(input.rttUs > 0)) throw new RangeError(`rtt must be positive, got ${input.rttUs} us`);
    const ok = (p) => Number.isFinite(p) && p > 0;
    const rate = (r) => Number.isFinite(r) && r >= 0;
    for (const [what, list] of [['media', input.media], ['data', input.data]]) {
      const seen = new Set();
      list.forEach((f, i) => {
        if (!ok(f.priority)) throw new RangeError(`${what}[${i}]: priority must be a finite number > 0, got ${f.priority}`);
        if (seen.has(f.id)) throw new RangeError(`${what}: flow id ${f.id} appears twice`);
        seen.add(f.id);
        for (const k of what === 'media' ? ['target', 'sent'] : ['sent'])
          if (!rate(f[k])) throw new RangeError(`${what}[${i}].${k}: must be a finite number >= 0, got ${f[k]}`);
      });
    }
  }

  /**
   * One update interval.
   * @param {{elapsedUs: number, rttUs?: number|null,
   *   media: {id: any, priority: number, target: number, sent: number, max?: number|null}[],
   *   data: {id: any, priority: number, sent: number, backlog: number}[]}} input
   *   data backlog: bytes (Infinity: a greedy application)
   * @returns {{mediaMax: number[], dataPacing: number[], aggregate: number, decrease: number}}
   */
  update(input) {
    WebApiRule.check(input);
    const cfg = this.config;
    if (input.rttUs != null) this.minRttUs = this.minRttUs === null ? input.rttUs : Math.min(this.minRttUs, input.rttUs);

    let nowSum = 0;
    let beforeSum = 0;
    const gs = [];
    for (const m of input.media) {
      const prev = this.media.get(m.id);
      const cap = prev === undefined ? Infinity : prev[0];
      const g = Math.min(m.target, cap);
      gs.push(g);
      if (prev !== undefined) {
        nowSum += g;
        beforeSum += Math.min(prev[1], cap);
      }
    }
    let rho = 1;
    if (beforeSum > 0 && nowSum < beforeSum * (1 - cfg.decreaseThreshold)) rho = nowSum / beforeSum;
    if (cfg.rttGuard !== null && input.rttUs != null && this.minRttUs !== null) {
      if (input.rttUs / 1e6 > cfg.rttGuard * (this.minRttUs / 1e6)) rho = Math.min(rho, cfg.rttGuardFactor);
    }

    let targets = 0;
    for (const m of input.media) targets += m.target;
    let dataSent = 0;
    for (const d of input.data) dataSent += d.sent;
    const measured = targets + rho * dataSent;
    const dt = input.elapsedUs / 1e6;
    let aggregate = measured;
    if (this.aggregate !== null) {
      if (this.mediaAtCeiling) aggregate = Math.max(aggregate, rho * this.aggregate);
      if (cfg.maxGrowth !== null) aggregate = Math.min(aggregate, this.aggregate * (1 + cfg.maxGrowth * dt));
    }

    if (input.media.length === 0) {
      this.media.clear();
      this.aggregate = null;
      this.mediaAtCeiling = false;
      return { mediaMax: [], dataPacing: input.data.map(() => Infinity), aggregate, decrease: rho };
    }
    this.aggregate = aggregate;

    const floor = cfg.minMediaRate;
    const claims = [];
    input.media.forEach((m, i) => {
      const ceiling = m.max == null ? Infinity : m.max;
      const cap = m.sent < cfg.encoderLimitedRatio * gs[i] ? Math.min(ceiling, Math.max(cfg.encoderHeadroom * m.sent, floor)) : ceiling;
      claims.push({ priority: m.priority, cap });
    });
    for (const d of input.data) {
      const cap = d.backlog === Infinity ? Infinity : d.sent + (d.backlog * 8) / dt;
      claims.push({ priority: d.priority, cap });
    }
    const shares = waterFill(aggregate, claims);
    const n = input.media.length;
    this.mediaAtCeiling = claims.slice(0, n).every((c, i) => Number.isFinite(c.cap) && shares[i] >= c.cap);
    const mediaMax = [];
    const next = new Map();
    input.media.forEach((m, i) => {
      const max = Math.max(shares[i], floor);
      mediaMax.push(max);
      next.set(m.id, [max, m.target]);
    });
    this.media = next;
    return { mediaMax, dataPacing: shares.slice(n), aggregate, decrease: rho };
  }
}

/**
 * The application's token bucket in front of a data channel (flowstate-core
 * endpoint/app_pacing.rs): a write may go when the bucket is not in debt and the channel
 * holds at most `lowThreshold` bytes; it takes its size in tokens. Times in ms.
 */
export class TokenBucket {
  constructor({ rate = 0, depth = 16384, now = 0 } = {}) {
    this.rate = rate;
    this.depth = depth;
    this.tokens = 0;
    this.last = now;
  }
  refill(now) {
    if (now <= this.last) return;
    const dt = (now - this.last) / 1000;
    this.last = now;
    this.tokens = Number.isFinite(this.rate) ? Math.min(this.tokens + (this.rate * dt) / 8, this.depth) : this.depth;
  }
  setRate(now, rate) {
    this.refill(now);
    this.rate = rate;
  }
  /** May `size` bytes go now? (takes the tokens if so) */
  take(now, size) {
    this.refill(now);
    if (this.rate === 0 || this.tokens < 0) return false;
    if (Number.isFinite(this.rate)) this.tokens -= size;
    return true;
  }
  /** Milliseconds until the bucket is out of debt (0: now; Infinity: rate 0). */
  wait(now) {
    this.refill(now);
    if (this.rate === 0) return Infinity;
    if (this.tokens >= 0 || !Number.isFinite(this.rate)) return 0;
    return (-this.tokens * 8 * 1000) / this.rate;
  }
}

/**
 * A data channel paced by the coupler: `send()` queues the message, the pump writes it
 * when the token bucket and `bufferedAmountLowThreshold` allow.
 */
export class PacedChannel {
  constructor(channel, { priority = 1, lowThreshold = 65536, greedy = false, clock = () => performance.now(), timers = globalThis } = {}) {
    this.channel = channel;
    this.priority = priority;
    /** A greedy application always has more to send: its backlog counts as unbounded. */
    this.greedy = greedy;
    this.lowThreshold = lowThreshold;
    this.clock = clock;
    this.timers = timers;
    this.bucket = new TokenBucket({ rate: 0, now: clock() });
    this.queue = [];
    this.queuedBytes = 0;
    this.handed = 0; // bytes handed to channel.send
    this.timer = null;
    channel.bufferedAmountLowThreshold = lowThreshold;
    channel.addEventListener?.('bufferedamountlow', () => this.pump());
  }
  /** Queue `message` (string, ArrayBuffer, view or Blob with a size). */
  send(message) {
    const size = typeof message === 'string' ? new TextEncoder().encode(message).length : message.byteLength ?? message.size;
    this.queue.push([message, size]);
    this.queuedBytes += size;
    this.pump();
  }
  /** Bytes waiting: in the channel (bufferedAmount) and in this queue. */
  get backlog() {
    return this.queuedBytes + (this.channel.bufferedAmount || 0);
  }
  /** Payload bytes that left the channel's buffer. */
  get bytesSent() {
    return this.handed - (this.channel.bufferedAmount || 0);
  }
  setRate(rate) {
    this.bucket.setRate(this.clock(), rate);
    this.pump();
  }
  /** The write size a greedy application should use now: what the pacing rate moves in
   * 20 ms, within [1 KiB, 16 KiB] (flowstate-core AppPacing::chunk). */
  chunkSize() {
    const bytes = Number.isFinite(this.bucket.rate) ? Math.floor((this.bucket.rate * 0.02) / 8) : 16384;
    return Math.min(Math.max(bytes, 1024), 16384);
  }
  pump() {
    if (this.timer !== null) {
      this.timers.clearTimeout(this.timer);
      this.timer = null;
    }
    while (this.queue.length > 0 && this.channel.readyState === 'open') {
      if (this.channel.bufferedAmount > this.lowThreshold) return; // 'bufferedamountlow' resumes
      const now = this.clock();
      const [message, size] = this.queue[0];
      if (!this.bucket.take(now, size)) {
        const wait = this.bucket.wait(now);
        if (Number.isFinite(wait)) this.timer = this.timers.setTimeout(() => this.pump(), Math.max(1, wait));
        return;
      }
      this.queue.shift();
      this.queuedBytes -= size;
      this.handed += size;
      this.channel.send(message);
    }
  }
}

function statsOf(report) {
  const byType = new Map();
  report.forEach((s) => {
    if (!byType.has(s.type)) byType.set(s.type, []);
    byType.get(s.type).push(s);
  });
  return byType;
}

/**
 * Runs the rule every `interval` ms on getStats and applies it.
 *
 *   const coupler = new Coupler({ interval: 150 });
 *   coupler.addSender(pc, videoSender, { priority: 1, maxBitrate: 2.5e6 });
 *   const data = coupler.addChannel(channel, { priority: 1 });
 *   data.send(chunk);          // instead of channel.send(chunk)
 *   coupler.start();
 */
export class Coupler {
  constructor({
    interval = 150,
    rateWindow = 1000,
    applyThreshold = 0.05,
    config = {},
    clock = () => performance.now(),
    timers = globalThis,
    onUpdate = null,
  } = {}) {
    this.interval = interval;
    /** Sent rates are measured over the last rateWindow ms of polls (one interval's
     * byte count is too noisy: video frames, 16 KiB writes). The simulator does the same
     * (flowstate-sim web_api.rs, rate_window). */
    this.rateWindow = rateWindow;
    /** A new maxBitrate is applied when it differs from the one in force by more than
     * this fraction, or is lower (each setParameters reconfigures the encoder). */
    this.applyThreshold = applyThreshold;
    this.rule = new WebApiRule(config);
    this.clock = clock;
    this.timers = timers;
    this.onUpdate = onUpdate;
    this.senders = [];
    this.channels = [];
    this.nextId = 1;
    this.lastPoll = null;
    this.handle = null;
    this.busy = false;
    /** setParameters calls that failed (retried the next interval). */
    this.errors = 0;
  }
  addSender(pc, sender, { priority = 1, maxBitrate = null } = {}) {
    const s = { id: this.nextId++, pc, sender, priority, maxBitrate, history: [], applied: null };
    this.senders.push(s);
    return s;
  }
  addChannel(channel, { priority = 1, lowThreshold = 65536, greedy = false } = {}) {
    const paced = new PacedChannel(channel, { priority, lowThreshold, greedy, clock: this.clock, timers: this.timers });
    this.channels.push({ id: this.nextId++, paced, history: [] });
    return paced;
  }
  start() {
    if (this.handle === null) this.handle = this.timers.setInterval(() => this.poll(), this.interval);
  }
  stop() {
    if (this.handle !== null) this.timers.clearInterval(this.handle);
    this.handle = null;
  }
  /** One getStats per peer connection: the transport's GCC target (the selected
   * candidate pair's availableOutgoingBitrate), and per sender its outbound-rtp bytes
   * (payload + headers) and remote-inbound-rtp RTT. */
  async readConnection(pc, senders) {
    const report = await pc.getStats();
    let pair;
    report.forEach((s) => {
      if (s.type === 'transport' && s.selectedCandidatePairId) pair = report.get(s.selectedCandidatePairId);
    });
    if (pair === undefined) {
      report.forEach((s) => {
        if (s.type === 'candidate-pair' && s.nominated && s.state === 'succeeded') pair = s;
      });
    }
    const outbound = new Map();
    const rtt = new Map();
    report.forEach((s) => {
      if (s.type === 'outbound-rtp' && s.kind === 'video') outbound.set(s.mid, s);
      if (s.type === 'remote-inbound-rtp' && s.roundTripTime !== undefined) rtt.set(s.ssrc, s.roundTripTime);
    });
    const mids = new Map(pc.getTransceivers().map((t) => [t.sender, t.mid]));
    return senders.map((s) => {
      const o = outbound.get(mids.get(s.sender)) || {};
      const r = o.ssrc === undefined ? undefined : rtt.get(o.ssrc);
      const seconds = r ?? pair?.currentRoundTripTime;
      return {
        bytes: (o.bytesSent || 0) + (o.headerBytesSent || 0),
        transportTarget: pair?.availableOutgoingBitrate ?? o.targetBitrate ?? 0,
        rttUs: seconds === undefined ? null : Math.round(seconds * 1e6),
      };
    });
  }
  /** Every sender's reading; a connection's target is split between its senders by
   * priority (one GCC per connection). */
  async readSenders() {
    const byPc = new Map();
    for (const s of this.senders) {
      if (!byPc.has(s.pc)) byPc.set(s.pc, []);
      byPc.get(s.pc).push(s);
    }
    const read = new Map();
    await Promise.all(
      [...byPc].map(async ([pc, senders]) => {
        const rows = await this.readConnection(pc, senders);
        const total = senders.reduce((a, s) => a + s.priority, 0);
        senders.forEach((s, i) => read.set(s, { ...rows[i], target: (rows[i].transportTarget * s.priority) / total }));
      }),
    );
    return this.senders.map((s) => read.get(s));
  }
  /** bit/s over the last rateWindow ms: from the newest poll at least that old. */
  rate(history, now, bytes) {
    history.push([now, bytes]);
    while (history.length > 2 && history[1][0] + this.rateWindow <= now) history.shift();
    const [t, b] = history[0];
    return t < now ? Math.max(0, ((bytes - b) * 8) / ((now - t) / 1000)) : 0;
  }
  async poll() {
    if (this.busy) return;
    this.busy = true;
    try {
      const now = this.clock();
      const elapsedUs = this.lastPoll === null ? Math.round(this.interval * 1000) : Math.round((now - this.lastPoll) * 1000);
      this.lastPoll = now;
      if (elapsedUs <= 0) return;
      const read = await this.readSenders();
      let rttUs = null;
      const media = this.senders.map((s, i) => {
        const r = read[i];
        const sent = this.rate(s.history, now, r.bytes);
        if (rttUs === null && r.rttUs !== null && r.rttUs > 0) rttUs = r.rttUs;
        return { id: s.id, priority: s.priority, target: r.target, sent, max: s.maxBitrate };
      });
      const data = this.channels.map((c) => {
        const sent = this.rate(c.history, now, c.paced.bytesSent);
        const backlog = c.paced.greedy ? Infinity : c.paced.backlog;
        return { id: c.id, priority: c.paced.priority, sent, backlog };
      });
      const decision = this.rule.update({ elapsedUs, rttUs, media, data });
      await Promise.all(
        this.senders.map(async (s, i) => {
          const max = Math.round(decision.mediaMax[i]);
          if (s.applied !== null && max >= s.applied && max <= s.applied * (1 + this.applyThreshold)) return;
          const params = s.sender.getParameters();
          if (!params.encodings || params.encodings.length === 0) return;
          params.encodings[0].maxBitrate = max;
          try {
            await s.sender.setParameters(params);
            s.applied = max;
          } catch (e) {
            this.errors += 1; // e.g. InvalidModificationError during renegotiation: next interval
          }
        }),
      );
      this.channels.forEach((c, j) => c.paced.setRate(decision.dataPacing[j]));
      this.onUpdate?.({ media, data, decision });
    } finally {
      this.busy = false;
    }
  }
}
