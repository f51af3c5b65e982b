// Types of flowstate-coupling (index.js). Rates in bit/s, sizes in bytes.

export interface WebApiConfig {
  /** eps: a fall of the media's GCC-limited rates by more than this fraction is a GCC decrease (0.02). */
  decreaseThreshold: number;
  /** alpha: a media flow sending below this fraction of min(target, max bitrate) is encoder-limited (0.8). */
  encoderLimitedRatio: number;
  /** h: an encoder-limited media flow claims this multiple of what it sends (1.2). */
  encoderHeadroom: number;
  /** The smallest maxBitrate the rule sets (100 kbit/s). */
  minMediaRate: number;
  /** RTT guard: scale the data by rttGuardFactor when the RTT exceeds this multiple of the smallest seen (null: off, the default). */
  rttGuard: number | null;
  rttGuardFactor: number;
  /** gamma: while the media sits at its ceiling, S_CR grows by at most this fraction per second (0.5; null: unlimited). */
  maxGrowth: number | null;
}

export const DEFAULT_CONFIG: Readonly<WebApiConfig>;

export interface MediaInput {
  id: unknown;
  priority: number;
  /** GCC's target: candidate-pair availableOutgoingBitrate (or outbound-rtp targetBitrate). */
  target: number;
  /** bytesSent over the interval, as a rate. */
  sent: number;
  /** The application's own ceiling for this sender. */
  max?: number | null;
}

export interface DataInput {
  id: unknown;
  priority: number;
  /** Bytes that left the channel's buffer over the interval, as a rate. */
  sent: number;
  /** Bytes waiting (bufferedAmount + the application's queue); Infinity for a greedy application. */
  backlog: number;
}

export interface WebApiInput {
  /** Time since the previous update, integer microseconds. */
  elapsedUs: number;
  /** RTT if known, microseconds. */
  rttUs?: number | null;
  media: MediaInput[];
  data: DataInput[];
}

export interface WebApiDecision {
  /** Each media flow's new maxBitrate, in input order. */
  mediaMax: number[];
  /** Each data flow's pacing rate (Infinity: unpaced, when there is no media flow). */
  dataPacing: number[];
  /** S_CR of this interval. */
  aggregate: number;
  /** rho: 1, or the factor of GCC's decrease this interval. */
  decrease: number;
}

/** The rule; identical to flowstate-coupling's coupling/web_api.rs. Throws RangeError on bad input. */
export class WebApiRule {
  constructor(config?: Partial<WebApiConfig>);
  readonly config: WebApiConfig;
  update(input: WebApiInput): WebApiDecision;
}

export interface Claim {
  priority: number;
  cap: number;
}
/** Weighted water-filling with caps: min(cap, P * L) summing to total. */
export function waterFill(total: number, claims: Claim[]): number[];

/** Token bucket; times in milliseconds. */
export class TokenBucket {
  constructor(options?: { rate?: number; depth?: number; now?: number });
  rate: number;
  setRate(now: number, rate: number): void;
  take(now: number, size: number): boolean;
  wait(now: number): number;
}

export interface TimerLike {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval?(fn: () => void, ms: number): unknown;
  clearInterval?(handle: unknown): void;
}

/** A data channel whose writes the coupler paces. */
export class PacedChannel {
  constructor(
    channel: RTCDataChannel,
    options?: { priority?: number; lowThreshold?: number; greedy?: boolean; clock?: () => number; timers?: TimerLike },
  );
  readonly channel: RTCDataChannel;
  priority: number;
  greedy: boolean;
  /** Queue a message; it goes out when the token bucket and bufferedAmountLowThreshold allow. */
  send(message: string | ArrayBuffer | ArrayBufferView | Blob): void;
  /** bufferedAmount plus what is queued here. */
  readonly backlog: number;
  /** Payload bytes that left the channel's buffer. */
  readonly bytesSent: number;
  setRate(rate: number): void;
  /** The write size a greedy application should use now (rate x 20 ms, 1-16 KiB). */
  chunkSize(): number;
  pump(): void;
}

export interface CouplerUpdate {
  media: MediaInput[];
  data: DataInput[];
  decision: WebApiDecision;
}

/** Polls getStats every `interval` ms, runs the rule, applies maxBitrate and pacing. */
export class Coupler {
  constructor(options?: {
    /** ms between updates (150). */
    interval?: number;
    /** Sent rates over the last rateWindow ms (1000). */
    rateWindow?: number;
    /** Skip a maxBitrate increase smaller than this fraction (0.05). */
    applyThreshold?: number;
    config?: Partial<WebApiConfig>;
    clock?: () => number;
    timers?: TimerLike;
    onUpdate?: ((u: CouplerUpdate) => void) | null;
  });
  readonly rule: WebApiRule;
  addSender(pc: RTCPeerConnection, sender: RTCRtpSender, options?: { priority?: number; maxBitrate?: number | null }): unknown;
  addChannel(channel: RTCDataChannel, options?: { priority?: number; lowThreshold?: number; greedy?: boolean }): PacedChannel;
  start(): void;
  stop(): void;
  poll(): Promise<void>;
}
