#!/usr/bin/env python3
"""The data channel's start at packet level, real Chromium 156 against the simulator
(issue 21; docs/REPRODUCTION.md, "p000-table5's miss is SCTP's start, not GCC's level").

    .venv/bin/python scripts/sctp_start.py [--real RUN_DIR ...] [--sim TRACE.csv ...]
        [--flow sctp] [--from 10] [--to 14] [--markdown OUT.md]

Per run, over the window [--from, --to) s: the SCTP packets sent into the bottleneck, the
ones it dropped, the longest pause between two of them (s, and when it began), the most
sent within any 50 ms (packets, the rate they make, and when), and the SACKs that reached
the sender within those 50 ms.

- `--real RUN_DIR`: a real run's folder with `bottleneck-forward.csv` and
  `bottleneck-reverse.csv` (or `.csv.gz`; `flowstate browser`'s per-packet logs: the
  references keep p000-table5's runs 3 and 4 in
  references/chromium-156-5runs/p000-table5/chromium/packets/). The data channel's
  packets are the `dtls` class (SCTP over DTLS); a send is the packet's arrival at the
  bottleneck, a drop a packet without a departure, a SACK a reverse `dtls` packet's
  departure from the bottleneck (the sender's side of the reverse link).
- `--sim TRACE.csv`: the simulator's packet trace
  (`cargo run --release -p flowstate-sim --example packet_trace -- SCENARIO.toml SEED`):
  the flow named `--flow`'s data `send` and `drop` records, its feedback `deliver`
  records.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

BURST_WINDOW_S = 0.05


@dataclass
class Packets:
    """One run's SCTP traffic in seconds: data sends (time, bytes), drops, SACK arrivals."""

    label: str
    sends: list[tuple[float, int]]
    drops: list[float]
    sacks: list[float]


def open_text(path: Path) -> io.TextIOBase:
    """``path`` or ``path``.gz, as text; a one-line error when neither exists."""
    if path.exists():
        return open(path, newline="")
    gz = path.with_name(path.name + ".gz")
    if gz.exists():
        return io.TextIOWrapper(gzip.open(gz), newline="")
    raise SystemExit(f"{path}: no such file (nor {gz.name})")


def rows(path: Path, needed: Iterable[str]) -> Iterable[dict]:
    with open_text(path) as f:
        reader = csv.DictReader(f)
        missing = [c for c in needed if c not in (reader.fieldnames or [])]
        if missing:
            raise SystemExit(f"{path}: no column {', '.join(missing)} (a bottleneck log or a packet_trace CSV?)")
        yield from reader


def real_packets(run_dir: Path) -> Packets:
    if not run_dir.is_dir():
        raise SystemExit(f"--real {run_dir}: not a folder")
    sends, drops, sacks = [], [], []
    for r in rows(run_dir / "bottleneck-forward.csv", ("arrival_us", "departure_us", "size", "class")):
        if r["class"] != "dtls":
            continue
        t = int(r["arrival_us"]) / 1e6
        sends.append((t, int(r["size"])))
        if not r["departure_us"]:
            drops.append(t)
    for r in rows(run_dir / "bottleneck-reverse.csv", ("departure_us", "class")):
        if r["class"] == "dtls" and r["departure_us"]:
            sacks.append(int(r["departure_us"]) / 1e6)
    return Packets(str(run_dir), sorted(sends), sorted(drops), sorted(sacks))


def sim_packets(trace: Path, flow: str) -> Packets:
    sends, drops, sacks = [], [], []
    seen = False
    for r in rows(trace, ("time_us", "kind", "flow_name", "dir", "size")):
        if r["flow_name"] != flow:
            continue
        seen = True
        t = int(r["time_us"]) / 1e6
        if r["dir"] == "0" and r["kind"] == "send":
            sends.append((t, int(r["size"])))
        elif r["dir"] == "0" and r["kind"] == "drop":
            drops.append(t)
        elif r["dir"] == "1" and r["kind"] == "deliver":
            sacks.append(t)
    if not seen:
        raise SystemExit(f"--sim {trace}: no flow named {flow!r} (--flow)")
    return Packets(str(trace), sends, drops, sacks)


def longest_pause(times: list[float]) -> tuple[float, Optional[float]]:
    """The longest gap between consecutive times and when it began (0, None: < 2 times)."""
    best, at = 0.0, None
    for a, b in zip(times, times[1:]):
        if b - a > best:
            best, at = b - a, a
    return best, at


def densest(times: list[float], window: float = BURST_WINDOW_S) -> tuple[int, Optional[float]]:
    """The most times within any ``window`` (a half-open [t, t + window) span starting at
    one of them) and where that span starts."""
    best, at, j = 0, None, 0
    for i, t in enumerate(times):
        while times[j] <= t - window:
            j += 1
        if i - j + 1 > best:
            best, at = i - j + 1, times[j]
    return best, at


def summarise(p: Packets, t0: float, t1: float) -> dict:
    sends = [(t, s) for t, s in p.sends if t0 <= t < t1]
    times = [t for t, _ in sends]
    pause, pause_at = longest_pause(times)
    burst, burst_at = densest(times)
    burst_bytes = 0
    sacks_in_burst = 0
    if burst_at is not None:
        burst_bytes = sum(s for t, s in sends if burst_at <= t < burst_at + BURST_WINDOW_S)
        sacks_in_burst = sum(1 for t in p.sacks if burst_at <= t < burst_at + BURST_WINDOW_S)
    return {
        "run": p.label,
        "sent": len(sends),
        "dropped": sum(1 for t in p.drops if t0 <= t < t1),
        "longest_pause_s": pause,
        "pause_from_s": pause_at,
        "burst_packets": burst,
        "burst_mbps": burst_bytes * 8 / BURST_WINDOW_S / 1e6,
        "burst_from_s": burst_at,
        "sacks_in_burst": sacks_in_burst,
    }


def markdown(results: list[dict], t0: float, t1: float) -> str:
    def at(x: Optional[float]) -> str:
        return "-" if x is None else f"{x:.2f}"

    lines = [f"SCTP from {t0:g} to {t1:g} s; a burst is the most packets sent within {BURST_WINDOW_S * 1e3:g} ms.", "",
             "| run | sent | dropped | longest pause s (from) | burst packets | burst Mbit/s (from) | SACKs in the burst |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['run']} | {r['sent']} | {r['dropped']} | {r['longest_pause_s']:.3f} ({at(r['pause_from_s'])}) "
                     f"| {r['burst_packets']} | {r['burst_mbps']:.1f} ({at(r['burst_from_s'])}) | {r['sacks_in_burst']} |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", nargs="*", type=Path, default=[], help="real runs' folders (bottleneck logs)")
    ap.add_argument("--sim", nargs="*", type=Path, default=[], help="packet_trace CSVs of simulator runs")
    ap.add_argument("--flow", default="sctp", help="the simulated data channel's flow name (default sctp)")
    ap.add_argument("--from", dest="t0", type=float, default=10.0, help="window start, s (default 10)")
    ap.add_argument("--to", dest="t1", type=float, default=14.0, help="window end, s (default 14)")
    ap.add_argument("--markdown", type=Path, help="also write the table here")
    args = ap.parse_args(argv)
    if not args.real and not args.sim:
        ap.error("give --real RUN_DIR ... and/or --sim TRACE.csv ...")
    if not args.t1 > args.t0:
        ap.error(f"--to ({args.t1:g}) must be after --from ({args.t0:g})")
    runs = [real_packets(d) for d in args.real] + [sim_packets(t, args.flow) for t in args.sim]
    text = markdown([summarise(p, args.t0, args.t1) for p in runs], args.t0, args.t1)
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
