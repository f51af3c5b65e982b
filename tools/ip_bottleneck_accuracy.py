#!/usr/bin/env python3
"""The IP-level bottleneck's accuracy at 2, 10 and 50 Mbit/s, and the kernel-tbf
cross-check (docs/BENCHMARKS.md, "IP-level bottleneck accuracy"). Needs root.

    sudo .venv/bin/python tools/ip_bottleneck_accuracy.py [--runs 3] [--seconds 10] [--json FILE]

Prints one markdown row per (mode, capacity): medians over the runs of the rate
error, the emulator's timing error p50/p99, the host's excess one-way delay p50/p99
and the standing queue (configured: 100 ms); definitions in
python/flowstate/browser/accuracy.py.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys

from flowstate.browser.accuracy import measure
from flowstate.browser.topology import TopologyError, preflight


def median(rows: list[dict], *path: str) -> float | None:
    values = []
    for r in rows:
        v = r
        for p in path:
            v = v.get(p) if isinstance(v, dict) else None
        if isinstance(v, (int, float)):
            values.append(float(v))
    return statistics.median(values) if values else None


def fmt(v: float | None, scale: float = 1.0, digits: int = 1) -> str:
    return "-" if v is None else f"{v * scale:.{digits}f}"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--json", metavar="FILE", help="also write every run's figures here")
    args = ap.parse_args(argv)
    try:
        preflight()
    except TopologyError as e:
        print(f"ip_bottleneck_accuracy: {e}", file=sys.stderr)
        return 2
    results = []
    print("| mode | capacity | rate error % (emulator) | rate error % (end to end) | timing error p50 / p99 us "
          "| excess delay p50 / p99 us | queue ms (100 configured) |")
    print("|---|---|---|---|---|---|---|")
    for mode, capacities in (("emulator", (2, 10, 50)), ("tbf", (2, 10, 50))):
        for c in capacities:
            rows = [measure(c, seconds=args.seconds, mode=mode) for _ in range(args.runs)]
            results += rows
            print(
                f"| {mode} | {c} Mbit/s | {fmt(median(rows, 'rate_error'), 100, 2)} "
                f"| {fmt(median(rows, 'rate_error_end_to_end'), 100, 2)} "
                f"| {fmt(median(rows, 'timing_error_us', 'p50'), 1, 0)} / {fmt(median(rows, 'timing_error_us', 'p99'), 1, 0)} "
                f"| {fmt(median(rows, 'excess_delay_us', 'p50'), 1, 0)} / {fmt(median(rows, 'excess_delay_us', 'p99'), 1, 0)} "
                f"| {fmt(median(rows, 'queue_ms'))} |",
                flush=True,
            )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
