#!/usr/bin/env python3
"""flowstate's freeze rule on a real run's rendered frames against Chromium's own count
(docs/BROWSER.md, "Frames and freezes").

    .venv/bin/python tools/freeze_accuracy.py FOLDER [FOLDER ...]

FOLDER is a `flowstate browser` output folder (one run, or --runs K with run-1 ..
run-K). For each run and video flow, one line: Chromium's freezeCount and
totalFreezesDuration (inbound-rtp, its last getStats sample) against
``flowstate.freezes`` (the simulator's W3C freeze rule) applied to the render times of
frames.csv up to that sample.

The two do not see the same instants: libwebrtc times a frame when the decoder hands it
to the track (video/video_quality_observer2.cc, ``decode_timestamp``), frames.csv when
the compositor presents it (requestVideoFrameCallback's presentationTime). Where
callbacks were missed (presentedFrames jumps by k > 1) the k frames presented in the
gap are spread evenly over it: they were shown, only their times are unknown. No
frames.csv, no video flow or no ``flowstate.freezes`` in this build: one line saying
so, exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

from flowstate.browser.video_quality import read_frames
from flowstate.output_files import FRAMES_FILE, GETSTATS_FILE, SUMMARY_FILE

FreezeRule = Callable[[Sequence[float]], Any]


def render_times(frames: Sequence[Mapping[str, Any]], until_unix_s: float) -> tuple[list[float], int]:
    """(render times in seconds, callbacks missed) of one flow's frames.csv rows up to
    ``until_unix_s``: each row's presentation time; a jump of presentedFrames by k > 1
    adds the k - 1 frames presented unseen, evenly spread over the gap."""
    times: list[float] = []
    missed = 0
    last: Optional[tuple[float, float]] = None
    for f in sorted(frames, key=lambda f: f["presented_frames"]):
        t, n = f.get("presentation_unix_s"), f.get("presented_frames")
        if t is None or n is None or t > until_unix_s:
            continue
        if last is not None and n - last[1] > 1:
            k = int(n - last[1])
            missed += k - 1
            times += [last[0] + (t - last[0]) * i / k for i in range(1, k)]
        if last is None or n > last[1]:
            times.append(t)
            last = (t, n)
    return times, missed


def count_and_duration(result: Any) -> tuple[int, float]:
    """``flowstate.freezes``'s answer as (freezes, total duration in seconds): a pair, or
    a mapping with the summary's names ``freezes`` and ``freeze_duration_s``."""
    if isinstance(result, Mapping):
        return int(result["freezes"]), float(result["freeze_duration_s"])
    count, duration = result
    return int(count), float(duration)


def compare_run(folder: Path, rule: FreezeRule) -> list[dict[str, Any]]:
    """One dict per video flow of the run in ``folder``: Chromium's count and duration,
    ours, the frames used and the callbacks missed."""
    summary = json.loads((folder / SUMMARY_FILE).read_text())
    getstats = json.loads((folder / GETSTATS_FILE).read_text())
    frames = read_frames(folder / FRAMES_FILE)
    ssrcs = {s["ssrc"]: s["flow"] for s in getstats if s.get("kind") == "video" and s.get("ssrc") is not None}
    rows = []
    for flow in summary["flows"]:
        if not flow.get("video"):
            continue
        name = flow["name"]
        inbound = [s for s in getstats if s.get("kind") == "inbound-video" and ssrcs.get(s.get("ssrc")) == name
                   and s.get("freeze_count") is not None]
        if not inbound:
            continue
        last = max(inbound, key=lambda s: s["t_unix_s"])
        times, missed = render_times([f for f in frames if f.get("flow") == name], last["t_unix_s"])
        ours = count_and_duration(rule(times))
        rows.append({
            "flow": name,
            "chromium_freezes": int(last["freeze_count"]),
            "chromium_freeze_duration_s": float(last.get("total_freezes_duration_s") or 0.0),
            "freezes": ours[0],
            "freeze_duration_s": ours[1],
            "frames": len(times),
            "missed_callbacks": missed,
        })
    return rows


def run_folders(folder: Path) -> list[Path]:
    """The run folders of an output folder: itself, or its run-1 .. run-K."""
    if (folder / FRAMES_FILE).is_file():
        return [folder]
    return sorted((p for p in folder.glob("run-*") if (p / FRAMES_FILE).is_file()),
                  key=lambda p: int(p.name.split("-")[1]) if p.name.split("-")[1].isdigit() else 0)


def line(run: str, r: Mapping[str, Any]) -> str:
    return (
        f"{run} {r['flow']}: Chromium {r['chromium_freezes']} freezes {r['chromium_freeze_duration_s']:.3f} s | "
        f"flowstate.freezes {r['freezes']} freezes {r['freeze_duration_s']:.3f} s "
        f"({r['frames']} frames, {r['missed_callbacks']} missed callbacks)"
    )


def main(argv: list[str], rule: Optional[FreezeRule] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", metavar="FOLDER", help="flowstate browser output folders")
    args = ap.parse_args(argv)
    if rule is None:
        import flowstate

        rule = getattr(flowstate, "freezes", None)
        if rule is None:
            print("freeze_accuracy: this build of flowstate has no flowstate.freezes (the simulator's freeze "
                  "rule); build one that has it (bash scripts/build_native.sh)", file=sys.stderr)
            return 2
    found = False
    for folder in map(Path, args.folders):
        runs = run_folders(folder)
        if not runs:
            print(f"freeze_accuracy: {folder}: no {FRAMES_FILE} (not a flowstate browser run with video, or "
                  "one made before frames were kept)", file=sys.stderr)
            return 2
        for run in runs:
            for r in compare_run(run, rule):
                found = True
                print(line(str(run), r))
    if not found:
        print("freeze_accuracy: no video flow with Chromium's freeze counters in the given folders", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
