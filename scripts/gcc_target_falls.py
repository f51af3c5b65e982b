#!/usr/bin/env python3
"""GCC's target falls, real Chromium 156 against the simulator (issue 21;
docs/REPRODUCTION.md, "GCC's target against Chromium's under competition").

    .venv/bin/python scripts/gcc_target_falls.py real FLOW FROM TO RUN_DIR...
    .venv/bin/python scripts/gcc_target_falls.py trace FROM TO TRACE...

`real`: per real run (a `run-N` folder with bottleneck-forward.csv and timeseries.csv)
the acknowledged rate libwebrtc's RobustThroughputEstimator would report (M150 defaults,
`acknowledged_bitrate_estimator_interface.h`: window 20 packets and 1 s, at most 500
packets and 5 s, at least 10 packets; rate = min(receive rate less the largest receive gap
plus the second largest, send rate), send time = the bottleneck's arrival, receive time =
its departure, evaluated every 50 ms) against the flow's throughput over the second
before, and each fall of `availableOutgoingBitrate` (a 0.5 s sample under 95 % of the
previous one) against AimdRateControl's decrease, 0.85 x acknowledged rate - 5 kbit/s
(`aimd_rate_control.cc` kRcDecrease), over the fall's interval +- 0.5 s.

`trace`: the stderr of the simulator built with scripts/patches/issue21-trace-gcc-target.patch
(`FS_TRACE=1 target/release/examples/series TOML 1 SEED 2> TRACE`): per run the target's
falls (under 95 % of the previous target update), whether the delay-based controller's
decrease count rose (a delay-based fall) or not, the acknowledged rate / previous target at
a delay-based fall, and the fraction of updates where loss-based BWE v2's estimate is under
95 % of the delay-based one.
"""
from __future__ import annotations

import argparse
import bisect
import csv
import statistics as st
from collections import deque
from pathlib import Path

DROP = 0.95


def robust_rate(win: list[tuple[int, int, int]]) -> float | None:
    """RobustThroughputEstimator::bitrate() on (send_us, recv_us, bytes) in receive
    order; Mbit/s."""
    if len(win) < 10:
        return None
    gaps = sorted((win[i][1] - win[i - 1][1] for i in range(1, len(win))), reverse=True) + [0, 0]
    recv = sum(p[2] for p in win) - win[0][2]
    recv_span = max(win[-1][1] - win[0][1] - gaps[0] + gaps[1], 1000)
    by_send = sorted(win, key=lambda p: p[0])
    send = sum(p[2] for p in by_send) - by_send[-1][2]
    send_span = max(by_send[-1][0] - by_send[0][0], 1000)
    return min(recv * 8 / recv_span, send * 8 / send_span)


def q(xs: list[float]) -> str:
    xs = sorted(xs)
    if not xs:
        return "-"
    return f"{xs[len(xs) // 2]:.2f} (p25 {xs[len(xs) // 4]:.2f}, p75 {xs[3 * len(xs) // 4]:.2f})"


def real(flow: str, t0: float, t1: float, runs: list[Path]) -> None:
    import pandas as pd

    ratios, falls = [], []
    for rd in runs:
        rows = list(csv.DictReader(open(rd / "bottleneck-forward.csv")))
        if not rows:
            raise SystemExit(f"{rd}: empty bottleneck-forward.csv")
        base = int(rows[0]["arrival_us"])
        pk = sorted(
            ((int(r["arrival_us"]), int(r["departure_us"]), int(r["size"]))
             for r in rows if r["flow"] == flow and r["departure_us"]),
            key=lambda p: p[1])
        if not pk:
            raise SystemExit(f"{rd}: no delivered packets of flow {flow!r}")
        dep = [p[1] for p in pk]
        win: deque = deque()
        j, t, ests = 0, pk[0][1], []
        while t < pk[-1][1]:
            while j < len(pk) and pk[j][1] <= t:
                win.append(pk[j])
                j += 1
                while len(win) > 500 or win[-1][1] - win[0][1] > 5e6 or (
                        len(win) > 20 and win[-1][1] - win[0][1] > 1e6):
                    win.popleft()
            e = robust_rate(list(win))
            ts = (t - base) / 1e6
            ests.append((ts, e))
            if e and t0 <= ts < t1:
                a, b = bisect.bisect_left(dep, t - 1e6), bisect.bisect_left(dep, t)
                thr = sum(p[2] for p in pk[a:b]) * 8 / 1e6
                if thr > 0:
                    ratios.append(e / thr)
            t += 50_000
        et = [x[0] for x in ests]
        g = pd.read_csv(rd / "timeseries.csv")
        g = g[g["flow"] == flow].sort_values("time_s")
        tt, tg = list(g["time_s"]), list(g["target_mbps"])
        lp = list(g["lost_packets"].fillna(0))
        for i in range(1, len(tt)):
            if not (t0 <= tt[i] < t1) or tg[i] != tg[i] or tg[i - 1] != tg[i - 1]:
                continue
            if tg[i] < DROP * tg[i - 1]:
                a, b = bisect.bisect_left(et, tt[i - 1] - 0.5), bisect.bisect_left(et, tt[i] + 0.5)
                cand = [0.85 * e - 0.005 for _, e in ests[a:b] if e]
                if cand:
                    falls.append((tg[i] / max(cand), tg[i] / tg[i - 1], sum(lp[max(0, i - 4):i + 1]) > 0))
    print(f"acknowledged rate / throughput over the second before: {q(ratios)}")
    aimd = [f for f in falls if f[0] <= 1.1]
    other = [f for f in falls if f[0] > 1.1]
    print(f"falls: {len(falls)}; within 10 % of (or under) an AIMD decrease: {len(aimd)} "
          f"(fall ratio {q([f[1] for f in aimd])}); more than 10 % above every one: {len(other)} "
          f"(fall ratio {q([f[1] for f in other])})")
    print(f"a loss in the 2 s before the fall: AIMD-like {sum(f[2] for f in aimd) / max(1, len(aimd)):.2f}, "
          f"the others {sum(f[2] for f in other) / max(1, len(other)):.2f}")


def trace(t0: float, t1: float, paths: list[Path]) -> None:
    ratio, acked, loss_below, kinds, per_min = [], [], [], {"delay": 0, "other": 0}, []
    for p in paths:
        prev, n, below, total = None, 0, 0, 0
        for line in open(p):
            if not line.startswith("T "):
                continue
            f = line.split()
            t = int(f[1]) / 1e6
            if not t0 <= t < t1:
                prev = None
                continue
            tgt, delay, loss, dec = float(f[2]), float(f[4]), float(f[5]), int(f[6])
            ack = None if f[9] == "None" else float(f[9][5:-1])
            total += 1
            below += loss < DROP * delay
            if prev and tgt < DROP * prev[0]:
                n += 1
                ratio.append(tgt / prev[0])
                if dec > prev[1]:
                    kinds["delay"] += 1
                    if ack:
                        acked.append(ack / prev[0])
                else:
                    kinds["other"] += 1
            prev = (tgt, dec)
        if total == 0:
            raise SystemExit(f"{p}: no T lines in {t0} .. {t1} s (built with the trace patch?)")
        per_min.append(n * 60 / (t1 - t0))
        loss_below.append(below / total)
    print(f"runs {len(paths)}; falls per minute {q(per_min)}; delay-based {kinds['delay']}, other {kinds['other']}")
    print(f"fall ratio {q(ratio)}; acknowledged rate / previous target at a delay-based fall {q(acked)}")
    print(f"share of updates with loss-based BWE v2 under 95 % of the delay-based estimate {q(loss_below)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("real", help="real runs: acknowledged rate and AIMD decreases")
    r.add_argument("flow")
    r.add_argument("start", type=float)
    r.add_argument("end", type=float)
    r.add_argument("runs", type=Path, nargs="+", metavar="RUN_DIR")
    t = sub.add_parser("trace", help="simulator traces of the patched build")
    t.add_argument("start", type=float)
    t.add_argument("end", type=float)
    t.add_argument("traces", type=Path, nargs="+", metavar="TRACE")
    a = ap.parse_args()
    if not a.start < a.end:
        raise SystemExit(f"the window must have start < end, got {a.start} .. {a.end}")
    if a.cmd == "real":
        missing = [str(d) for d in a.runs if not (d / "bottleneck-forward.csv").is_file() or not (d / "timeseries.csv").is_file()]
        if missing:
            raise SystemExit(f"no bottleneck-forward.csv and timeseries.csv in: {', '.join(missing)}")
        real(a.flow, a.start, a.end, a.runs)
    else:
        missing = [str(p) for p in a.traces if not p.is_file()]
        if missing:
            raise SystemExit(f"no such trace: {', '.join(missing)}")
        trace(a.start, a.end, a.traces)


if __name__ == "__main__":
    main()
