#!/usr/bin/env python3
"""The shared drop-tail queue of the CUBIC cases of issue 21 (rfc8867-5.6, p002-fig11,
p001-fig8), real Chromium 156 against the simulator (docs/REPRODUCTION.md, "The
`chromium-m156` and `dcsctp` presets against the same real runs").

    .venv/bin/python scripts/cubic_queue.py [--out out/real] [--sim-runs 10]
        [--only CASE ...] [--preset chromium-m156] [--sim-set KEY=VALUE ...]

Both sides are reduced the same way, in 0.1 s bins from the measurement window's start:
the TCP flow's mean queuing delay per bin (its 5th, 50th and 95th percentile over the
bins: the sawtooth's floor, middle and top), the loss episodes (bins with a drop at the
bottleneck, joined when at most 0.3 s apart: one episode ~ one overflow of the queue),
their period, the drops per episode, the video's loss ratio and the share of episodes in
which the video lost a packet. Real side: every run's per-packet record
(OUT/CASE/chromium/run-K/bottleneck-forward.csv; a drop has no departure), median over
the runs; plus, real only, the share of the video's packets that reach the bottleneck
less than 1 ms after the previous video packet (sent back to back). Simulator side: the
scenario as ``real_vs_sim.py`` builds it with ``measure.bin`` = 100 ms, mean over the
runs. No root, no browser: only the stored runs are read.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
import real_vs_sim as rvs  # noqa: E402

CASES = ("rfc8867-5.6", "p002-fig11", "p001-fig8")
BIN_S = 0.1
EPISODE_GAP_S = 0.3
BACK_TO_BACK_S = 0.001


def window(case_name: str) -> tuple[float, float]:
    """The case's measurement window (s), as the simulator side builds the scenario."""
    case = next(c for c in rvs.CASES if c.name == case_name)
    doc = rvs.scenario_doc(case, chromium_preset=True, side=rvs.SIM)
    m = doc.get("measure", {})
    dur = float(str(doc["duration"]).rstrip("s"))
    start = float(str(m.get("start", "0s")).rstrip("s"))
    end = float(str(m.get("end", f"{dur}s")).rstrip("s"))
    return start, end


def pct(xs: list[float], q: float) -> Optional[float]:
    if not xs:
        return None
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def reduce_bins(tcp_q: list[Optional[float]], tcp_lost: list[int], vid_lost: list[int], vid_sent: int) -> dict:
    """The queue and loss figures from per-bin series (same length, 0.1 s bins)."""
    episodes: list[list[int]] = []
    last = None
    for i, (a, b) in enumerate(zip(tcp_lost, vid_lost)):
        if a + b == 0:
            continue
        if last is not None and (i - last) * BIN_S <= EPISODE_GAP_S + 1e-9:
            episodes[-1].append(i)
        else:
            episodes.append([i])
        last = i
    q = [x for x in tcp_q if x is not None]
    span = len(tcp_lost) * BIN_S
    drops = sum(tcp_lost) + sum(vid_lost)
    return {
        "q_p5": pct(q, 0.05),
        "q_p50": pct(q, 0.5),
        "q_p95": pct(q, 0.95),
        "period_s": span / len(episodes) if episodes else None,
        "drops_per_episode": drops / len(episodes) if episodes else None,
        "video_loss_pct": 100.0 * sum(vid_lost) / vid_sent if vid_sent else None,
        "episodes_with_video_drop": (
            sum(1 for e in episodes if any(vid_lost[i] for i in e)) / len(episodes) if episodes else None
        ),
    }


def real_run(path: Path, start: float, end: float, video: str) -> dict:
    n = int(round((end - start) / BIN_S))
    q_sum = [0.0] * n
    q_n = [0] * n
    tcp_lost = [0] * n
    vid_lost = [0] * n
    vid_sent = 0
    vid_arrivals: list[float] = []
    with path.open() as f:
        for row in csv.DictReader(f):
            t = int(row["arrival_us"]) / 1e6
            b = int((t - start) / BIN_S)
            if t < start or b >= n:
                continue
            dropped = row["departure_us"] == ""
            if row["flow"] == "tcp":
                if dropped:
                    tcp_lost[b] += 1
                else:
                    q_sum[b] += int(row["queue_delay_us"] or 0) / 1e3
                    q_n[b] += 1
            elif row["flow"] == video:
                vid_sent += 1
                vid_arrivals.append(t)
                if dropped:
                    vid_lost[b] += 1
    r = reduce_bins([s / k if k else None for s, k in zip(q_sum, q_n)], tcp_lost, vid_lost, vid_sent)
    gaps = [b - a for a, b in zip(vid_arrivals, vid_arrivals[1:])]
    r["video_back_to_back"] = sum(1 for g in gaps if g < BACK_TO_BACK_S) / len(gaps) if gaps else None
    return r


def sim_runs(case_name: str, runs: int, start: float, video: str) -> list[dict]:
    import flowstate

    case = next(c for c in rvs.CASES if c.name == case_name)
    doc = rvs.scenario_doc(case, chromium_preset=True, side=rvs.SIM)
    doc.setdefault("measure", {})["bin"] = f"{int(BIN_S * 1000)}ms"
    ts = flowstate.run(doc, seed=1, runs=runs).timeseries
    ts = ts[ts["time_s"] >= start - 1e-9]
    out = []
    for _, g in ts.groupby("run"):
        tcp = g[g["flow"] == "tcp"].sort_values("time_s")
        vid = g[g["flow"] == video].sort_values("time_s")
        q = [None if x != x else float(x) for x in tcp["queuing_delay_ms"]]
        r = reduce_bins(q, [int(x) for x in tcp["lost_packets"]], [int(x) for x in vid["lost_packets"]],
                        int(vid["sent_packets"].sum()))
        r["video_mbps"] = float(vid["throughput_mbps"].mean())
        out.append(r)
    return out


def agg(rs: list[dict], key: str, how) -> Optional[float]:
    xs = [r[key] for r in rs if r.get(key) is not None]
    return how(xs) if xs else None


FIELDS = (
    ("TCP queuing delay p5 / p50 / p95 (ms, 0.1 s bins)", ("q_p5", "q_p50", "q_p95"), "{:.0f}"),
    ("loss episodes: period (s)", ("period_s",), "{:.1f}"),
    ("drops per episode", ("drops_per_episode",), "{:.1f}"),
    ("video loss (%)", ("video_loss_pct",), "{:.2f}"),
    ("episodes in which the video loses", ("episodes_with_video_drop",), "{:.0%}"),
    ("video packets < 1 ms after the previous one", ("video_back_to_back",), "{:.0%}"),
)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=Path("out/real"))
    p.add_argument("--sim-runs", type=int, default=10)
    p.add_argument("--only", nargs="+", default=list(CASES))
    p.add_argument("--preset", default="chromium-m156")
    p.add_argument("--sim-set", nargs="*", default=[], metavar="KEY=VALUE")
    a = p.parse_args(argv)
    for c in a.only:
        if c not in CASES:
            print(f"cubic_queue: --only {c}: not one of {', '.join(CASES)}", file=sys.stderr)
            return 2
        if not (a.out / c / "chromium").is_dir():
            print(f"cubic_queue: {a.out / c / 'chromium'}: no real runs there", file=sys.stderr)
            return 2
    if a.sim_runs < 1:
        print(f"cubic_queue: --sim-runs: must be at least 1, got {a.sim_runs}", file=sys.stderr)
        return 2
    try:
        settings = rvs.parse_sim_settings(a.sim_set)
    except ValueError as e:
        print(f"cubic_queue: {e}", file=sys.stderr)
        return 2
    rvs.SIM = rvs.SimSide(preset=a.preset, sctp_preset="dcsctp", settings=settings)
    print(f"simulator: {a.preset} {dict(settings) or ''}, {a.sim_runs} runs (mean); real: median over the runs")
    for c in a.only:
        video = "media" if c == "rfc8867-5.6" else "gcc"
        start, end = window(c)
        real = [real_run(r / "bottleneck-forward.csv", start, end, video)
                for r in sorted((a.out / c / "chromium").glob("run-*")) if (r / "bottleneck-forward.csv").exists()]
        sim = sim_runs(c, a.sim_runs, start, video)
        print(f"\n**{c}** (window {start:g}-{end:g} s; simulated video {agg(sim, 'video_mbps', statistics.mean):.3f} Mbit/s)\n")
        print("| | real | sim |")
        print("|---|---|---|")
        for label, keys, f in FIELDS:
            def cell(rs: list[dict], how) -> str:
                vals = [agg(rs, k, how) for k in keys]
                return " / ".join("-" if v is None else f.format(v) for v in vals)
            print(f"| {label} | {cell(real, statistics.median)} | {cell(sim, statistics.mean)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
