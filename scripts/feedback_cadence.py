#!/usr/bin/env python3
"""Chromium's transport-feedback cadence, measured on the real runs' reverse path
(issue 21; docs/REPRODUCTION.md, "Chromium's transport-feedback cadence").

    .venv/bin/python scripts/feedback_cadence.py RUN_DIR... [--window 20] [--json OUT]

Per run folder (with bottleneck-reverse.pcap and .csv, and bottleneck-forward.csv): the
receiver's RTCP packets on the reverse path, by the first RTCP header of each (SRTCP
leaves it in the clear, RFC 3711 3.4; Chromium sends reduced-size RTCP, RFC 5506, so a
transport feedback is not behind a receiver report): transport-wide feedback (PT 205,
FMT 15), receiver reports (201), NACKs (205 / 1), the rest. For the feedback:

- reports a second and the gaps between them (p10 / p50 / p90), and the gaps in whole
  periods of 62.5 ms (libwebrtc's 50 ms on Chromium's 64 Hz metronome,
  flowstate_core::gcc::feedback_cadence): the share within 2 ms of 1, 2, 3, 4+ periods,
  and the share within 2 ms of any whole multiple;
- the phase: each report's time modulo the 15.625 ms tick, as the spread around the
  run's circular mean (p5 / p95, ms): a fixed metronome keeps it within a millisecond
  or two;
- "only when packets came": with the forward path's RTP packets (every class `rtp` row of
  bottleneck-forward.csv that left the bottleneck), for an offset between a packet's
  departure and the report that includes it searched over -10..40 ms, the share of
  reports with a packet in the period before them, and of the skipped steps (the
  periods of a gap longer than one period but its last) with none;
- over time: reports a second and the median gap per `--window` seconds.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from pathlib import Path
from typing import Any, Optional

from bottleneck_pcap import is_rtcp, udp_records

TICK_S = 1 / 64  # TimerBasedTickProvider::kDefaultPeriod = base::Hertz(64)
PERIOD_S = 4 * TICK_S  # 50 ms rounded up to whole ticks: 62.5 ms
TOLERANCE_S = 0.002
PT_RTPFB, FMT_TWCC, FMT_NACK, PT_RR = 205, 15, 1, 201


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[int(p * (len(xs) - 1))] if xs else math.nan


def rtcp_packets(run_dir: Path) -> list[tuple[float, int, int]]:
    """The reverse path's RTCP packets as (time s on the csv's clock, PT, FMT/RC of the
    first header). The pcap's first record is the csv's first row (as gcc_share.py's
    rtp_packets maps the forward pcap)."""
    with open(run_dir / "bottleneck-reverse.csv") as f:
        first_us = int(next(csv.DictReader(f))["arrival_us"])
    return [(t, p[1], p[0] & 31)
            for t, _, _, p in udp_records(run_dir / "bottleneck-reverse.pcap", first_us) if is_rtcp(p)]


def forward_departures(run_dir: Path) -> list[float]:
    """When the forward path's RTP packets left the bottleneck (s), dropped ones left out."""
    out = []
    with open(run_dir / "bottleneck-forward.csv") as f:
        for row in csv.DictReader(f):
            if row["class"] == "rtp" and row["departure_us"]:
                out.append(int(row["departure_us"]) / 1e6)
    out.sort()
    return out


def periods(gap: float) -> Optional[int]:
    """The gap in whole periods, if within TOLERANCE_S of one."""
    k = round(gap / PERIOD_S)
    return k if k >= 1 and abs(gap - k * PERIOD_S) <= TOLERANCE_S else None


def only_when_packets(reports: list[float], departures: list[float]) -> dict[str, Any]:
    """The offset (departure -> the report that includes it) that best explains which
    steps had a report, and how well."""
    import bisect

    def count(lo: float, hi: float) -> int:
        return bisect.bisect_right(departures, hi) - bisect.bisect_right(departures, lo)

    best: Optional[dict[str, Any]] = None
    for off_ms in range(-10, 41):
        off = off_ms / 1000
        sent_ok = sent = skipped_ok = skipped = 0
        for a, b in zip(reports, reports[1:]):
            k = periods(b - a)
            if k is None:
                continue
            sent += 1
            sent_ok += count(b - PERIOD_S - off, b - off) > 0
            for j in range(1, k):
                skipped += 1
                skipped_ok += count(a + (j - 1) * PERIOD_S - off, a + j * PERIOD_S - off) == 0
        score = sent_ok + skipped_ok
        if best is None or score > best["score"]:
            best = {"score": score, "offset_ms": off_ms,
                    "reports_with_packets": sent_ok / max(sent, 1),
                    "skipped_without_packets": skipped_ok / max(skipped, 1),
                    "skipped_steps": skipped}
    assert best is not None
    best.pop("score")
    return best


def run_cadence(run_dir: Path, window_s: float) -> dict[str, Any]:
    pk = rtcp_packets(run_dir)
    twcc = [t for t, pt, f in pk if pt == PT_RTPFB and f == FMT_TWCC]
    if len(twcc) < 3:
        raise SystemExit(f"{run_dir}: fewer than 3 transport feedback packets on the reverse path")
    gaps = [b - a for a, b in zip(twcc, twcc[1:])]
    ks = [periods(g) for g in gaps]
    share = lambda pred: sum(1 for k in ks if pred(k)) / len(ks)
    # The phase modulo the tick, around its circular mean.
    ang = [2 * math.pi * ((t % TICK_S) / TICK_S) for t in twcc]
    mean = math.atan2(sum(map(math.sin, ang)), sum(map(math.cos, ang)))
    dev = [((a - mean + math.pi) % (2 * math.pi) - math.pi) / (2 * math.pi) * TICK_S * 1000 for a in ang]
    span = twcc[-1] - twcc[0]
    windows = []
    start = twcc[0]
    while start + window_s <= twcc[-1]:
        w = [t for t in twcc if start <= t < start + window_s]
        wg = [b - a for a, b in zip(w, w[1:])]
        windows.append({"from_s": round(start, 1), "reports_per_s": len(w) / window_s,
                        "gap_p50_ms": pct(wg, 0.5) * 1000 if wg else math.nan})
        start += window_s
    fwd = forward_departures(run_dir) if (run_dir / "bottleneck-forward.csv").exists() else []
    return {
        "run": str(run_dir),
        "rtcp": {"twcc": len(twcc),
                 "rr": sum(1 for _, pt, _ in pk if pt == PT_RR),
                 "nack": sum(1 for _, pt, f in pk if pt == PT_RTPFB and f == FMT_NACK),
                 "other": sum(1 for _, pt, f in pk if pt != PT_RR and pt != PT_RTPFB)},
        "rtcp_per_s": len(pk) / span,
        "twcc_per_s": len(twcc) / span,
        "gap_ms": [pct(gaps, p) * 1000 for p in (0.1, 0.5, 0.9)],
        "periods": {"1": share(lambda k: k == 1), "2": share(lambda k: k == 2),
                    "3": share(lambda k: k == 3), "4+": share(lambda k: k is not None and k >= 4),
                    "whole": share(lambda k: k is not None)},
        "phase_ms": [pct(dev, 0.05), pct(dev, 0.95)],
        "only_when_packets": only_when_packets(twcc, fwd) if fwd else None,
        "windows": windows,
    }


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", type=Path, help="real run folders with bottleneck-reverse.pcap")
    ap.add_argument("--window", type=float, default=20.0, help="seconds per row of the over-time table")
    ap.add_argument("--json", type=Path, help="write every figure here too")
    a = ap.parse_args(argv)
    if a.window <= 0:
        ap.error("--window must be > 0 s")
    rows = []
    for rd in a.runs:
        if not (rd / "bottleneck-reverse.pcap").exists():
            print(f"{rd}: no bottleneck-reverse.pcap (skipped)", file=sys.stderr)
            continue
        rows.append(run_cadence(rd, a.window))
    if not rows:
        raise SystemExit("no run folder with bottleneck-reverse.pcap")
    f1 = lambda x: f"{x:.1f}"
    f2 = lambda x: f"{x:.2f}"
    print("| run | RTCP /s | TWCC /s | TWCC gap ms p10 / p50 / p90 | gaps of 1 / 2 / 3 / 4+ periods (62.5 ms) | whole periods | phase mod 15.625 ms, p5 / p95 | reports with packets before them | skipped steps without (count) | offset ms |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        g, p, w = r["gap_ms"], r["periods"], r["only_when_packets"]
        ow = (f"{f2(w['reports_with_packets'])} | {f2(w['skipped_without_packets'])} ({w['skipped_steps']}) | {w['offset_ms']}"
              if w else "- | - | -")
        print(f"| {r['run']} | {f1(r['rtcp_per_s'])} | {f1(r['twcc_per_s'])} | {f1(g[0])} / {f1(g[1])} / {f1(g[2])} | "
              f"{f2(p['1'])} / {f2(p['2'])} / {f2(p['3'])} / {f2(p['4+'])} | {f2(p['whole'])} | "
              f"{f2(r['phase_ms'][0])} / {f2(r['phase_ms'][1])} | {ow} |")
    print()
    print("Over time (reports a second, median gap ms):")
    print()
    for r in rows:
        cells = ", ".join(f"{w['from_s']:.0f} s: {w['reports_per_s']:.1f} ({w['gap_p50_ms']:.1f})" for w in r["windows"])
        print(f"- {r['run']}: {cells}")
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
