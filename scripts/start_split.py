#!/usr/bin/env python3
"""A run's 500 ms series split into the data channel's start and the rest, real Chromium
156 against the simulator (issue 21; docs/REPRODUCTION.md, "p000-table5's miss is
SCTP's start, not GCC's level" and "dcSCTP's lost retransmissions").

    .venv/bin/python scripts/start_split.py [--label NAME] SERIES.csv ... \
        [--label NAME SERIES.csv ...] [--video gcc] [--data sctp] [--split 10 60 120]
        [--markdown OUT.md]

Each `--label` starts a group of `timeseries.csv` files (the references'
`CASE/chromium/timeseries.csv` holds every real run, a `run` column apart; a simulator
output folder's `sim-*/timeseries.csv` one run each). Per run and window (between
consecutive `--split` times, s): the video's throughput and GCC target (Mbit/s, window
means of the bins), the video's and the data channel's drops (summed) and the data
channel's throughput; and of the start (from the first `--split` time): how long the
first overflow lasts (consecutive bins with a data-channel drop, one bin's gap allowed),
its data-channel drops, the lowest queuing delay in the 4 s after it, and when GCC's
target first falls under 0.5 Mbit/s. A group's row is the median of its runs (and the
runs' min-max for the start's figures).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

BIN_GAP_ALLOWED = 1
AFTER_OVERFLOW_S = 4.0
TARGET_FLOOR_MBPS = 0.5


@dataclass
class Bin:
    video: float = 0.0
    target: Optional[float] = None
    video_lost: float = 0.0
    data: float = 0.0
    data_lost: float = 0.0
    queue_ms: Optional[float] = None


@dataclass
class Run:
    bins: dict[float, Bin] = field(default_factory=lambda: defaultdict(Bin))


def number(text: str) -> Optional[float]:
    return float(text) if text not in ("", None) else None


def read_runs(path: Path, video: str, data: str) -> list[Run]:
    """The runs of one series file (one per distinct `run` value; the file as one run
    without that column); a one-line error names a missing file or column."""
    if not path.exists():
        raise SystemExit(f"{path}: no such file")
    runs: dict[str, Run] = defaultdict(Run)
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        need = {"time_s", "flow", "throughput_mbps", "lost_packets"}
        missing = need - set(reader.fieldnames or [])
        if missing:
            raise SystemExit(f"{path}: no column {', '.join(sorted(missing))}")
        for row in reader:
            b = runs[row.get("run", "0")].bins[float(row["time_s"])]
            lost = number(row["lost_packets"]) or 0.0
            if row["flow"] == video:
                b.video = number(row["throughput_mbps"]) or 0.0
                b.target = number(row.get("target_mbps", ""))
                b.video_lost = lost
                b.queue_ms = number(row.get("queuing_delay_ms", ""))
            elif row["flow"] == data:
                b.data = number(row["throughput_mbps"]) or 0.0
                b.data_lost = lost
    return list(runs.values())


def window(run: Run, t0: float, t1: float) -> dict[str, float]:
    bins = [b for t, b in sorted(run.bins.items()) if t0 <= t < t1]
    if not bins:
        return {}
    targets = [b.target for b in bins if b.target is not None]
    return {
        "video": statistics.fmean(b.video for b in bins),
        "target": statistics.fmean(targets) if targets else float("nan"),
        "video_lost": sum(b.video_lost for b in bins),
        "data_lost": sum(b.data_lost for b in bins),
        "data": statistics.fmean(b.data for b in bins),
    }


def start(run: Run, t0: float) -> dict[str, float]:
    """The first overflow after `t0`: its length (s), its data-channel drops, the lowest
    queuing delay in the 4 s after it; and when GCC's target first falls under 0.5
    Mbit/s (s after `t0`)."""
    times = sorted(t for t in run.bins if t >= t0)
    if len(times) < 2:
        return {}
    step = times[1] - times[0]
    lossy = [t for t in times if run.bins[t].data_lost > 0]
    out: dict[str, float] = {}
    if lossy:
        first = last = lossy[0]
        for t in lossy[1:]:
            if t - last > step * (1 + BIN_GAP_ALLOWED) + 1e-9:
                break
            last = t
        out["overflow_s"] = last + step - first
        out["overflow_drops"] = sum(run.bins[t].data_lost for t in times if first <= t <= last)
        after = [run.bins[t].queue_ms for t in times
                 if last < t <= last + AFTER_OVERFLOW_S and run.bins[t].queue_ms is not None]
        out["queue_min_after_ms"] = min(after) if after else float("nan")
    below = [t for t in times if (run.bins[t].target or float("inf")) < TARGET_FLOOR_MBPS]
    out["target_below_s"] = below[0] - t0 if below else float("nan")
    return out


def median(values: list[float]) -> float:
    values = [v for v in values if v == v]
    return statistics.median(values) if values else float("nan")


def span(values: list[float]) -> str:
    values = [v for v in values if v == v]
    return f"{min(values):.1f}-{max(values):.1f}" if values else "-"


def table(groups: list[tuple[str, list[Run]]], split: list[float]) -> str:
    lines = ["| window | | runs | video Mbit/s | GCC target Mbit/s | video drops | data drops | data Mbit/s |",
             "|---|---|---|---|---|---|---|---|"]
    for t0, t1 in zip(split, split[1:]):
        for i, (label, runs) in enumerate(groups):
            w = [window(r, t0, t1) for r in runs]
            w = [x for x in w if x]
            m = {k: median([x[k] for x in w]) for k in ("video", "target", "video_lost", "data_lost", "data")}
            lines.append(f"| {f'{t0:g}-{t1:g} s' if i == 0 else ''} | {label} | {len(w)} | {m['video']:.3f} | "
                         f"{m['target']:.3f} | {m['video_lost']:.0f} | {m['data_lost']:.0f} | {m['data']:.3f} |")
    lines += ["", "| start | runs | first overflow s | its data drops | lowest queuing delay ms in the 4 s after | "
              "target under 0.5 Mbit/s after s |", "|---|---|---|---|---|---|"]
    for label, runs in groups:
        s = [start(r, split[0]) for r in runs]
        col = {k: [x.get(k, float("nan")) for x in s]
               for k in ("overflow_s", "overflow_drops", "queue_min_after_ms", "target_below_s")}
        lines.append(f"| {label} | {len(s)} | {span(col['overflow_s'])} | {span(col['overflow_drops'])} | "
                     f"{span(col['queue_min_after_ms'])} | {span(col['target_below_s'])} |")
    return "\n".join(lines)


def parse_groups(argv: list[str]) -> tuple[list[tuple[str, list[Path]]], list[str]]:
    """`--label NAME FILE ...` groups out of argv; the rest for argparse."""
    groups: list[tuple[str, list[Path]]] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] == "--label":
            if i + 1 >= len(argv):
                raise SystemExit("--label: expected a name")
            groups.append((argv[i + 1], []))
            i += 2
            while i < len(argv) and not argv[i].startswith("--"):
                groups[-1][1].append(Path(argv[i]))
                i += 1
        else:
            rest.append(argv[i])
            i += 1
    return groups, rest


def main(argv: list[str]) -> int:
    groups, rest = parse_groups(argv)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--video", default="gcc", help="the video flow's name (default gcc)")
    ap.add_argument("--data", default="sctp", help="the data channel's name (default sctp)")
    ap.add_argument("--split", nargs="+", type=float, default=[10.0, 60.0, 120.0],
                    help="window edges, s (default 10 60 120; the first is the data channel's start)")
    ap.add_argument("--markdown", type=Path)
    args = ap.parse_args(rest)
    if not groups or any(not files for _, files in groups):
        ap.error("give at least one --label NAME SERIES.csv ... group, each with a file")
    if len(args.split) < 2 or sorted(args.split) != args.split:
        ap.error("--split: at least two increasing times")
    loaded = [(label, [r for p in files for r in read_runs(p, args.video, args.data)]) for label, files in groups]
    md = table(loaded, args.split)
    print(md)
    if args.markdown:
        args.markdown.write_text(md + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
