#!/usr/bin/env python3
"""libwebrtc's delay-based over-use detector, offline (issue 21; docs/REPRODUCTION.md,
"What sets GCC's target in p000-fig3: the depth of the decreases, and the packets
Chromium's detector fires on").

A port of WebRTC M150's `InterArrivalDelta` (`modules/congestion_controller/goog_cc/
inter_arrival_delta.cc`: send-time groups of `kSendTimeGroupLength` 5 ms, the burst rule
of `kBurstDeltaThreshold` 5 ms and `kMaxBurstDuration` 100 ms) and `TrendlineEstimator`
(`trendline_estimator.cc`: window 20, smoothing 0.9, gain 4, `kMinNumDeltas` 60,
over-use after `kOverUsingTimeThreshold` 10 ms and two samples with a non-falling trend,
the adaptive threshold with k_up 0.0087, k_down 0.039, clamp [6, 600], the 15 guard and
`kMaxTimeDeltaMs` 100), fed with packets as `DelayBasedBwe::IncomingPacketFeedback` feeds
them (signalapp/webrtc bd635df, `delay_based_bwe.cc` lines 193-201: the send time, the
receive time, the receive time's whole milliseconds for the trendline's x axis).

Chromium's send times are whole milliseconds: `AsyncUDPSocket::SendTo` stamps
`SentPacketInfo` with `TimeInMilliseconds()` (`rtc_base/async_udp_socket.cc` line 91) and
`TransportFeedbackAdapter::ProcessSentPacket` takes `Timestamp::Millis(send_time_ms)`
(`modules/congestion_controller/rtp/transport_feedback_adapter.cc` line 167), so
`send_resolution_us` = 1000 replays what Chromium's detector saw; 1 is the simulator's
clock. The port is checked against the simulator's own detector (the trace lines of
scripts/patches/issue21-trace-aimd.patch) and against Chromium's event log
(`gcc_target_falls.py replay`).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

GROUP_US = 5_000  # kSendTimeGroupLength
BURST_DELTA_US = 5_000  # kBurstDeltaThreshold
MAX_BURST_US = 100_000  # kMaxBurstDuration
WINDOW = 20  # TrendlineEstimatorSettings::kDefaultTrendlineWindowSize
SMOOTHING = 0.9  # kDefaultTrendlineSmoothingCoeff
GAIN = 4.0  # kDefaultTrendlineThresholdGain
MIN_NUM_DELTAS = 60  # kMinNumDeltas
DELTA_COUNTER_MAX = 1000  # kDeltaCounterMax
OVERUSE_TIME_MS = 10.0  # kOverUsingTimeThreshold
K_UP, K_DOWN = 0.0087, 0.039
THRESHOLD_INIT, THRESHOLD_MIN, THRESHOLD_MAX = 12.5, 6.0, 600.0
MAX_ADAPT_OFFSET = 15.0  # kMaxAdaptOffsetMs
MAX_TIME_DELTA_MS = 100  # UpdateThreshold's kMaxTimeDeltaMs


@dataclass
class _Group:
    first_send: int
    send: int
    first_arrival: int
    complete: int
    size: int


@dataclass
class Sample:
    """One trendline update: at the receive time of the packet that closed a group."""

    recv_us: int
    delay_ms: float  # recv delta - send delta of the two groups
    trend: float
    modified: float
    threshold: float
    state: str  # "normal", "overusing", "underusing"


@dataclass
class Detector:
    """InterArrivalDelta + TrendlineEstimator; `packet` in receive order."""

    send_resolution_us: int = 1
    samples: list[Sample] = field(default_factory=list)
    state: str = "normal"

    def __post_init__(self) -> None:
        if self.send_resolution_us < 1:
            raise ValueError(f"send_resolution_us must be >= 1, got {self.send_resolution_us}")
        self._cur: _Group | None = None
        self._prev: _Group | None = None
        self._n = 0
        self._first_ms: int | None = None
        self._acc = 0.0
        self._smoothed = 0.0
        self._hist: deque = deque()
        self._prev_trend = 0.0
        self._threshold = THRESHOLD_INIT
        self._last_threshold_ms: int | None = None
        self._time_over: float | None = None
        self._over_count = 0
        self._reordered = 0

    def packet(self, send_us: int, recv_us: int, size: int) -> None:
        """`InterArrivalDelta::ComputeDeltas` (the send time at the adapter's
        resolution) then `TrendlineEstimator::Update` when a group closed."""
        send = send_us // self.send_resolution_us * self.send_resolution_us
        c = self._cur
        if c is None:
            self._cur = _Group(send, send, recv_us, recv_us, size)
            return
        if send < c.first_send:  # reordered
            return
        if self._new_group(c, send, recv_us):
            p = self._prev
            if p is not None:
                send_delta, recv_delta = c.send - p.send, c.complete - p.complete
                if recv_delta >= 0:
                    self._reordered = 0
                    self._update(recv_delta / 1000.0, send_delta / 1000.0, recv_us)
                else:
                    self._reordered += 1
            self._prev = c
            self._cur = _Group(send, send, recv_us, recv_us, 0)
            c = self._cur
        else:
            c.send = max(c.send, send)
        c.size += size
        c.complete = recv_us

    @staticmethod
    def _new_group(c: _Group, send: int, recv: int) -> bool:
        """`NewTimestampGroup` with `BelongsToBurst`."""
        send_delta = send - c.send
        if send_delta == 0:
            return False
        arrival_delta = recv - c.complete
        if arrival_delta - send_delta < 0 and arrival_delta <= BURST_DELTA_US and recv - c.first_arrival < MAX_BURST_US:
            return False
        return send - c.first_send > GROUP_US

    def _update(self, recv_delta_ms: float, send_delta_ms: float, recv_us: int) -> None:
        """`TrendlineEstimator::UpdateTrendline`, `Detect`, `UpdateThreshold`."""
        self._n = min(self._n + 1, DELTA_COUNTER_MAX)
        now_ms = recv_us // 1000
        if self._first_ms is None:
            self._first_ms = now_ms
        delta = recv_delta_ms - send_delta_ms
        self._acc += delta
        self._smoothed = SMOOTHING * self._smoothed + (1 - SMOOTHING) * self._acc
        self._hist.append((float(now_ms - self._first_ms), self._smoothed))
        if len(self._hist) > WINDOW:
            self._hist.popleft()
        trend = self._prev_trend
        if len(self._hist) == WINDOW:
            slope = linear_fit_slope(list(self._hist))
            if slope is not None:
                trend = slope
        if self._n < 2:
            self.state = "normal"
            return
        modified = min(self._n, MIN_NUM_DELTAS) * trend * GAIN
        if modified > self._threshold:
            self._time_over = send_delta_ms / 2 if self._time_over is None else self._time_over + send_delta_ms
            self._over_count += 1
            if self._time_over > OVERUSE_TIME_MS and self._over_count > 1 and trend >= self._prev_trend:
                self._time_over = 0.0
                self._over_count = 0
                self.state = "overusing"
        elif modified < -self._threshold:
            self._time_over, self._over_count, self.state = None, 0, "underusing"
        else:
            self._time_over, self._over_count, self.state = None, 0, "normal"
        self._prev_trend = trend
        self._update_threshold(modified, now_ms)
        self.samples.append(Sample(recv_us, delta, trend, modified, self._threshold, self.state))

    def _update_threshold(self, modified: float, now_ms: int) -> None:
        if self._last_threshold_ms is None:
            self._last_threshold_ms = now_ms
        if abs(modified) > self._threshold + MAX_ADAPT_OFFSET:
            self._last_threshold_ms = now_ms
            return
        k = K_DOWN if abs(modified) < self._threshold else K_UP
        dt = min(now_ms - self._last_threshold_ms, MAX_TIME_DELTA_MS)
        self._threshold += k * (abs(modified) - self._threshold) * dt
        self._threshold = min(max(self._threshold, THRESHOLD_MIN), THRESHOLD_MAX)
        self._last_threshold_ms = now_ms


def linear_fit_slope(points: list[tuple[float, float]]) -> float | None:
    """`LinearFitSlope`: least squares; None when every x is equal."""
    n = len(points)
    xm = sum(p[0] for p in points) / n
    ym = sum(p[1] for p in points) / n
    num = sum((x - xm) * (y - ym) for x, y in points)
    den = sum((x - xm) ** 2 for x, _ in points)
    return None if den == 0 else num / den


def states_at(samples: list[Sample], ticks_us: list[int]) -> list[str]:
    """The detector state at each tick (e.g. each transport feedback: the state the
    delay-based update reads), "normal" before the first sample."""
    out, k = [], -1
    for t in ticks_us:
        while k + 1 < len(samples) and samples[k + 1].recv_us <= t:
            k += 1
        out.append(samples[k].state if k >= 0 else "normal")
    return out


def overuse_onsets(times_s: list[float], states: list[str], t0: float, t1: float) -> list[float]:
    """Times in [t0, t1) where the state turns to overusing."""
    return [t for k, (t, s) in enumerate(zip(times_s, states))
            if k > 0 and s == "overusing" and states[k - 1] != "overusing" and t0 <= t < t1]
