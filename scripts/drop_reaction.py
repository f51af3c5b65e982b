#!/usr/bin/env python3
"""GCC's reaction to rfc8867-5.1's capacity drop (2.5 -> 0.6 Mbit/s at 60 s) at a finer
time resolution than the 0.5 s bins of ``real_vs_sim.py`` (docs/REPRODUCTION.md, "The
`chromium-m156` and `dcsctp` presets against the same real runs").

    .venv/bin/python scripts/drop_reaction.py [--out out/real] [--sim-runs 10]
        [--bins 0.1 0.25 0.5] [--preset chromium-m156] [--sim-set KEY=VALUE ...]

Real side: the per-packet record of every real run (OUT/rfc8867-5.1/chromium/run-K/
bottleneck-forward.csv: each packet's arrival at the bottleneck, its size and flow),
binned to the video's offered (sending) rate. Simulator side: the same scenario as
``real_vs_sim.py`` builds it, with ``measure.bin`` set to each bin width. For each bin
width: the time from the drop to the first bin in which the sending rate is under
110 % of the new capacity (0.66 Mbit/s), and how long it stays above it in total over
the next 5 s; the median over the runs. No root, no browser: only the stored runs
are read.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
import real_vs_sim as rvs  # noqa: E402

CASE = "rfc8867-5.1"
DROP_S = 60.0
NEW_CAPACITY_MBPS = 0.6
HORIZON_S = 5.0


def reaction(times: list[float], rates: list[float], bin_s: float) -> tuple[Optional[float], float]:
    """(first bin start under 110 % of the new capacity, minus the drop time; seconds
    above it within the horizon)."""
    first = None
    above = 0.0
    for t, r in zip(times, rates):
        if t < DROP_S or t >= DROP_S + HORIZON_S:
            continue
        if r <= 1.1 * NEW_CAPACITY_MBPS:
            if first is None:
                first = t - DROP_S
        else:
            above += bin_s
    return first, above


def real_runs(out: Path, flow: str, bin_s: float) -> list[tuple[Optional[float], float]]:
    results = []
    for run in sorted((out / CASE / "chromium").glob("run-*")):
        path = run / "bottleneck-forward.csv"
        if not path.exists():
            continue
        n = int((DROP_S + HORIZON_S + 1) / bin_s) + 1
        bytes_per_bin = [0] * n
        with path.open() as f:
            for row in csv.DictReader(f):
                if row["flow"] != flow:
                    continue
                b = int(int(row["arrival_us"]) / 1e6 / bin_s)
                if 0 <= b < n:
                    bytes_per_bin[b] += int(row["size"])
        times = [b * bin_s for b in range(n)]
        rates = [8 * x / bin_s / 1e6 for x in bytes_per_bin]
        results.append(reaction(times, rates, bin_s))
    return results


def sim_runs(runs: int, bin_s: float, flow: str) -> list[tuple[Optional[float], float]]:
    import flowstate

    case = next(c for c in rvs.CASES if c.name == CASE)
    doc = rvs.scenario_doc(case, chromium_preset=True, side=rvs.SIM)
    doc.setdefault("measure", {})["bin"] = f"{int(round(bin_s * 1000))}ms"
    ts = flowstate.run(doc, seed=1, runs=runs).timeseries
    out = []
    for _, run in ts[ts["flow"] == flow].groupby("run"):
        run = run.sort_values("time_s")
        out.append(reaction(list(run["time_s"]), list(run["send_rate_mbps"]), bin_s))
    return out


def med(xs: list[Any]) -> Optional[float]:
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=Path("out/real"))
    p.add_argument("--sim-runs", type=int, default=10)
    p.add_argument("--bins", type=float, nargs="+", default=[0.1, 0.25, 0.5])
    p.add_argument("--preset", default="chromium-m156")
    p.add_argument("--sim-set", nargs="*", default=[], metavar="KEY=VALUE")
    a = p.parse_args(argv)
    if not (a.out / CASE / "chromium").is_dir():
        print(f"drop_reaction: {a.out / CASE / 'chromium'}: no real runs there", file=sys.stderr)
        return 2
    if any(b <= 0 or b > 1 for b in a.bins):
        print("drop_reaction: --bins: each bin width must be in (0, 1] s", file=sys.stderr)
        return 2
    try:
        settings = rvs.parse_sim_settings(a.sim_set)
    except ValueError as e:
        print(f"drop_reaction: {e}", file=sys.stderr)
        return 2
    rvs.SIM = rvs.SimSide(preset=a.preset, settings=settings)
    flow = "media"
    print(f"rfc8867-5.1, the drop to 0.6 Mbit/s at 60 s; simulator: {a.preset} {dict(settings) or ''}, {a.sim_runs} runs")
    print("| bin (s) | real: first bin under 0.66 Mbit/s (s) | sim | real: time above it in 5 s (s) | sim |")
    print("|---|---|---|---|---|")
    for b in a.bins:
        r = real_runs(a.out, flow, b)
        s = sim_runs(a.sim_runs, b, flow)
        fmt = lambda x: "-" if x is None else f"{x:.2f}"  # noqa: E731
        print(
            f"| {b:g} | {fmt(med([x[0] for x in r]))} ({', '.join(fmt(x[0]) for x in r)}) | {fmt(med([x[0] for x in s]))} "
            f"| {fmt(med([x[1] for x in r]))} | {fmt(med([x[1] for x in s]))} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
