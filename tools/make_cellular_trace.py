#!/usr/bin/env python3
"""Writes scenarios/traces/cellular-synth.mahimahi: a made-up, cellular-like Mahimahi
packet-delivery trace (one line per 1500-byte delivery opportunity, integer ms).

Not a measurement. The capacity is a two-state Markov chain (good: mean 3 Mbit/s,
bad: mean 0.7 Mbit/s; exponential holding times with means 8 s and 4 s) with
log-normal AR(1) fading in 100 ms steps (sigma 0.35, correlation 0.8), clamped to
[0.1, 6] Mbit/s, and two outages without any delivery (0.6 s at 21 s, 1.2 s at 47 s),
the shapes of the LTE traces that come with Mahimahi, with numbers chosen to be
moderate for a single video call. Delivery opportunities follow the capacity: each
millisecond adds rate x 1 ms of credit, and every 1500 bytes of credit is one
opportunity at that millisecond. Deterministic: the same seed writes the same file
(Python's random.Random, stable across CPython 3 versions).

    python3 tools/make_cellular_trace.py [--seed 7] [--seconds 60] [--out FILE]
"""

from __future__ import annotations

import argparse
import math
import random
from pathlib import Path

STEP_MS = 100
GOOD_MBPS, BAD_MBPS = 3.0, 0.7
GOOD_MEAN_S, BAD_MEAN_S = 8.0, 4.0
SIGMA, RHO = 0.35, 0.8
CLAMP_MBPS = (0.1, 6.0)
OUTAGES_S = [(21.0, 0.6), (47.0, 1.2)]
MTU = 1500


def capacity_steps(seed: int, seconds: float) -> list[float]:
    """Capacity in bit/s per 100 ms step."""
    rng = random.Random(seed)
    steps = int(round(seconds * 1000 / STEP_MS))
    good = True
    left = rng.expovariate(1.0 / GOOD_MEAN_S)
    fade = 0.0
    out: list[float] = []
    for k in range(steps):
        t = k * STEP_MS / 1000
        left -= STEP_MS / 1000
        if left <= 0:
            good = not good
            left = rng.expovariate(1.0 / (GOOD_MEAN_S if good else BAD_MEAN_S))
        fade = RHO * fade + math.sqrt(1 - RHO * RHO) * rng.gauss(0.0, SIGMA)
        mbps = (GOOD_MBPS if good else BAD_MBPS) * math.exp(fade - SIGMA * SIGMA / 2)
        mbps = min(max(mbps, CLAMP_MBPS[0]), CLAMP_MBPS[1])
        if any(a <= t < a + d for a, d in OUTAGES_S):
            mbps = 0.0
        out.append(mbps * 1e6)
    return out


def opportunities(rates_bps: list[float]) -> list[int]:
    """Millisecond times of the delivery opportunities."""
    credit = 0.0
    times: list[int] = []
    for k, bps in enumerate(rates_bps):
        for ms in range(k * STEP_MS + 1, (k + 1) * STEP_MS + 1):
            credit += bps / 8 / 1000
            while credit >= MTU:
                times.append(ms)
                credit -= MTU
    # Mahimahi's period is the last line: end the trace at its full length.
    end = len(rates_bps) * STEP_MS
    if not times or times[-1] != end:
        times.append(end)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "scenarios/traces/cellular-synth.mahimahi"))
    a = ap.parse_args()
    rates = capacity_steps(a.seed, a.seconds)
    times = opportunities(rates)
    Path(a.out).write_text("".join(f"{t}\n" for t in times), encoding="ascii")
    mean = len(times) * MTU * 8 / a.seconds / 1e6
    print(f"{a.out}: {len(times)} opportunities in {a.seconds:g} s, mean {mean:.3f} Mbit/s")


if __name__ == "__main__":
    main()
