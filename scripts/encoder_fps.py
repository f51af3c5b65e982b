#!/usr/bin/env python3
"""Why real Chromium's VP8 encoder runs at 1-5 frames/s at low rates (issue 21;
docs/REPRODUCTION.md, "The real encoder's frame rate, measured").

    sudo .venv/bin/python scripts/encoder_fps.py run [--out out/encoder-fps] [--rates 50 100 ...]
        [--duration 45] [--runs 1]
    .venv/bin/python scripts/encoder_fps.py analyze [--out out/encoder-fps] [RUN_DIR ...]

`run` (root, Chromium): one real call per rate, video alone on a 2 Mbit/s, 25 ms, 300 ms
path with the sender's maxBitrate at the rate (so the encoder's target is that rate,
GCC never binds), `flowstate browser` each; the runs go to OUT/cap-RATEk/run-1.. .

`analyze`: per getStats sample pair 1 s apart (the harness samples every 0.2 s), from
every video sample of the given run folders (default: OUT's cap runs): encoded frames
per second (outbound-rtp framesEncoded), the capturer's frames per second (media-source
frames), the mean encoded frame size (bytesSent + headerBytesSent per frame sent), the
mean q index per frame (qpSum / framesEncoded; VP8's bitstream scale, 0-127), key frames,
the encoder's target (targetBitrate), resolution and quality-limitation reason; printed
as one row per folder (medians over the seconds after 10 s) and as a table of the
seconds binned by the encoder's target. The column `target / size` is the frame rate
a frame-size floor predicts: target / (8 x the mean frame size).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[1]
RATES_KBPS = (50, 75, 100, 150, 200, 300, 400, 600)
# Seconds after the video's first sample that are left out (start-up: probing, the
# encoder's first key frame, the quality scaler's first steps).
SKIP_S = 10.0
SRTP_TAG_BYTES = 10


def scenario(rate_kbps: float, duration_s: float) -> str:
    return f"""# issue 21: the real encoder's frame rate at a fixed encoder target (scripts/encoder_fps.py)
name = "encoder-fps-{rate_kbps:g}k"
duration = "{duration_s:g}s"
seed = 1

[link]
capacity = "2Mbps"
delay = "25ms"
queue = "300ms"

[[flows]]
name = "gcc"
kind = "gcc"
preset = "chromium"
overrides = {{ video_max_rate = "{rate_kbps:g}kbps" }}

[measure]
start = "{SKIP_S:g}s"
"""


def run(out: Path, rates: list[float], duration_s: float, runs: int) -> None:
    for rate in rates:
        folder = out / f"cap-{rate:g}k"
        if (folder / "summary.json").exists():
            continue  # resumable
        out.mkdir(parents=True, exist_ok=True)
        scen = out / f"cap-{rate:g}k.toml"  # beside the run's folder, which flowstate browser must find empty
        scen.write_text(scenario(rate, duration_s))
        # --force: an unfinished folder of an earlier attempt is replaced.
        cmd = [sys.executable, "-m", "flowstate", "browser", str(scen), "--runs", str(runs), "--out", str(folder),
               "--prefix", "fsf", "--no-report", "--force"]
        print(f"[{rate:g} kbit/s] {' '.join(cmd[3:])}", flush=True)
        p = subprocess.run(cmd, capture_output=True, text=True)
        (folder / "browser.log").write_text(p.stdout + p.stderr)
        if p.returncode != 0:
            print(p.stdout[-2000:] + p.stderr[-2000:], file=sys.stderr)
            raise SystemExit(f"the {rate:g} kbit/s run failed (see {folder / 'browser.log'})")


def video_samples(path: Path) -> dict[str, list[dict]]:
    """Video samples of one getstats.json by flow, oldest first, only while sending."""
    flows: dict[str, list[dict]] = {}
    for s in json.loads(path.read_text()):
        if s.get("kind") == "video" and s.get("sending") and s.get("frames_encoded") is not None:
            flows.setdefault(s["flow"], []).append(s)
    return flows


def per_second(samples: list[dict]) -> list[dict]:
    """One row per sample with a sample ~1 s earlier: the deltas over that second."""
    rows = []
    j = 0
    t0 = samples[0]["t_unix_s"] if samples else 0.0
    for i, s in enumerate(samples):
        while j < i and s["t_unix_s"] - samples[j + 1]["t_unix_s"] >= 1.0:
            j += 1
        a = samples[j]
        dt = s["t_unix_s"] - a["t_unix_s"]
        if dt < 0.95 or dt > 1.3 or s["t_unix_s"] - t0 < SKIP_S:
            continue
        enc = s["frames_encoded"] - a["frames_encoded"]
        sent = (s["frames_sent"] or 0) - (a["frames_sent"] or 0)
        nbytes = (s["bytes_sent"] + s["header_bytes_sent"]) - (a["bytes_sent"] + a["header_bytes_sent"])
        src = None
        if s.get("source_frames") is not None and a.get("source_frames") is not None:
            src = (s["source_frames"] - a["source_frames"]) / dt
        qp = None
        if enc > 0 and s.get("qp_sum") is not None and a.get("qp_sum") is not None:
            qp = (s["qp_sum"] - a["qp_sum"]) / enc
        rows.append({
            "t": s["t_unix_s"] - t0,
            "fps": enc / dt,
            "fps_stat": s.get("frames_per_second"),
            "src_fps": src,
            "frame_bytes": nbytes / sent if sent > 0 else None,
            "rate_kbps": nbytes * 8 / dt / 1000,
            "qp": qp,
            "key": (s.get("key_frames_encoded") or 0) - (a.get("key_frames_encoded") or 0),
            "target_kbps": (s.get("target_bitrate_bps") or 0) / 1000,
            "width": s.get("frame_width"),
            "height": s.get("frame_height"),
            "reason": s.get("quality_limitation_reason"),
            "impl": s.get("encoder_implementation"),
            "huge": s.get("huge_frames_sent"),
            "pli": s.get("pli_count"),
        })
    return rows


def med(xs: list[Optional[float]]) -> Optional[float]:
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x: Any, nd: int = 1) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.{nd}f}"
    return str(x)


def summarize(rows: list[dict]) -> dict:
    fb = med([r["frame_bytes"] for r in rows])
    tgt = med([r["target_kbps"] for r in rows])
    res = med([r["width"] * r["height"] for r in rows if r["width"]])
    return {
        "seconds": len(rows),
        "target_kbps": tgt,
        "rate_kbps": med([r["rate_kbps"] for r in rows]),
        "fps": med([r["fps"] for r in rows]),
        "fps_p10": _pct([r["fps"] for r in rows], 10),
        "fps_p90": _pct([r["fps"] for r in rows], 90),
        "src_fps": med([r["src_fps"] for r in rows]),
        "frame_bytes": fb,
        "qp": med([r["qp"] for r in rows]),
        "key_per_min": 60 * sum(r["key"] for r in rows) / max(1, len(rows)),
        "pixels": res,
        "reasons": sorted({r["reason"] for r in rows if r["reason"]}),
        "impl": sorted({r["impl"] for r in rows if r["impl"]}),
        "predicted_fps": (tgt * 1000 / 8 / fb) if fb and tgt else None,
    }


def _pct(xs: list[float], p: float) -> Optional[float]:
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def run_dirs(folder: Path) -> list[Path]:
    runs = sorted(folder.glob("run-*/getstats.json"))
    return [r.parent for r in runs] if runs else ([folder] if (folder / "getstats.json").exists() else [])


def analyze(folders: list[Path], out_json: Optional[Path]) -> None:
    header = ("| run | samples | target kbit/s | sent kbit/s | fps p50 (p10-p90) | capturer fps | "
              "frame B | q index | key/min | resolution | target/size fps | limitation |")
    print(header)
    print("|" + "---|" * 12)
    everything: list[dict] = []
    results = {}
    for folder in folders:
        for rd in run_dirs(folder):
            for flow, samples in video_samples(rd / "getstats.json").items():
                rows = per_second(samples)
                if not rows:
                    continue
                everything += rows
                s = summarize(rows)
                name = f"{folder.name}/{rd.name}/{flow}" if rd != folder else f"{folder.name}/{flow}"
                results[name] = s
                w = med([r["width"] for r in rows])
                h = med([r["height"] for r in rows])
                print(f"| {name} | {s['seconds']} | {fmt(s['target_kbps'], 0)} | {fmt(s['rate_kbps'], 0)} | "
                      f"{fmt(s['fps'])} ({fmt(s['fps_p10'])}-{fmt(s['fps_p90'])}) | {fmt(s['src_fps'])} | "
                      f"{fmt(s['frame_bytes'], 0)} | {fmt(s['qp'])} | {fmt(s['key_per_min'])} | "
                      f"{fmt(w, 0)}x{fmt(h, 0)} | {fmt(s['predicted_fps'])} | {','.join(s['reasons'])} |")
    print()
    print("| encoder target kbit/s | samples | fps p50 (p10-p90) | frame B p50 | q index p50 | target/size fps |")
    print("|---|---|---|---|---|---|")
    edges = [0, 50, 75, 100, 150, 200, 300, 400, 600, 800, 1e9]
    bins = []
    for lo, hi in zip(edges, edges[1:]):
        rows = [r for r in everything if lo <= r["target_kbps"] < hi]
        if not rows:
            continue
        s = summarize(rows)
        bins.append({"lo": lo, "hi": hi, **s})
        label = f"{lo:g}-{hi:g}" if hi < 1e9 else f">= {lo:g}"
        print(f"| {label} | {len(rows)} | {fmt(s['fps'])} ({fmt(s['fps_p10'])}-{fmt(s['fps_p90'])}) | "
              f"{fmt(s['frame_bytes'], 0)} | {fmt(s['qp'])} | {fmt(s['predicted_fps'])} |")
    if out_json:
        out_json.write_text(json.dumps({"runs": results, "bins": bins}, indent=1))


def pcap_frames(run_dir: Path) -> list[dict]:
    """The video's frames as they reached the bottleneck, from bottleneck-forward.pcap
    (raw IP, the first 96 bytes of each packet; SRTP leaves the RTP header in the
    clear): packets of each video SSRC (browser.json) grouped by RTP timestamp. Per
    frame: the RTP timestamp, the IP bytes and packets, and the gap to the previous
    frame of the same SSRC in seconds (RTP clock 90 kHz)."""
    import struct

    ssrcs = {int(k) for k in json.loads((run_dir / "browser.json").read_text()).get("ssrcs", {})}
    from bottleneck_pcap import is_rtp, udp_records

    frames: dict[tuple[int, int], dict] = {}
    order: list[tuple[int, int]] = []
    for _, orig, udp, rtp in udp_records(run_dir / "bottleneck-forward.pcap"):
        if not is_rtp(rtp):
            continue  # not RTP (or RTCP, RFC 5761)
        ts, ssrc = struct.unpack(">II", rtp[4:12])
        if ssrc not in ssrcs:
            continue
        # RTP header: 12 B, the CSRCs, the header extension (RFC 3550 5.3.1); SRTP adds
        # a 10-byte authentication tag (AES_CM_128_HMAC_SHA1_80 / AEAD: 10 or 16; 10 here).
        head = 12 + 4 * (rtp[0] & 15)
        if rtp[0] & 16 and len(rtp) >= head + 4:
            head += 4 + 4 * struct.unpack(">H", rtp[head + 2:head + 4])[0]
        payload = orig - udp - 8 - head - SRTP_TAG_BYTES
        key = (ssrc, ts)
        if key not in frames:
            frames[key] = {"ssrc": ssrc, "rtp_ts": ts, "bytes": 0, "payload": 0, "packets": 0}
            order.append(key)
        frames[key]["bytes"] += orig
        frames[key]["payload"] += max(0, payload)
        frames[key]["packets"] += 1
    out, last = [], {}
    for key in order:
        f = frames[key]
        prev = last.get(f["ssrc"])
        f["gap_s"] = ((f["rtp_ts"] - prev) % 2**32) / 90000 if prev is not None else None
        last[f["ssrc"]] = f["rtp_ts"]
        out.append(f)
    return out


def gap_frames(folders: list[Path], fps_in: float) -> list[dict]:
    """Every frame after SKIP_S of the folders' runs with its gap in input frames."""
    out = []
    for folder in folders:
        for rd in run_dirs(folder):
            if not (rd / "bottleneck-forward.pcap").exists():
                continue
            fr = pcap_frames(rd)
            if not fr:
                continue
            t0 = fr[0]["rtp_ts"]
            for f in fr:
                if f["gap_s"] is None or ((f["rtp_ts"] - t0) % 2**32) / 90000 < SKIP_S:
                    continue
                out.append({**f, "gap": max(1, round(f["gap_s"] * fps_in)), "folder": folder.name})
    return out


GAP_BINS = ((1, 1), (2, 2), (3, 4), (5, 8), (9, 16), (17, 32), (33, 64), (65, 10**6))


def floor_fit(frames: list[dict], max_gap: int = 64) -> tuple[float, float, float, float]:
    """Least squares of min(max, base + per x (gap - 1)) to the frames' payload sizes
    (gap <= max_gap): (base, per, max, rms), grid search in 50-byte steps."""
    import numpy as np

    pts = [(f["gap"], f["payload"]) for f in frames if f["gap"] <= max_gap]
    g = np.array([p[0] for p in pts], dtype=float)
    y = np.array([p[1] for p in pts], dtype=float)
    tops = np.arange(500, 16001, 250, dtype=float)
    best = (0.0, 0.0, 0.0, float("inf"))
    for base in range(500, 4001, 50):
        for per in range(0, 1501, 25):
            line = base + per * (g - 1)
            err = ((y[None, :] - np.minimum(tops[:, None], line[None, :])) ** 2).sum(axis=1)
            err[tops < base] = np.inf
            i = int(np.argmin(err))
            if err[i] < best[3]:
                best = (float(base), float(per), float(tops[i]), float(err[i]))
    return best[0], best[1], best[2], (best[3] / max(1, len(pts))) ** 0.5


def frame_sizes(folders: list[Path], fps_in: float, fit: bool) -> None:
    """Payload per frame against the gap to the previous frame, in input frames: median
    (mean) per folder and pooled; with ``fit`` the floor's least-squares fit."""
    print("| folder | frames | " + " | ".join(
        f"gap {lo}" + (f"-{hi}" if hi != lo and hi < 10**6 else ("+" if hi >= 10**6 else ""))
        for lo, hi in GAP_BINS) + " |")
    print("|" + "---|" * (len(GAP_BINS) + 2))
    pooled = []
    for folder in folders + [None]:
        fr = gap_frames([folder], fps_in) if folder else pooled
        if folder:
            pooled += fr
        cells = []
        for lo, hi in GAP_BINS:
            sizes = [f["payload"] for f in fr if lo <= f["gap"] <= hi]
            cells.append(f"{statistics.median(sizes):.0f} ({statistics.mean(sizes):.0f}, n={len(sizes)})"
                         if sizes else "-")
        print(f"| {folder.name if folder else 'all'} | {len(fr)} | " + " | ".join(cells) + " |")
    if fit and pooled:
        base, per, top, rms = floor_fit(pooled)
        print(f"\nfloor fit (payload bytes, gap <= 64, {len(pooled)} frames): base {base:.0f} B, "
              f"+{per:.0f} B per skipped frame, max {top:.0f} B (rms {rms:.0f} B)")


def spacing(case_name: str, video: str, start: float, real_root: Path, bursts: list[float], runs: int,
            chromium_pacer: bool = False, pacing_factor: float | None = None) -> None:
    """The video's packet spacing at the bottleneck: the fraction of its packets that
    arrive < 1 ms after its previous one, and its packets per second, from START on;
    real: every run's bottleneck-forward.csv under REAL_ROOT/CASE/chromium; simulator:
    the case of real_vs_sim.py on `chromium-m156` + `dcsctp` with `vp8_frame_drop` and
    each `pacer_burst_ms`, in 1 ms bins (the packets beyond the first in a bin); with
    `chromium_pacer`, the pacer on Chromium's media-debt rule (`pacer_burst_ms` is then
    its burst interval); with `pacing_factor`, that pacing multiplier (`pacing_factor`
    override)."""
    import csv

    import flowstate
    import real_vs_sim as rvs

    print("| side | back-to-back (< 1 ms) | packets/s | throughput Mbit/s |")
    print("|---|---|---|---|")
    for rd in sorted((real_root / case_name / "chromium").glob("run-*")):
        arr = []
        with open(rd / "bottleneck-forward.csv") as f:
            for row in csv.DictReader(f):
                if row["flow"] == video and int(row["arrival_us"]) / 1e6 >= start:
                    arr.append(int(row["arrival_us"]) / 1e6)
        gaps = [b - a for a, b in zip(arr, arr[1:])]
        print(f"| real {rd.name} | {sum(g < 0.001 for g in gaps) / len(gaps):.3f} | "
              f"{len(arr) / (arr[-1] - arr[0]):.1f} | - |")
    case = next(c for c in rvs.CASES if c.name == case_name)
    for burst in bursts:
        settings = ((f"flows.{video}.overrides.vp8_frame_drop", True),
                    (f"flows.{video}.overrides.pacer_burst_ms", burst))
        if chromium_pacer:
            settings += ((f"flows.{video}.overrides.chromium_pacer", True),)
        if pacing_factor is not None:
            settings += ((f"flows.{video}.overrides.pacing_factor", pacing_factor),)
        side = rvs.SimSide(preset="chromium-m156", sctp_preset="dcsctp", settings=settings)
        doc = rvs.scenario_doc(case, chromium_preset=True, side=side)
        doc.setdefault("measure", {})["bin"] = "1ms"
        ts = flowstate.run(doc, seed=1, runs=runs).timeseries
        v = ts[(ts["flow"] == video) & (ts["time_s"] >= start)]
        n = v["sent_packets"].sum()
        extra = (v["sent_packets"] - 1).clip(lower=0).sum()
        secs = runs * (v["time_s"].max() - start)
        rule = ("chromium_pacer, " if chromium_pacer else "") + (
            f"pacing_factor {pacing_factor:g}, " if pacing_factor is not None else "")
        print(f"| sim, {rule}pacer_burst_ms {burst:g} ({runs} runs) | {extra / n:.3f} | {n / secs:.1f} | "
              f"{v['throughput_mbps'].mean():.3f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="real runs at fixed encoder targets (root, Chromium)")
    r.add_argument("--out", type=Path, default=ROOT / "out" / "encoder-fps")
    r.add_argument("--rates", type=float, nargs="+", default=list(RATES_KBPS), metavar="KBPS")
    r.add_argument("--duration", type=float, default=45.0, metavar="S")
    r.add_argument("--runs", type=int, default=1)
    a = sub.add_parser("analyze", help="per-second encoder figures from getstats.json")
    a.add_argument("folders", type=Path, nargs="*", metavar="RUN_DIR")
    a.add_argument("--out", type=Path, default=ROOT / "out" / "encoder-fps")
    a.add_argument("--json", type=Path, default=None, help="also write the figures here")
    f = sub.add_parser("frames", help="frame size against the gap to the previous frame (from the pcap)")
    f.add_argument("folders", type=Path, nargs="*", metavar="RUN_DIR")
    f.add_argument("--out", type=Path, default=ROOT / "out" / "encoder-fps")
    f.add_argument("--fps", type=float, default=30.0, help="the capturer's frame rate (30)")
    f.add_argument("--fit", action="store_true", help="fit the frame-size floor to the pooled frames")
    sp = sub.add_parser("spacing", help="the video's packet spacing at the bottleneck, real against simulated")
    sp.add_argument("case", help="a real_vs_sim.py case, e.g. p002-fig11")
    sp.add_argument("video", help="the video flow's name (gcc or media)")
    sp.add_argument("start", type=float, help="from this scenario time on (s)")
    sp.add_argument("--real", type=Path, default=ROOT / "out" / "real-m156fps", help="real runs' root")
    sp.add_argument("--bursts", default="5,20", help="pacer_burst_ms values (comma-separated)")
    sp.add_argument("--runs", type=int, default=10)
    sp.add_argument("--chromium-pacer", action="store_true",
                    help="the pacer on Chromium's media-debt rule (chromium_pacer = true)")
    sp.add_argument("--pacing-factor", type=float, default=None,
                    help="the pacing multiplier (pacing_factor; Chromium's video stream: 1.1)")
    args = ap.parse_args()
    if args.cmd == "spacing":
        sys.path.insert(0, str(ROOT / "scripts"))
        spacing(args.case, args.video, args.start, args.real, [float(b) for b in args.bursts.split(",")], args.runs,
                args.chromium_pacer, args.pacing_factor)
        return
    if args.cmd == "run":
        run(args.out, args.rates, args.duration, args.runs)
    else:
        folders = args.folders or sorted(args.out.glob("cap-*"), key=lambda p: float(p.name[4:-1]))
        if not folders:
            raise SystemExit(f"no runs in {args.out} (run `encoder_fps.py run` first, or name RUN_DIRs)")
        if args.cmd == "frames":
            frame_sizes(folders, args.fps, args.fit)
        else:
            analyze(folders, args.json)


if __name__ == "__main__":
    main()
