#!/usr/bin/env python3
"""The real paths under a marking queue discipline against the simulator
(docs/BENCHMARKS.md, "ECN and AQM on the real paths"). Needs root for the IP path.

    sudo .venv/bin/python tools/ecn_accuracy.py [--runs 3] [--seconds 20] [--discipline codel] [--json FILE]

Runs, one at a time: kernel TCP CUBIC with ECN through the IP-level bottleneck (10
Mbit/s, 20 ms) and the testbed's ECN-capable SCTP flow over real UDP through the
emulator (4 Mbit/s, 20 ms), each under the discipline, and each against the simulator
(same scenario, same seeds). Prints one markdown row per path and side: medians over
the runs of the sojourn time p50 / p95, CE marks per second, drops and throughput;
definitions in python/flowstate/browser/aqm_accuracy.py.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys

from flowstate.browser.aqm_accuracy import ip_vs_sim, testbed_vs_sim
from flowstate.browser.topology import TopologyError, preflight

FIELDS = ("sojourn_ms_p50", "sojourn_ms_p95", "marks_per_s", "drops", "throughput_mbps")


def median(rows: list[dict], side: str, key: str) -> float | None:
    values = [r[side][key] for r in rows if isinstance(r[side].get(key), (int, float))]
    return statistics.median(values) if values else None


def fmt(v: float | None, digits: int = 2) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def row(label: str, rows: list[dict], side: str) -> str:
    m = {k: median(rows, side, k) for k in FIELDS}
    return (
        f"| {label} | {side} | {fmt(m['sojourn_ms_p50'])} / {fmt(m['sojourn_ms_p95'])} "
        f"| {fmt(m['marks_per_s'], 1)} | {fmt(m['drops'], 0)} | {fmt(m['throughput_mbps'])} |"
    )


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--discipline", default="codel", help="codel, fq-codel, pie or dual-pi2 (default codel)")
    ap.add_argument("--json", metavar="FILE", help="also write every run's figures here")
    args = ap.parse_args(argv)
    if args.runs < 1 or args.seconds <= 5:
        print("ecn_accuracy: --runs must be >= 1 and --seconds > 5", file=sys.stderr)
        return 2
    try:
        preflight()
    except TopologyError as e:
        print(f"ecn_accuracy: {e}", file=sys.stderr)
        return 2
    results: list[dict] = []
    print("| path | side | sojourn p50 / p95 ms | CE marks/s | drops | throughput Mbit/s |")
    print("|---|---|---|---|---|---|")
    for label, measure in (
        ("kernel CUBIC, IP bottleneck, 10 Mbit/s", ip_vs_sim),
        ("testbed SCTP, UDP emulator, 4 Mbit/s", testbed_vs_sim),
    ):
        rows = [measure(discipline=args.discipline, seconds=args.seconds, seed=1 + k) for k in range(args.runs)]
        results += rows
        for side in ("real", "sim"):
            print(row(label, rows, side), flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
