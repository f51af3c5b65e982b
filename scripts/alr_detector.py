#!/usr/bin/env python3
"""libwebrtc M150's ALR detector, ported to replay it on a real run's logged packets
(`gcc_target_falls.py alr`; docs/REPRODUCTION.md, "What sets GCC's target in
p000-table5"). signalapp/webrtc bd635df:

- `modules/congestion_controller/goog_cc/alr_detector.h` lines 60-62: the budget accrues
  at `bandwidth_usage_ratio` 0.65 x the target; ALR starts above
  `start_budget_level_ratio` 0.80 of the budget's maximum and stops below
  `stop_budget_level_ratio` 0.50.
- `alr_detector.cc` lines 62-88 (`OnBytesSent`: the first packet starts the clock; then
  `UseBudget(bytes)`, `IncreaseBudget(delta ms)`, the state change) and 90-94
  (`SetEstimatedBitrate`: the budget's rate in whole kbit/s).
- `modules/pacing/interval_budget.cc` (kWindowMs 500; `can_build_up_underuse` true:
  bytes remaining in [-max, max], integer arithmetic).
- What is "sent": `GoogCcNetworkController::OnSentPacket` (goog_cc_network_control.cc
  line 265) gets every packet with a transport-wide sequence number once, at its first
  send, sized `packet_to_send.size() + transport overhead`
  (`TransportFeedbackAdapter::AddPacket` / `ProcessSentPacket`,
  transport_feedback_adapter.cc lines 131 and 165-190); the target is
  `loss_based_target_rate` (goog_cc_network_control.cc line 621), the value the event
  log's loss-based updates carry.
"""
from __future__ import annotations

BANDWIDTH_USAGE_RATIO = 0.65  # alr_detector.h line 60
START_BUDGET_LEVEL_RATIO = 0.80  # alr_detector.h line 61
STOP_BUDGET_LEVEL_RATIO = 0.50  # alr_detector.h line 62
WINDOW_MS = 500  # interval_budget.cc kWindowMs


class AlrDetector:
    """`AlrDetector` with its `IntervalBudget(0, can_build_up_underuse=true)`."""

    def __init__(self) -> None:
        self.rate_kbps = 0
        self.max_bytes = 0
        self.remaining = 0
        self.last_send_ms: int | None = None
        self.start_ms: int | None = None

    def set_estimated_bitrate(self, bps: float) -> None:
        """`SetEstimatedBitrate` -> `set_target_rate_kbps((bitrate x 0.65).kbps())`."""
        if bps <= 0:
            raise ValueError(f"the target must be > 0 bit/s, got {bps}")
        self.rate_kbps = int(bps * BANDWIDTH_USAGE_RATIO / 1000)
        self.max_bytes = WINDOW_MS * self.rate_kbps // 8
        self.remaining = min(max(-self.max_bytes, self.remaining), self.max_bytes)

    def ratio(self) -> float:
        return self.remaining / self.max_bytes if self.max_bytes else 0.0

    def on_bytes_sent(self, size: int, send_ms: int) -> None:
        """`OnBytesSent`: spend, refill by the elapsed whole ms, then the state."""
        if self.last_send_ms is None:
            self.last_send_ms = send_ms
            return
        delta = send_ms - self.last_send_ms
        self.last_send_ms = send_ms
        self.remaining = max(self.remaining - size, -self.max_bytes)
        # IncreaseBudget: int64 arithmetic, truncating toward zero as C++ does
        added = int(self.rate_kbps * delta / 8)
        self.remaining = min(self.remaining + added, self.max_bytes)
        r = self.ratio()
        if r > START_BUDGET_LEVEL_RATIO and self.start_ms is None:
            self.start_ms = send_ms
        elif r < STOP_BUDGET_LEVEL_RATIO and self.start_ms is not None:
            self.start_ms = None

    @property
    def in_alr(self) -> bool:
        return self.start_ms is not None


def share_on(changes: list[tuple[float, bool]], t0: float, t1: float) -> float:
    """The share of [t0, t1) spent in ALR, from (time s, in ALR) changes in time order
    (before the first change: not in ALR)."""
    if not t0 < t1:
        raise ValueError(f"the window must have start < end, got {t0} .. {t1}")
    total, state, last = 0.0, False, t0
    for t, a in changes + [(t1, state)]:
        tc = min(max(t, t0), t1)
        if state:
            total += tc - last
        last, state = tc, a
    return total / (t1 - t0)
