#!/usr/bin/env python3
"""GCC's target against what the video sends, real Chromium 156 against the simulator
(issue 21; docs/REPRODUCTION.md, "Why `vp8_frame_drop` cuts p000-fig3").

    .venv/bin/python scripts/gcc_share.py real RUNS_ROOT FLOW FROM TO
    .venv/bin/python scripts/gcc_share.py toml CASE OUT.toml [KEY=VALUE ...]
    .venv/bin/python scripts/gcc_share.py sim FROM TO TRACE ...
    .venv/bin/python scripts/gcc_share.py series FLOW FROM TO TIMESERIES_CSV ...
    .venv/bin/python scripts/gcc_share.py fec RUNS_ROOT FROM TO
    .venv/bin/python scripts/gcc_share.py chain RUNS_ROOT FROM TO [--overhead 0.06]
    .venv/bin/python scripts/gcc_share.py adjuster RUNS_ROOT FROM TO [--overhead 0.06] [--fps 30]
    .venv/bin/python scripts/gcc_share.py stages FROM TO (RUN_DIR | CHAIN_TRACE) ... [--by encoder|target]

`real`: per stored real run (RUNS_ROOT/run-*/: getstats.json every 0.2 s, browser.json,
bottleneck-forward.pcap, timeseries.csv) over [FROM, TO) s: GCC's target decreases (the
transport's `availableOutgoingBitrate` falling by more than 5 % from one 0.2 s sample to
the next; count and mean ratio), GCC's mean target, the encoder's `targetBitrate`, the
video's RTP payload rate and frames per second from the pcap (frames by RTP timestamp,
scripts/encoder_fps.py), and target / payload.

`toml`: the simulator's side of a real_vs_sim.py case (`chromium-m156` + `dcsctp`, the
KEY=VALUE settings as `--sim-set` takes them) written to OUT.toml, for the traced build.

`series`: GCC's target (`target_mbps`) against the video's throughput from
timeseries.csv files, real (`CASE/chromium/timeseries.csv`: `availableOutgoingBitrate`)
or simulated (`CASE/sim-*/timeseries.csv` of real_vs_sim.py: GCC's target at each bin's
end); no patched build needed.

`fec`: per stored real run, the chain from GCC's target to the wire: the encoder's
`targetBitrate`, and the video's media, ULPFEC and RTX rates from the pcap.

`chain`: per stored real run and getStats sample, the encoder's `targetBitrate` against
`FecControllerDefault`'s chain evaluated on the wire (GCC's target less the per-packet
overhead, times 1 - min(the last second's (ULPFEC + RTX) share, 0.5)).

`adjuster`: `chain` divided by `EncoderBitrateAdjuster`'s factor, the overshoot detector
fed with each run's encoded frames (from the pcap) at the reported `targetBitrate` (which
is the adjusted rate) and the input frame rate (docs/REPRODUCTION.md, "Where the missing
third goes").

`stages`: the send chain from GCC's target to the wire stage by stage, real against
simulated, per 0.2 s sample (real: each getStats sample of the RUN_DIRs, run-N folders;
simulated: traces of scripts/patches/issue21-trace-chain.patch, sampled every 0.2 s):
the wire's video bytes of the last second / target, the encoder's rate / target (real
`targetBitrate`), `FecControllerDefault`'s cut (real: 1 - min(the last second's
(ULPFEC + RTX) share, 0.5); simulated: its output over its input), the adjuster's factor
(real: evaluated on the run's frames as `adjuster`; simulated: the rate before it over the
rate after it), encoded frames in the last second and their mean size; medians per run,
then per bin of GCC's target (`--by target`) or of the encoder's rate (`--by encoder`,
default) with both sides pooled (docs/REPRODUCTION.md, "Which stage of the send chain");
real runs that played different test clips (browser.json's `clip`) are pooled per clip.
Chain trace lines (besides the `T` line of issue21-trace-gcc-target.patch): `S us target
after_overhead before_adjuster encoder` at every encoder-rate update, `A us
before_adjuster encoder` at the adjuster's periodic update, `F us bytes keyframe
codec_rate` per encoded frame, `P us wire_bytes is_fec frame_id` per sent packet.

`sim`: the same figures from simulator traces. The simulator does not put GCC's target
in its series; the traces come from a build with scripts/patches/issue21-trace-target.patch
applied (a few `eprintln!` in `MediaSender`, on with FS_TRACE=1; FS_ENC_SCALE=x gives the
encoder x times its usual rate), in a scratch worktree, never landed:

    git worktree add /tmp/trace-wt HEAD && cd /tmp/trace-wt
    git apply scripts/patches/issue21-trace-target.patch
    nice -n 10 cargo build --release -p flowstate-sim --example series
    FS_TRACE=1 target/release/examples/series OUT.toml 10 SEED 2> SEED.trace

Trace lines: `T us target_bps encoder_bps delay_based_bps loss_based_bps n_dd cwnd
codec_rate_bps` at every target update, `F us bytes keyframe codec_rate_bps` per encoded
frame, `C us bytes` per frame the congestion-window pushback dropped.
"""

from __future__ import annotations

import argparse
import bisect
import json
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DROP = 0.95  # a sample under 95 % of the previous one counts as a decrease
GRID_S = 0.2  # the real runs' getStats interval


def decreases(values: list[float]) -> tuple[int, float]:
    """(count, mean ratio) of steps to under DROP x the previous value."""
    r = [b / a for a, b in zip(values, values[1:]) if a and b and b < DROP * a]
    return len(r), (sum(r) / len(r) if r else 0.0)


def real(root: Path, flow: str, t0: float, t1: float) -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import encoder_fps as ef
    import pandas as pd

    print("| run | target decreases (mean ratio) | mean target kbit/s | targetBitrate kbit/s | "
          "payload kbit/s | target / payload | frames/s | payload B per frame |")
    print("|---|---|---|---|---|---|---|---|")
    for rd in sorted(root.glob("run-*")):
        gs = json.loads((rd / "getstats.json").read_text())
        start = json.loads((rd / "browser.json").read_text())["t0_unix_s"]
        tr = sorted((s["t_unix_s"] - start, s.get("available_outgoing_bitrate_bps")) for s in gs
                    if s.get("kind") == "transport")
        inside = [a for t, a in tr if t0 <= t < t1]
        n, ratio = decreases(inside)
        mean_target = sum(a for a in inside if a) / max(1, sum(1 for a in inside if a)) / 1e3
        enc = [s["target_bitrate_bps"] for s in gs if s.get("kind") == "video" and s.get("flow") == flow
               and t0 <= s["t_unix_s"] - start < t1 and s.get("target_bitrate_bps")]
        frames = ef.pcap_frames(rd)
        ts = pd.read_csv(rd / "timeseries.csv")
        ts = ts[ts["flow"] == flow]
        # The first frame's RTP timestamp is placed at the video's first bin with packets.
        first = float(ts[ts["sent_packets"] > 0]["time_s"].min())
        r0 = frames[0]["rtp_ts"]
        inw = [f for f in frames if t0 <= first + ((f["rtp_ts"] - r0) % 2**32) / 90000 < t1]
        payload = sum(f["payload"] for f in inw) * 8 / (t1 - t0) / 1e3
        print(f"| {rd.name} | {n} ({ratio:.2f}) | {mean_target:.0f} | {sum(enc) / max(1, len(enc)) / 1e3:.0f} | "
              f"{payload:.0f} | {mean_target / payload:.2f} | {len(inw) / (t1 - t0):.1f} | "
              f"{sum(f['payload'] for f in inw) / max(1, len(inw)):.0f} |")


def toml(case_name: str, out: Path, items: list[str]) -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import real_vs_sim as rvs
    from flowstate import _native

    settings = rvs.parse_sim_settings(items)
    case = next((c for c in rvs.CASES if c.name == case_name), None)
    if case is None:
        raise SystemExit(f"unknown case {case_name!r} (one of {', '.join(c.name for c in rvs.CASES)})")
    side = rvs.SimSide(preset="chromium-m156", sctp_preset="dcsctp", settings=settings)
    out.write_text(_native.scenario_toml(rvs.scenario_doc(case, chromium_preset=True, side=side)))


def sim(paths: list[Path], t0: float, t1: float) -> None:
    print("| trace | target decreases (mean ratio) | n_dd | mean target kbit/s | payload kbit/s | "
          "target / payload | frames/s |")
    print("|---|---|---|---|---|---|---|")
    for path in paths:
        targets: list[tuple[float, float, int]] = []
        frames: list[tuple[float, int]] = []
        for k, line in enumerate(path.read_text().splitlines(), 1):
            p = line.split()
            try:
                if p and p[0] == "T":
                    targets.append((int(p[1]) / 1e6, float(p[2]), int(p[6])))
                elif p and p[0] == "F":
                    frames.append((int(p[1]) / 1e6, int(p[2])))
            except (IndexError, ValueError):
                raise SystemExit(f"{path}:{k}: not a trace line of the patch: {line[:60]!r}")
        if not targets:
            print(f"| {path} | no trace lines (built without the patch, or FS_TRACE unset?) | | | | | |")
            continue
        times = [t for t, _, _ in targets]

        def at(t: float) -> float:
            i = bisect.bisect_right(times, t) - 1
            return targets[i][1] if i >= 0 else 0.0

        grid = [at(t0 + GRID_S * k) for k in range(int((t1 - t0) / GRID_S) + 1)]
        n, ratio = decreases(grid)
        ndd = [d for t, _, d in targets if t0 <= t < t1]
        mean_target = sum(grid) / len(grid) / 1e3
        inw = [b for t, b in frames if t0 <= t < t1]
        payload = sum(inw) * 8 / (t1 - t0) / 1e3
        print(f"| {path.name} | {n} ({ratio:.2f}) | {(ndd[-1] - ndd[0]) if ndd else 0} | {mean_target:.0f} | "
              f"{payload:.0f} | {mean_target / payload if payload else float('nan'):.2f} | "
              f"{len(inw) / (t1 - t0):.1f} |")


def series(paths: list[Path], flow: str, t0: float, t1: float) -> None:
    """Per timeseries.csv (a real_vs_sim.py side: `CASE/chromium` of real runs with
    `availableOutgoingBitrate` as `target_mbps`, or `CASE/sim-*` of simulator runs with
    GCC's target at each bin's end): the video's mean target and throughput over
    [t0, t1) per run, their ratio, and the target's decreases (a bin under 95 % of the
    previous one), as medians (min-max) over the runs."""
    import pandas as pd

    def med(xs: list[float]) -> str:
        xs = sorted(xs)
        m = xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2
        return f"{m:.3f} ({xs[0]:.3f}-{xs[-1]:.3f})"

    print("| series | runs | GCC target Mbit/s | throughput Mbit/s | throughput / target | target falls per minute |")
    print("|---|---|---|---|---|---|")
    for path in paths:
        ts = pd.read_csv(path)
        v = ts[(ts["flow"] == flow) & (ts["time_s"] >= t0) & (ts["time_s"] < t1)]
        if v.empty or v["target_mbps"].isna().all():
            raise SystemExit(f"{path}: no target_mbps of flow {flow!r} in {t0} .. {t1} s")
        tg, th, ra, falls = [], [], [], []
        for _, g in v.groupby("run"):
            g = g.sort_values("time_s")
            tgt = g["target_mbps"].dropna()
            tg.append(float(tgt.mean()))
            th.append(float(g["throughput_mbps"].mean()))
            ra.append(th[-1] / tg[-1])
            n, _ = decreases(list(tgt))
            falls.append(n * 60.0 / (t1 - t0))
        print(f"| {path.parent.name} | {len(tg)} | {med(tg)} | {med(th)} | {med(ra)} | {med(falls)} |")


def falls(paths: list[Path], flow: str, t0: float, t1: float, close_runs: list[Path] | None = None) -> None:
    """Per timeseries.csv: the target's falls in [t0, t1) (a 0.5 s bin under 95 % of the
    previous one): per minute, the fall ratio (new / previous target), the throughput
    over the 1 s before the fall against the previous target, how many falls have a
    lost packet in that second or the fall's bin, and the video's loss rate; medians
    over the runs (falls pooled). Issue 21, "GCC's target against Chromium's".
    ``close_runs``: one more row, of these real run folders, with each bin's target the
    last getStats sample before the bin closes (the simulator's definition) instead of
    the mean of the bin's samples (gcc_target_falls.py `target_at_close`)."""
    import pandas as pd

    tables = [(path.parent.name, pd.read_csv(path)) for path in paths]
    if close_runs:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from gcc_target_falls import target_at_close

        parts = []
        for k, rd in enumerate(close_runs):
            ts = pd.read_csv(rd / "timeseries.csv")
            ts["run"] = k
            v = ts["flow"] == flow
            ts.loc[v, "target_mbps"] = target_at_close(rd, list(ts.loc[v, "time_s"]))
            parts.append(ts)
        tables.append(("real runs, target at bin close", pd.concat(parts)))

    def q(xs: list[float]) -> str:
        xs = sorted(xs)
        if not xs:
            return "-"
        return f"{xs[len(xs) // 2]:.2f} (p25 {xs[len(xs) // 4]:.2f})"

    print("| series | runs | falls per minute | fall ratio p50 (p25) | throughput / target in the 1 s before | falls near a loss | loss % |")
    print("|---|---|---|---|---|---|---|")
    for name, ts in tables:
        v = ts[ts["flow"] == flow]
        if v.empty or v["target_mbps"].isna().all():
            raise SystemExit(f"{name}: no target_mbps of flow {flow!r}")
        per_min, ratio, share, near, loss = [], [], [], [], []
        for _, g in v.groupby("run"):
            g = g.sort_values("time_s")
            t = list(g["time_s"])
            tg = list(g["target_mbps"])
            th = list(g["throughput_mbps"])
            lost = list(g["lost_packets"].fillna(0))
            sent = list(g["sent_packets"].fillna(0))
            n = 0
            for i in range(2, len(g)):
                if not t0 <= t[i] < t1 or not tg[i - 1] or tg[i] != tg[i] or tg[i - 1] != tg[i - 1]:
                    continue
                if tg[i] < DROP * tg[i - 1]:
                    n += 1
                    ratio.append(tg[i] / tg[i - 1])
                    share.append((th[i - 2] + th[i - 1]) / 2 / tg[i - 1])
                    near.append(float(sum(lost[i - 2 : i + 1]) > 0))
            per_min.append(n * 60.0 / (t1 - t0))
            w = [(lo, se) for tt, lo, se in zip(t, lost, sent) if t0 <= tt < t1]
            loss.append(100.0 * sum(lo for lo, _ in w) / max(1.0, sum(se for _, se in w)))
        near_share = f"{sum(near) / len(near):.2f}" if near else "-"
        print(f"| {name} | {len(per_min)} | {q(per_min).split()[0]} | {q(ratio)} | {q(share)} | {near_share} | {q(loss).split()[0]} |")


def fec_split(run_dir: Path, t0: float, t1: float) -> dict[str, float]:
    """One real run over [t0, t1): GCC's mean target (`availableOutgoingBitrate`), the
    encoder's mean `targetBitrate` (getstats.json) and the video's wire rates (IP bytes,
    kbit/s) from bottleneck-forward.pcap split into media (a frame's packets up to its
    marker bit, by sequence number), ULPFEC (the packets after the marker with the same
    SSRC and RTP timestamp: RED/ULPFEC puts the FEC packets of a frame behind its last
    media packet, RFC 5109) and RTX (the rtx SSRC of getStats). The pcap's first record
    is bottleneck-forward.csv's first row (its `arrival_us`)."""
    import struct

    info = json.loads((run_dir / "browser.json").read_text())
    start = info["t0_unix_s"]
    ssrcs = {int(k) for k in info.get("ssrcs", {})}
    gs = json.loads((run_dir / "getstats.json").read_text())
    inside = [s for s in gs if t0 <= s["t_unix_s"] - start < t1]
    avail = [s["available_outgoing_bitrate_bps"] for s in inside
             if s.get("kind") == "transport" and s.get("available_outgoing_bitrate_bps")]
    enc = [s["target_bitrate_bps"] for s in inside if s.get("kind") == "video" and s.get("target_bitrate_bps")]
    rtx = {s["rtx_ssrc"] for s in gs if s.get("kind") == "video" and s.get("rtx_ssrc")}
    rtx_bytes = 0
    frames: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    for t, orig, _ihl, rtp in rtp_packets(run_dir):
        if not t0 <= t < t1:
            continue
        seq, ts, ssrc = struct.unpack(">HII", rtp[2:12])
        if ssrc in rtx:
            rtx_bytes += orig
        elif ssrc in ssrcs:
            frames.setdefault((ssrc, ts), []).append((seq, rtp[1] >> 7, orig))
    media = fec = 0
    for pkts in frames.values():
        m, f = split_frame(pkts)
        media += sum(p[2] for p in m)
        fec += sum(p[2] for p in f)
    kbps = 8 / (t1 - t0) / 1e3
    return {"target": sum(avail) / max(1, len(avail)) / 1e3, "encoder": sum(enc) / max(1, len(enc)) / 1e3,
            "media": media * kbps, "fec": fec * kbps, "rtx": rtx_bytes * kbps}


def wire_events(run_dir: Path) -> list[tuple[float, str, int]]:
    """One real run's video packets at the bottleneck as (time s, kind, IP bytes), kind
    `m` media, `f` ULPFEC, `r` RTX, classified as `fec_split` does."""
    import struct

    info = json.loads((run_dir / "browser.json").read_text())
    ssrcs = {int(k) for k in info.get("ssrcs", {})}
    gs = json.loads((run_dir / "getstats.json").read_text())
    rtx = {s["rtx_ssrc"] for s in gs if s.get("kind") == "video" and s.get("rtx_ssrc")}
    frames: dict[tuple[int, int], list[tuple[int, int, int, float]]] = {}
    events: list[tuple[float, str, int]] = []
    for t, orig, _ihl, rtp in rtp_packets(run_dir):
        seq, ts, ssrc = struct.unpack(">HII", rtp[2:12])
        if ssrc in rtx:
            events.append((t, "r", orig))
        elif ssrc in ssrcs:
            frames.setdefault((ssrc, ts), []).append((seq, rtp[1] >> 7, orig, t))
    for pkts in frames.values():
        media, fec = split_frame(pkts)
        events += [(p[3], "m", p[2]) for p in media] + [(p[3], "f", p[2]) for p in fec]
    events.sort()
    return events


def rtp_packets(run_dir: Path):
    """One real run's RTP packets at the bottleneck (bottleneck-forward.pcap, RTCP left
    out) as (time s on the run's clock, IP bytes, IP header bytes, the RTP packet)."""
    import csv

    from bottleneck_pcap import is_rtp, udp_records

    with open(run_dir / "bottleneck-forward.csv") as f:
        first_us = int(next(csv.DictReader(f))["arrival_us"])
    for t, orig, ihl, rtp in udp_records(run_dir / "bottleneck-forward.pcap", first_us):
        if is_rtp(rtp):
            yield t, orig, ihl, rtp


def split_frame(pkts: list[tuple]) -> tuple[list[tuple], list[tuple]]:
    """One frame's packets (sequence number, marker bit, ...) in sequence order (across
    the 16-bit wrap), split after the first marker: the media packets, then the ULPFEC
    ones (as `fec_split`). Sorts ``pkts`` in place."""
    base = pkts[0][0]
    pkts.sort(key=lambda p: (p[0] - base + 32768) % 65536)
    marks = [i for i, p in enumerate(pkts) if p[1]]
    k = marks[0] + 1 if marks else len(pkts)
    return pkts[:k], pkts[k:]


def pct(xs: list[float], p: float) -> float:
    """The ``p`` quantile of ``xs`` (the sample at rank p x (n - 1), no interpolation)."""
    xs = sorted(xs)
    return xs[int(p * (len(xs) - 1))]


def sampled_rates(run_dir: Path) -> tuple[dict[float, float], dict[float, float]]:
    """A real run's getStats samples by time from the run's start (0.1 s): the transport's
    ``availableOutgoingBitrate`` (GCC's target) and the video's ``targetBitrate``."""
    start = json.loads((run_dir / "browser.json").read_text())["t0_unix_s"]
    av: dict[float, float] = {}
    enc: dict[float, float] = {}
    for s in json.loads((run_dir / "getstats.json").read_text()):
        t = round(s["t_unix_s"] - start, 1)
        if s.get("kind") == "transport" and s.get("available_outgoing_bitrate_bps"):
            av[t] = s["available_outgoing_bitrate_bps"]
        if s.get("kind") == "video" and s.get("target_bitrate_bps"):
            enc[t] = s["target_bitrate_bps"]
    return av, enc


def protection_share(ev: list[tuple[float, str, int]], times: list[float], t: float) -> float:
    """The protection (ULPFEC + RTX) share of the video bytes on the wire in [t - 1 s, t)
    (``ev``: :func:`wire_events`, ``times`` their times)."""
    import bisect

    window = ev[bisect.bisect_left(times, t - 1.0):bisect.bisect_left(times, t)]
    total = sum(e[2] for e in window)
    return sum(e[2] for e in window if e[1] != "m") / total if total else 0.0


def chain(root: Path, t0: float, t1: float, overhead: float) -> None:
    """Per real run, sample by sample (getStats, 0.2 s): the encoder's `targetBitrate`
    against what `FecControllerDefault`'s chain gives from the wire, GCC's target x
    (1 - per-packet overhead) x (1 - min(protection share of the last second, 0.5)),
    the protection share = (ULPFEC + RTX) / all video bytes at the bottleneck in
    [t - 1 s, t); percentiles over the samples in [t0, t1)."""
    import bisect

    print("| run | samples | targetBitrate / chain p10 / p50 / p90 | protection share p50 / p90 | share >= 0.5 | targetBitrate / GCC target p50 |")
    print("|---|---|---|---|---|---|")
    for rd in sorted(root.glob("run-*")):
        av, enc = sampled_rates(rd)
        ev = wire_events(rd)
        times = [e[0] for e in ev]
        ratio, shares, own = [], [], []
        for t in sorted(enc):
            if not t0 <= t < t1 or t not in av:
                continue
            share = protection_share(ev, times, t)
            shares.append(share)
            ratio.append(enc[t] / (av[t] * (1 - overhead) * (1 - min(share, 0.5))))
            own.append(enc[t] / av[t])
        if not ratio:
            raise SystemExit(f"{rd}: no getStats samples with both rates in {t0} .. {t1} s")
        print(f"| {rd.name} | {len(ratio)} | {pct(ratio, .1):.2f} / {pct(ratio, .5):.2f} / {pct(ratio, .9):.2f} | "
              f"{pct(shares, .5):.2f} / {pct(shares, .9):.2f} | {sum(x >= 0.5 for x in shares) / len(shares):.0%} | "
              f"{pct(own, .5):.2f} |")


# EncoderBitrateAdjuster / EncoderOvershootDetector (video/encoder_bitrate_adjuster.{h,cc},
# video/encoder_overshoot_detector.cc, WebRTC M150 = signalapp/webrtc bd635df).
ADJ_WINDOW_S = 3.0  # EncoderBitrateAdjuster::kWindowSize
ADJ_MAX_FACTOR = 2.0  # "Don't reduce encoder target below 50%"
VP8_MIN_BPS = 30_000  # the codec's minBitrate, the adjuster's floor (min_bitrates_bps_)
# Per media packet, what is not the encoder's output: SRTP auth tag (10 B,
# AES_CM_128_HMAC_SHA1_80), RED header (1 B), VP8 payload descriptor (X, I, 15-bit
# picture ID: 4 B); the RTP header and its extensions are parsed.
PKT_NON_PAYLOAD_B = 10 + 1 + 4


def encoded_frames(run_dir: Path) -> list[tuple[float, int]]:
    """One real run's encoded frames as (time s of the frame's first media packet at the
    bottleneck, encoder output bytes): per (SSRC, RTP timestamp) the media packets up to
    the marker bit (as `fec_split`), each packet's UDP payload less its RTP header
    (CSRCs, header extension) and PKT_NON_PAYLOAD_B."""
    import struct

    info = json.loads((run_dir / "browser.json").read_text())
    ssrcs = {int(k) for k in info.get("ssrcs", {})}
    frames: dict[tuple[int, int], list[tuple[int, int, int, float]]] = {}
    for t, orig, ihl, rtp in rtp_packets(run_dir):
        seq, ts, ssrc = struct.unpack(">HII", rtp[2:12])
        if ssrc not in ssrcs:
            continue
        hdr = 12 + 4 * (rtp[0] & 15)
        if rtp[0] & 0x10 and len(rtp) >= hdr + 4:
            hdr += 4 + 4 * struct.unpack(">H", rtp[hdr + 2:hdr + 4])[0]
        udp_payload = orig - ihl - 8
        frames.setdefault((ssrc, ts), []).append((seq, rtp[1] >> 7, max(0, udp_payload - hdr - PKT_NON_PAYLOAD_B), t))
    out = []
    for pkts in frames.values():
        media, _fec = split_frame(pkts)
        out.append((min(p[3] for p in media), sum(p[2] for p in media)))
    out.sort()
    return out


def overshoot_factors(frames: list[tuple[float, int]], rate_at, fps: float) -> list[tuple[float, float]]:
    """EncoderOvershootDetector's network utilization factor per frame (time s, factor):
    a virtual buffer leaking at the (adjusted) target rate, floored at 0 (`LeakBits`);
    each frame adds its bits, and the part of the buffer left over beyond one ideal frame
    (target / input fps, `IdealFrameSizeBits`) counts as overshoot: factor = 1 +
    min(buffer, buffer + frame - ideal) / ideal; the first frame max(1, frame / ideal)
    (`HandleEncodedFrame`)."""
    out: list[tuple[float, float]] = []
    level = 0.0
    last = None
    for t, size in frames:
        rate = rate_at(t)
        if rate is None or rate <= 0:
            continue
        if last is not None:
            level = max(0.0, level - rate * (t - last))
        last = t
        bits = size * 8
        ideal = int((rate + fps / 2) / fps)
        if not out:
            f = max(1.0, bits / ideal)
            over = 0.0
        else:
            bitsum = bits + level
            over = min(level, bitsum - ideal) if bitsum > ideal else 0.0
            f = 1.0 + over / ideal
        level = level - over + bits
        out.append((t, f))
    return out


def adjuster(root: Path, t0: float, t1: float, overhead: float, fps: float) -> None:
    """Per real run and getStats sample: the encoder's `targetBitrate` (the allocation
    after `EncoderBitrateAdjuster`, video_stream_encoder.cc `SetEncoderRates` reports
    `rate_control.bitrate`) against the chain of `chain` divided by the adjuster's
    factor: the mean of the detector's per-frame network utilization factors over the
    last 3 s, clamped to [1, 2], the result floored at VP8's 30 kbit/s; the detector
    fed with the run's frames at the reported (adjusted) targetBitrate and the input
    frame rate."""
    print("| run | samples | targetBitrate / chain p50 | factor p50 / p90 | targetBitrate / (chain / factor) p10 / p50 / p90 | within 10 % | sent fps p50 |")
    print("|---|---|---|---|---|---|---|")
    for rd in sorted(root.glob("run-*")):
        av, enc = sampled_rates(rd)
        ev = wire_events(rd)
        times = [e[0] for e in ev]
        et = sorted(enc)
        ev_rates = [enc[t] for t in et]

        def rate_at(t: float, et=et, ev_rates=ev_rates):
            i = bisect.bisect_right(et, t) - 1
            return ev_rates[i] if i >= 0 else None

        frames = encoded_frames(rd)
        facs = overshoot_factors(frames, rate_at, fps)
        ft = [f[0] for f in facs]
        frame_t = [f[0] for f in frames]
        plain, adj, factors, fpss = [], [], [], []
        for t in et:
            if not t0 <= t < t1 or t not in av:
                continue
            share = protection_share(ev, times, t)
            ch = av[t] * (1 - overhead) * (1 - min(share, 0.5))
            w = facs[bisect.bisect_left(ft, t - ADJ_WINDOW_S):bisect.bisect_left(ft, t)]
            factor = min(ADJ_MAX_FACTOR, max(1.0, sum(f[1] for f in w) / len(w))) if w else 1.0
            pred = min(ch, max(VP8_MIN_BPS, ch / factor))
            plain.append(enc[t] / ch)
            adj.append(enc[t] / pred)
            factors.append(factor)
            fpss.append(bisect.bisect_left(frame_t, t) - bisect.bisect_left(frame_t, t - 1.0))
        if not adj:
            raise SystemExit(f"{rd}: no getStats samples with both rates in {t0} .. {t1} s")
        print(f"| {rd.name} | {len(adj)} | {pct(plain, .5):.2f} | {pct(factors, .5):.2f} / {pct(factors, .9):.2f} | "
              f"{pct(adj, .1):.2f} / {pct(adj, .5):.2f} / {pct(adj, .9):.2f} | "
              f"{sum(abs(x - 1) <= 0.1 for x in adj) / len(adj):.0%} | {pct(fpss, .5)} |")


STAGE_KEYS = ("wire", "enc", "cut", "factor", "fps", "bpf")
STAGE_HEAD = ("wire / target", "encoder / target", "FEC cut", "adjuster factor", "frames/s", "B per frame")


CLIP_PREFIX = "flowstate-1280x720-30fps-90f-"


def run_clip(rd: Path) -> str:
    """The test clip a real run played (browser.json's `clip`, read by pool_real_runs.py),
    short: without the project's common prefix and the `.y4m`; "not recorded" without it."""
    from pool_real_runs import run_field

    clip = run_field(rd, "clip")
    return clip if clip == "not recorded" else clip.removeprefix(CLIP_PREFIX).removesuffix(".y4m")


def stage_samples_real(rd: Path, t0: float, t1: float) -> list[tuple[float, float, dict]]:
    """One real run's samples (GCC target, targetBitrate, the stage figures) in [t0, t1)."""
    av, enc = sampled_rates(rd)
    ev = wire_events(rd)
    times = [e[0] for e in ev]
    et = sorted(enc)
    ev_rates = [enc[t] for t in et]

    def rate_at(t: float):
        i = bisect.bisect_right(et, t) - 1
        return ev_rates[i] if i >= 0 else None

    frames = encoded_frames(rd)
    facs = overshoot_factors(frames, rate_at, 30.0)
    ft = [f[0] for f in facs]
    frt = [f[0] for f in frames]
    out = []
    for t in et:
        if not t0 <= t < t1 or t not in av:
            continue
        w = ev[bisect.bisect_left(times, t - 1.0):bisect.bisect_left(times, t)]
        total = sum(e[2] for e in w) * 8
        prot = sum(e[2] for e in w if e[1] != "m") * 8
        ww = facs[bisect.bisect_left(ft, t - ADJ_WINDOW_S):bisect.bisect_left(ft, t)]
        factor = min(ADJ_MAX_FACTOR, max(1.0, sum(f[1] for f in ww) / len(ww))) if ww else 1.0
        i0, i1 = bisect.bisect_left(frt, t - 1.0), bisect.bisect_left(frt, t)
        out.append((av[t], enc[t], {
            "wire": total / av[t], "enc": enc[t] / av[t], "factor": factor,
            "cut": 1 - min(prot / total if total else 0.0, 0.5), "fps": i1 - i0,
            "bpf": sum(f[1] for f in frames[i0:i1]) / (i1 - i0) if i1 > i0 else float("nan")}))
    return out


def stage_samples_sim(path: Path, t0: float, t1: float) -> list[tuple[float, float, dict]]:
    """One chain trace's samples every 0.2 s in [t0, t1) (as `stage_samples_real`)."""
    upd: list[tuple[float, float, float, float, float]] = []  # t, target, after overhead, before adj, encoder
    frames: list[tuple[float, int]] = []
    pkts: list[tuple[float, int]] = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        f = line.split()
        try:
            if not f:
                continue
            if f[0] == "S" and len(f) >= 6:
                upd.append((int(f[1]) / 1e6, float(f[2]), float(f[3]), float(f[4]), float(f[5])))
            elif f[0] == "A" and len(f) >= 4 and upd:
                _, tg, ov, _, _ = upd[-1]
                upd.append((int(f[1]) / 1e6, tg, ov, float(f[2]), float(f[3])))
            elif f[0] == "F" and len(f) >= 3:
                frames.append((int(f[1]) / 1e6, int(f[2])))
            elif f[0] == "P" and len(f) >= 3:
                pkts.append((int(f[1]) / 1e6, int(f[2])))
        except ValueError:
            raise SystemExit(f"{path}:{n}: not a chain trace line: {line[:60]!r}") from None
    if not upd or not frames or not pkts:
        raise SystemExit(f"{path}: no S, F or P lines (a trace of scripts/patches/issue21-trace-chain.patch?)")
    ut = [u[0] for u in upd]
    pt = [p[0] for p in pkts]
    frt = [x[0] for x in frames]
    out = []
    k = 0
    while t0 + GRID_S * k < t1:
        t = round(t0 + GRID_S * k, 3)
        k += 1
        i = bisect.bisect_right(ut, t) - 1
        if i < 0:
            continue
        _, tg, ov, un, en = upd[i]
        if tg <= 0 or en <= 0 or ov <= 0:
            continue
        total = sum(p[1] for p in pkts[bisect.bisect_left(pt, t - 1.0):bisect.bisect_left(pt, t)]) * 8
        i0, i1 = bisect.bisect_left(frt, t - 1.0), bisect.bisect_left(frt, t)
        out.append((tg, en, {
            "wire": total / tg, "enc": en / tg, "cut": un / ov, "factor": un / en, "fps": i1 - i0,
            "bpf": sum(x[1] for x in frames[i0:i1]) / (i1 - i0) if i1 > i0 else float("nan")}))
    return out


def stages(paths: list[Path], t0: float, t1: float, by: str) -> None:
    """Per run the stage figures' medians, then per bin of the target or encoder rate."""
    import math

    def med(xs: list[float]) -> float:
        xs = sorted(x for x in xs if not math.isnan(x))
        return xs[len(xs) // 2] if xs else float("nan")

    def cells(rows: list[dict]) -> str:
        return " | ".join(f"{med([r[k] for r in rows]):.0f}" if k in ("fps", "bpf") else f"{med([r[k] for r in rows]):.2f}"
                          for k in STAGE_KEYS)

    pooled: dict[tuple[str, int], list[dict]] = {}
    edges = ([0, 200e3, 250e3, 300e3, 350e3, 400e3, 450e3, 500e3, 600e3, math.inf] if by == "encoder"
             else [0, 300e3, 400e3, 500e3, 600e3, 700e3, 800e3, 1000e3, math.inf])
    # Real runs made with different test clips are kept apart (the clip sets the frame
    # pattern: p000-table5's first runs used another clip than every later run).
    clips = {p: run_clip(p) for p in paths if p.is_dir()}
    several = len(set(clips.values())) > 1
    print("| run | side | samples | GCC target kbit/s | " + " | ".join(STAGE_HEAD) + " |")
    print("|---|---|---|---|" + "---|" * len(STAGE_KEYS))
    for p in paths:
        real = p.is_dir()
        side = (f"real, clip {clips[p]}" if several else "real") if real else "sim"
        samples = stage_samples_real(p, t0, t1) if real else stage_samples_sim(p, t0, t1)
        if not samples:
            raise SystemExit(f"{p}: no samples in {t0} .. {t1} s")
        name = f"{p.parent.parent.parent.name}/{p.name}" if real else p.name
        print(f"| {name} | {side} | {len(samples)} | {med([s[0] for s in samples]) / 1e3:.0f} | {cells([s[2] for s in samples])} |")
        for tg, en, d in samples:
            b = bisect.bisect_right(edges, tg if by == "target" else en) - 1
            pooled.setdefault((side, b), []).append(d)
    sides = sorted({side for side, _ in pooled if side != "sim"}) + ["sim"]
    print()
    print(f"| {'encoder rate' if by == 'encoder' else 'GCC target'} kbit/s | side | samples | " + " | ".join(STAGE_HEAD) + " |")
    print("|---|---|---|" + "---|" * len(STAGE_KEYS))
    for b in range(len(edges) - 1):
        for side in sides:
            rows = pooled.get((side, b))
            if rows:
                hi = "" if math.isinf(edges[b + 1]) else f"{edges[b + 1] / 1e3:.0f}"
                print(f"| {edges[b] / 1e3:.0f}-{hi} | {side} | {len(rows)} | {cells(rows)} |")


def fec(root: Path, t0: float, t1: float) -> None:
    print("| run | GCC target kbit/s | targetBitrate (/ target) | media kbit/s (/ targetBitrate) | "
          "ULPFEC kbit/s (/ media) | RTX kbit/s | total (/ target) | (ULPFEC + RTX) / total |")
    print("|---|---|---|---|---|---|---|---|")
    for rd in sorted(root.glob("run-*")):
        r = fec_split(rd, t0, t1)
        total = r["media"] + r["fec"] + r["rtx"]
        print(f"| {rd.name} | {r['target']:.0f} | {r['encoder']:.0f} ({r['encoder'] / r['target']:.2f}) | "
              f"{r['media']:.0f} ({r['media'] / r['encoder']:.2f}) | {r['fec']:.0f} ({r['fec'] / r['media']:.2f}) | "
              f"{r['rtx']:.0f} | {total:.0f} ({total / r['target']:.2f}) | {(r['fec'] + r['rtx']) / total:.2f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("real", help="per real run: GCC's target against the video's payload")
    r.add_argument("root", type=Path, help="a folder of run-*/ (e.g. out/real/p000-fig3/chromium)")
    r.add_argument("flow", help="the video flow's name (gcc or media)")
    r.add_argument("start", type=float)
    r.add_argument("end", type=float)
    t = sub.add_parser("toml", help="the simulator's scenario of a real_vs_sim.py case")
    t.add_argument("case")
    t.add_argument("out", type=Path)
    t.add_argument("settings", nargs="*", metavar="KEY=VALUE")
    s = sub.add_parser("sim", help="the same figures from traces of the patched build")
    s.add_argument("start", type=float)
    s.add_argument("end", type=float)
    s.add_argument("traces", type=Path, nargs="+")
    fp = sub.add_parser("fec", help="per real run: GCC's target, the encoder's, and the wire's media / ULPFEC / RTX")
    fp.add_argument("root", type=Path, help="a folder of run-*/ (e.g. out/real/p000-fig3/chromium)")
    fp.add_argument("start", type=float)
    fp.add_argument("end", type=float)
    c = sub.add_parser("chain", help="per real run and getStats sample: targetBitrate against FecControllerDefault's chain from the wire")
    c.add_argument("root", type=Path, help="a folder of run-*/ (e.g. out/real/p000-fig3/chromium)")
    c.add_argument("start", type=float)
    c.add_argument("end", type=float)
    c.add_argument("--overhead", type=float, default=0.06, help="per-packet overhead share of the target (default 0.06)")
    d = sub.add_parser("adjuster", help="per real run and getStats sample: targetBitrate against the chain divided by EncoderBitrateAdjuster's factor")
    d.add_argument("root", type=Path, help="a folder of run-*/ (e.g. out/real/p000-fig3/chromium)")
    d.add_argument("start", type=float)
    d.add_argument("end", type=float)
    d.add_argument("--overhead", type=float, default=0.06, help="per-packet overhead share of the target (default 0.06)")
    d.add_argument("--fps", type=float, default=30.0, help="the encoder's input frame rate (default 30, the clip's)")
    e = sub.add_parser("series", help="target and throughput from timeseries.csv files (real or simulated)")
    e.add_argument("flow", help="the video flow's name (gcc or media)")
    e.add_argument("start", type=float)
    e.add_argument("end", type=float)
    e.add_argument("series", type=Path, nargs="+", metavar="TIMESERIES_CSV")
    fl = sub.add_parser("falls", help="the target's falls (how often, how deep) from timeseries.csv files")
    fl.add_argument("flow", help="the video flow's name (gcc or media)")
    fl.add_argument("start", type=float)
    fl.add_argument("end", type=float)
    fl.add_argument("series", type=Path, nargs="+", metavar="TIMESERIES_CSV")
    fl.add_argument("--close-runs", type=Path, nargs="+", metavar="RUN_DIR",
                    help="one more row: these real runs (run-N folders) with each bin's target the last getStats "
                    "sample before the bin closes, as the simulator's series (default rows: the mean of the bin's samples)")
    sg = sub.add_parser("stages", help="the send chain stage by stage, real runs against chain traces, per run and per rate bin")
    sg.add_argument("start", type=float)
    sg.add_argument("end", type=float)
    sg.add_argument("inputs", type=Path, nargs="+", metavar="RUN_DIR_OR_TRACE",
                    help="real run folders (run-N, with getstats.json and the pcap) and/or chain trace files")
    sg.add_argument("--by", choices=("encoder", "target"), default="encoder",
                    help="bin the pooled samples by the encoder's rate (default) or GCC's target")
    a = ap.parse_args()
    check_args(a)
    if a.cmd == "stages":
        missing = [str(p) for p in a.inputs if not p.exists()]
        if missing:
            raise SystemExit(f"no such run folder or trace file: {', '.join(missing)}")
        stages(a.inputs, a.start, a.end, a.by)
    elif a.cmd == "falls":
        falls(a.series, a.flow, a.start, a.end, a.close_runs)
    elif a.cmd == "adjuster":
        adjuster(a.root, a.start, a.end, a.overhead, a.fps)
    elif a.cmd == "chain":
        chain(a.root, a.start, a.end, a.overhead)
    elif a.cmd == "fec":
        fec(a.root, a.start, a.end)
    elif a.cmd == "series":
        series(a.series, a.flow, a.start, a.end)
    elif a.cmd == "real":
        real(a.root, a.flow, a.start, a.end)
    elif a.cmd == "toml":
        try:
            toml(a.case, a.out, a.settings)
        except ValueError as e:
            raise SystemExit(str(e))
    else:
        sim(a.traces, a.start, a.end)


def check_args(a: argparse.Namespace) -> None:
    """One-line errors for the arguments every subcommand shares: a window with start <
    end, a folder of real runs, existing timeseries or trace files, an overhead share in
    [0, 1), a positive frame rate."""
    if getattr(a, "root", None) is not None and not sorted(a.root.glob("run-*")):
        raise SystemExit(f"no run-* folders in {a.root}")
    if hasattr(a, "start") and not a.start < a.end:
        raise SystemExit(f"the window must have start < end, got {a.start} .. {a.end}")
    for attr, what in (("series", "timeseries"), ("traces", "trace")):
        missing = [str(p) for p in getattr(a, attr, None) or [] if not p.is_file()]
        if missing:
            raise SystemExit(f"no such {what} file: {', '.join(missing)}")
    need = ("timeseries.csv", "getstats.json", "browser.json")
    missing = [str(d) for d in getattr(a, "close_runs", None) or [] if not all((d / n).is_file() for n in need)]
    if missing:
        raise SystemExit(f"--close-runs: no {', '.join(need)} in: {', '.join(missing)}")
    if hasattr(a, "overhead") and not 0 <= a.overhead < 1:
        raise SystemExit(f"--overhead must be in [0, 1), got {a.overhead}")
    if hasattr(a, "fps") and not a.fps > 0:
        raise SystemExit(f"--fps must be > 0, got {a.fps}")

if __name__ == "__main__":
    main()
