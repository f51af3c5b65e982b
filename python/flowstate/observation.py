"""Observation vectors of a flow's feedback, for learned controllers (``flowstate.gym``,
``kind = "onnx"``): the small default one, and the ACM MMSys 2024 bandwidth estimation
challenge's 150-value one (docs/PYTHON.md, "Observations").

Each observer takes the feedback reports of one step (``update(feedbacks, now_s,
target_bps)``) and returns a float32 vector (numpy). Definitions, per step:

``basic`` (5 values): receiving rate (Mbit/s: bytes of the packets reported received in
the step x 8 / step length), target rate in force (Mbit/s), mean queuing delay (s: one-way
delay minus the smallest seen in the call, over the packets received in the step), loss
ratio (packets reported lost / packets reported, in the step), newest RTT (s, 0 before
the first).

``mmsys2024`` (150 values): 15 features over the 5 most recent short monitor
intervals (MIs, 60 ms) and the 5 most recent long ones (600 ms), feature ``f``
(0-based) at ``10 f + k``: ``k`` 0..4 the short MIs, 5..9 the long ones, most recent
first (the challenge's layout: 15 features x (5 + 5) MIs, arXiv 2403.06324 and the
challenge's data description). The challenge names its features but does not publish
their formulas; flowstate reads them as follows, over the packets that arrived in the
MI (delays in ms, one-way delay = arrival - send; the MIs end at the newest report's
timestamp, the receiver's clock when it reported):

 0 receiving rate (bit/s)            1 received packets       2 received bytes
 3 queuing delay: mean one-way delay - smallest one-way delay seen in the call
 4 delay: mean one-way delay         5 smallest one-way delay seen in the call
 6 delay ratio: mean one-way delay / smallest seen
 7 delay average-minimum difference: mean one-way delay - smallest in the MI
 8 mean packet inter-arrival time    9 jitter: mean |difference of consecutive one-way delays|
10 loss ratio: lost / (lost + received), packets sent in the MI
11 lost packets (sent in the MI)
12-14 video / audio / probing packet probabilities: 1, 0, 0 (the flow's packets are all
      media; flowstate sends no audio or probes on it)

An MI without packets gives 0 for every feature but 5 and 12.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any, Sequence

import numpy as np

SHORT_MI_S = 0.06
LONG_MI_S = 0.6
MIS = 5
FEATURES = 15
MMSYS_SIZE = FEATURES * 2 * MIS


class BasicObservation:
    """The small default observation (5 values, see the module's docstring)."""

    size = 5
    names = ("receiving_rate_mbps", "target_mbps", "queuing_delay_s", "loss_ratio", "rtt_s")

    def __init__(self, step_s: float = 0.06):
        self.step_s = step_s
        self.reset()

    def reset(self) -> None:
        self.min_owd = math.inf
        self.rtt_s = 0.0

    def update(self, feedbacks: Sequence[Any], now_s: float, target_bps: float) -> np.ndarray:
        received_bytes = lost = total = 0
        owds: list[float] = []
        for fb in feedbacks:
            sends, arrivals, sizes = fb.send_time_s, fb.arrival_time_s, fb.size_bytes
            for s, a, b in zip(sends, arrivals, sizes):
                total += 1
                if a != a:  # NaN: lost
                    lost += 1
                    continue
                received_bytes += b
                owds.append(a - s)
            if fb.rtt_s is not None:
                self.rtt_s = fb.rtt_s
        if owds:
            self.min_owd = min(self.min_owd, min(owds))
        qdelay = (sum(owds) / len(owds) - self.min_owd) if owds else 0.0
        return np.array(
            [received_bytes * 8 / self.step_s / 1e6, target_bps / 1e6, qdelay, lost / total if total else 0.0, self.rtt_s],
            dtype=np.float32,
        )


class MmsysObservation:
    """The MMSys 2024 challenge's 150-value observation (see the module's docstring)."""

    size = MMSYS_SIZE

    def __init__(self, step_s: float = SHORT_MI_S):
        self.reset()

    def reset(self) -> None:
        # (send, arrival or NaN, size) of the last long window's packets, by send order.
        self.packets: deque[tuple[float, float, int]] = deque()
        self.min_owd_ms = math.inf
        self.end_s: float | None = None

    def update(self, feedbacks: Sequence[Any], now_s: float, target_bps: float) -> np.ndarray:
        for fb in feedbacks:
            for s, a, b in zip(fb.send_time_s, fb.arrival_time_s, fb.size_bytes):
                self.packets.append((s, a, b))
                if a == a:
                    self.min_owd_ms = min(self.min_owd_ms, (a - s) * 1e3)
            self.end_s = fb.report_time_s
        # The MIs end at the newest report's time (the receiver's clock: what it had
        # seen when it reported), as a receiver-side estimator's would.
        now_s = self.end_s if self.end_s is not None else now_s
        horizon = now_s - LONG_MI_S * MIS
        while self.packets and self.packets[0][0] < horizon - 1.0:
            self.packets.popleft()
        obs = np.zeros(MMSYS_SIZE, dtype=np.float32)
        for k in range(2 * MIS):
            length = SHORT_MI_S if k < MIS else LONG_MI_S
            i = k % MIS
            end = now_s - i * length
            obs[k::10] = self._features(end - length, end, length)
        return obs

    def _features(self, start: float, end: float, length: float) -> list[float]:
        arrived = [(s, a, b) for s, a, b in self.packets if a == a and start < a <= end]
        sent = [(s, a) for s, a, _ in self.packets if start < s <= end]
        lost = sum(1 for _, a in sent if a != a)
        min_seen = 0.0 if self.min_owd_ms == math.inf else self.min_owd_ms
        f = [0.0] * FEATURES
        f[5] = min_seen
        f[12] = 1.0
        f[10] = lost / len(sent) if sent else 0.0
        f[11] = float(lost)
        if not arrived:
            return f
        arrived.sort(key=lambda p: p[1])
        owd = [(a - s) * 1e3 for s, a, _ in arrived]
        nbytes = sum(b for _, _, b in arrived)
        mean = sum(owd) / len(owd)
        f[0] = nbytes * 8 / length
        f[1] = float(len(arrived))
        f[2] = float(nbytes)
        f[3] = mean - min_seen
        f[4] = mean
        f[6] = mean / min_seen if min_seen > 0 else 0.0
        f[7] = mean - min(owd)
        if len(arrived) > 1:
            times = [a for _, a, _ in arrived]
            f[8] = (times[-1] - times[0]) * 1e3 / (len(times) - 1)
            f[9] = sum(abs(owd[j] - owd[j - 1]) for j in range(1, len(owd))) / (len(owd) - 1)
        return f


OBSERVATIONS = {"basic": BasicObservation, "mmsys2024": MmsysObservation}


def observer(name: str, step_s: float) -> Any:
    """The observation ``name`` (``basic`` or ``mmsys2024``) for steps of ``step_s``."""
    try:
        return OBSERVATIONS[name](step_s)
    except KeyError:
        from flowstate.errors import FlowstateError

        raise FlowstateError(f"observation must be one of {', '.join(OBSERVATIONS)}, got {name!r}") from None
