#!/usr/bin/env python3
"""The simulator against the real thing (docs/REPRODUCTION.md, "The simulator against
real Chromium" and "Kernel TCP behind a router"). Needs root and Chromium.

    sudo .venv/bin/python tools/real_vs_sim.py [--runs 3] [--sim-runs 10] [--out out/real]
        [--only CASE ...] [--lanes 2] [--tables-only]
        [--preset chromium-m156] [--sctp-preset dcsctp] [--sim-set KEY=VALUE ...]

--preset / --sctp-preset / --sim-set change only the simulator side (the real runs in
OUT are reused with --tables-only; no root needed then): the GCC preset the Chromium
cases' GCC flows get (default `chromium`), the SCTP preset of their SCTP flows
(default: the scenario's, usrsctp), and settings of the simulated scenario (e.g.
`flows.gcc.overrides.probing=false` to switch one component off; a setting on a flow
a case does not have is skipped there). Results with a
non-default simulator side go to OUT/results-TAG.json and OUT/tables-TAG.md (TAG from
the presets and settings), the simulator's runs to OUT/CASE/sim-STACK-TAG/.

Each case is a scenario file of the catalogue run (a) with real Chromium 156 and
kernel TCP through the IP-level bottleneck (`flowstate browser`, --stack chromium),
(b) where the case says so, with flowstate's own endpoints on the same real path
(--stack flowstate: our GCC against kernel CUBIC), and (c) in the simulator, for the
Chromium cases with every GCC flow on the `chromium` preset (only the video rate
bounds kept: what the browser is given), for the own-stack cases with the scenario's
own preset. Real runs go to OUT/CASE/STACK/ (run-1 .. run-K, each `flowstate
browser`'s outputs); the figures of every case to OUT/results.json; the markdown
tables are printed (and written to OUT/tables.md).

Two lanes run at once by default: the Chromium runs one after the other in one, the
own-stack runs in the other (each in its own namespaces); --lanes 1 runs all in
sequence.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from pool_real_runs import run_clip

ROOT = Path(__file__).resolve().parents[1]
SCEN = ROOT / "scenarios"
# The simulator's target: every flow's throughput within 15 % and its mean RTT within 20 % of
# the real median (combo_search.py and real_spread.py judge by these too).
THROUGHPUT_TOLERANCE = 0.15
RTT_TOLERANCE = 0.20
# The video as its receiver renders it (summary.json's `video`): the frame rate within 15 %,
# the mean frame delay within 20 % (relative, as throughput and RTT), freezes per minute
# within 1 of the real median (absolute: a count near zero has no useful ratio).
FPS_TOLERANCE = 0.15
FRAME_DELAY_TOLERANCE = 0.20
FREEZES_PER_MIN_TOLERANCE = 1.0
# (figure key, path in summary.json's `video`)
VIDEO_FIGURES = (
    ("fps", ("fps",)),
    ("frame_delay_mean_ms", ("frame_delay_ms", "mean")),
    ("frame_delay_p95_ms", ("frame_delay_ms", "p95")),
    ("freezes_per_min", ("freezes_per_min",)),
    ("freeze_duration_s", ("freeze_duration_s",)),
)


def video_figure(flow: dict, path: tuple[str, ...]) -> Optional[float]:
    """A figure of a flow's `video` object (None without one or without the figure)."""
    value: Any = flow.get("video")
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def within_tolerance(ratio: float, tolerance: float) -> bool:
    """The target's rule: |sim / real - 1| <= tolerance."""
    return abs(ratio - 1.0) <= tolerance
# What an unmodified browser is given of a GCC flow's overrides (plan.py reads only
# video_max_rate); the simulator's chromium preset gets the same.
KEEP_FOR_CHROMIUM = {"video_max_rate"}
# `--kernel-tcp`: the simulated TCP flows run what the real competitor, Linux's TCP with
# its defaults, runs (net.ipv4.tcp_sack = 1, tcp_timestamps = 1, Linux's RTO rules, and
# HyStart in CUBIC); the scenario files keep the RFC defaults (docs/REPRODUCTION.md,
# "rfc8867-5.6: the x0.6 and the TCP RTT's x0.79 are the competitor's loss recovery").
KERNEL_TCP = {"sack": True, "timestamps": True, "linux_rto": True}
KERNEL_CUBIC = {**KERNEL_TCP, "hystart": True}
# `--full-set`: Chromium's send chain as the GCC options model it, on every GCC flow ("the full
# set + adj" of docs/REPRODUCTION.md: libvpx's frame dropping on the test clip, the
# pacer's media debt at the 1.1 x pacing a video stream sets, ULPFEC with its cut of the
# encoder's rate, the encoder bitrate adjuster); each is off in every preset.
FULL_SET = {"vp8_frame_drop": True, "chromium_pacer": True, "pacing_factor": 1.1,
            "chromium_fec": True, "chromium_adjuster": True}


@dataclass
class Case:
    name: str
    scenario: Path
    stacks: tuple[str, ...] = ("chromium",)
    set: dict[str, Any] = field(default_factory=dict)
    duration: Optional[float] = None
    # (time s, what, "up" | "down"): after an "up" event, the time until the GCC flow's
    # throughput (real: also GCC's target) first reaches 90 % of what it can get
    # (min(capacity, its max rate)); after a "down" event (a capacity drop), the time
    # until its sending rate (real: also the target) is first back under 110 % of the
    # new capacity.
    events: tuple[tuple[float, str, str], ...] = ()
    title: str = ""


CASES = [
    Case(
        "p000-table5",
        SCEN / "p000-table5-none.toml",
        events=((0.0, "the start", "up"),),
        title="Table 5, uncoupled: GCC + SCTP (from 10 s), 2 Mbit/s",
    ),
    Case("p000-fig2", SCEN / "p000-fig2/base.toml", title="Fig. 2: GCC + SCTP, 10 Mbit/s"),
    Case("p000-fig3", SCEN / "p000-fig3/base.toml", title="Fig. 3: GCC + SCTP, 5 Mbit/s"),
    Case(
        "rfc8867-5.1",
        SCEN / "rfc8867-5.1/base.toml",
        events=(
            (0.0, "the start", "up"),
            (40.0, "the rise to 2.5 Mbit/s", "up"),
            (60.0, "the drop to 0.6 Mbit/s", "down"),
        ),
        title="RFC 8867 5.1: video alone, capacity 1 / 2.5 / 0.6 / 1 Mbit/s",
    ),
    Case("rfc8867-5.6", SCEN / "rfc8867-5.6/base.toml", title="RFC 8867 5.6: video against a long TCP CUBIC flow"),
    Case(
        "p002-fig11",
        SCEN / "p002-fig11/base.toml",
        stacks=("chromium", "flowstate"),
        title="Paper 002 Fig. 11 set-up: GCC, then TCP CUBIC from 30 s, 1 Mbit/s (static threshold for our GCC)",
        set={"flows.gcc.overrides.threshold": "static"},
    ),
    Case(
        "p002-fig11-adaptive",
        SCEN / "p002-fig11/base.toml",
        stacks=("flowstate",),
        title="Paper 002 Fig. 11 set-up, our GCC with the adaptive threshold",
        set={"flows.gcc.overrides.threshold": "adaptive"},
    ),
]
for gamma in ("0.1667", "0.3333", "0.6667"):
    CASES.append(
        Case(
            f"p001-fig8-g{gamma}",
            SCEN / "p001-fig8/base.toml",
            stacks=("flowstate",),
            set={"flows.gcc.overrides.gamma_bar_ms": float(gamma), "link.capacity": "1Mbps"},
            duration=180.0,
            title=f"Paper 001 Fig. 8 set-up, 1 Mbit/s, our GCC gamma_bar {gamma} ms, TCP CUBIC from 100 s",
        )
    )
CASES.append(
    Case(
        "p001-fig8",
        SCEN / "p001-fig8/base.toml",
        stacks=("chromium",),
        set={"link.capacity": "1Mbps"},
        duration=180.0,
        title="Paper 001 Fig. 8 set-up, 1 Mbit/s: Chromium's GCC (adaptive threshold) vs TCP CUBIC from 100 s",
    )
)


def set_path(doc: dict, path: str, value: Any) -> None:
    """``flows.NAME.key...`` or ``a.b`` set in place."""
    parts = path.split(".")
    node: Any = doc
    if parts[0] == "flows":
        node = next(f for f in doc["flows"] if f["name"] == parts[1])
        parts = parts[2:]
    for p in parts[:-1]:
        node = node.setdefault(p, {})
    node[parts[-1]] = value


@dataclass
class SimSide:
    """What the simulator side of the Chromium cases runs (see the module doc)."""

    preset: str = "chromium"
    sctp_preset: Optional[str] = None
    settings: tuple[tuple[str, Any], ...] = ()
    kernel_tcp: bool = False
    full_set: bool = False

    @property
    def tag(self) -> str:
        parts = [] if self.preset == "chromium" else [self.preset]
        if self.sctp_preset:
            parts.append(self.sctp_preset)
        if self.full_set:
            parts.append("full-set")
        if self.kernel_tcp:
            parts.append("kernel-tcp")
        parts += [f"{k.split('.')[-1]}={v}" for k, v in self.settings]
        tag = "-".join(str(p) for p in parts)
        if len(tag) <= TAG_MAX:
            return tag
        # A file name has at most 255 bytes: a long set of settings is named by its start
        # and a digest of the whole (the first line of tables-TAG.md names every setting).
        digest = hashlib.sha256(tag.encode()).hexdigest()[:12]
        return f"{tag[:TAG_MAX - 13]}-{digest}"


SIM = SimSide()
# The longest tag kept whole in the names of OUT's files and folders.
TAG_MAX = 120


def scenario_doc(case: Case, *, chromium_preset: bool, side: Optional[SimSide] = None) -> dict:
    doc = tomllib.loads(case.scenario.read_text())
    for k, v in case.set.items():
        set_path(doc, k, v)
    if case.duration is not None:
        doc["duration"] = f"{case.duration}s"
        doc.setdefault("measure", {})["end"] = f"{case.duration}s"
    if chromium_preset:
        side = side or SimSide()
        for f in doc["flows"]:
            if f.get("kind") == "gcc":
                f["preset"] = side.preset
                f["overrides"] = {k: v for k, v in (f.get("overrides") or {}).items() if k in KEEP_FOR_CHROMIUM}
                if side.full_set:
                    f["overrides"].update(FULL_SET)
            if f.get("kind") == "sctp" and side.sctp_preset:
                f["preset"] = side.sctp_preset
            if side.kernel_tcp and f.get("kind") in ("tcp-cubic", "tcp-newreno"):
                kernel = KERNEL_CUBIC if f["kind"] == "tcp-cubic" else KERNEL_TCP
                f["overrides"] = {**(f.get("overrides") or {}), **kernel}
        names = {f.get("name") for f in doc["flows"]}
        for k, v in side.settings:
            # A setting on a flow this case does not have (gcc vs media) is skipped.
            if k.startswith("flows.") and k.split(".")[1] not in names:
                continue
            set_path(doc, k, v)
    return doc


def write_toml(doc: dict, path: Path) -> Path:
    from flowstate import _native

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_native.scenario_toml(doc))
    return path


def real(case: Case, stack: str, out: Path, runs: int, prefix: str, event_log: bool = False) -> Path:
    folder = out / case.name / stack
    if (folder / "summary.json").exists():
        return folder  # resumable: a finished case is not run again
    scen = write_toml(scenario_doc(case, chromium_preset=False), out / case.name / f"{stack}.toml")
    # --force: an unfinished folder of an earlier attempt is replaced.
    cmd = [sys.executable, "-m", "flowstate", "browser", str(scen), "--runs", str(runs), "--out", str(folder),
           "--stack", stack, "--prefix", prefix, "--no-report", "--force"]
    if event_log and stack == "chromium":
        cmd.append("--rtc-event-log")
    print(f"[{case.name}/{stack}] {' '.join(cmd[3:])}", flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True)
    (out / case.name / f"{stack}.log").write_text(p.stdout + p.stderr)
    if p.returncode != 0:
        print(f"[{case.name}/{stack}] FAILED ({p.returncode}): {p.stderr.strip().splitlines()[-1:]}", flush=True)
    return folder


def simulate(case: Case, out: Path, runs: int, stack: str) -> dict:
    import flowstate

    doc = scenario_doc(case, chromium_preset=stack == "chromium", side=SIM)
    tag = SIM.tag if stack == "chromium" else ""
    folder = out / case.name / (f"sim-{stack}-{tag}" if tag else f"sim-{stack}")
    r = flowstate.run(doc, seed=1, runs=runs, out=folder)
    return {"summary": r.summary, "timeseries": r.timeseries}


# ---------------------------------------------------------------- figures


def per_run_summaries(folder: Path) -> list[dict]:
    s = json.loads((folder / "summary.json").read_text())
    return s.get("per_run", [s])


def real_clips(folder: Path) -> list[str]:
    """The test clip of each real run in ``folder`` (a case's stack folder): the pooled
    summary's `clips` (tools/pool_real_runs.py), else each run-*/browser.json's `clip`;
    "not recorded" where neither has it. The clip sets the real encoder's frame pattern,
    so runs with different clips are not one reference (docs/REPRODUCTION.md, "p000-table5's
    send chain")."""
    s = json.loads((folder / "summary.json").read_text())
    if isinstance(s.get("clips"), list):
        return [c if isinstance(c, str) and c else "not recorded" for c in s["clips"]]
    return [run_clip(rd) for rd in sorted(folder.glob("run-*"))]


def clip_note(clips: list[str]) -> str:
    """'clip X' for one clip, 'clips X (2), Y (1)' for several, '' without runs."""
    counts: dict[str, int] = {}
    for c in clips:
        counts[c] = counts.get(c, 0) + 1
    if not counts:
        return ""
    if len(counts) == 1:
        return f"clip `{next(iter(counts))}`"
    return "clips " + ", ".join(f"`{c}` ({n})" for c, n in counts.items())


def reaction(ts: Any, flow: str, after: float, direction: str, max_rate: float, column: str) -> Optional[float]:
    """Seconds from ``after`` until the flow's ``column`` first reaches 90 % of what
    it can get (``up``: min(capacity, its max rate)) or first falls under 110 % of the
    capacity (``down``), per run; the median over the runs that got there."""
    out = []
    for _, run in ts[ts["flow"] == flow].groupby("run"):
        run = run.sort_values("time_s")
        later = run["time_s"] >= after
        if direction == "up":
            hit = run[later & (run[column] >= 0.9 * run["capacity_mbps"].clip(upper=max_rate))]
        else:
            hit = run[later & (run[column] <= 1.1 * run["capacity_mbps"])]
        if len(hit):
            out.append(float(hit["time_s"].iloc[0]) - after)
    return statistics.median(out) if out else None


def figures(case: Case, out: Path, sims: dict[str, dict]) -> dict:
    import pandas as pd

    doc = tomllib.loads(case.scenario.read_text())
    gcc = next((f for f in doc["flows"] if f.get("kind") == "gcc"), None)
    max_rate = 2.5
    if gcc and "video_max_rate" in (gcc.get("overrides") or {}):
        from flowstate.catalogue.derived import parse_rate_mbps

        max_rate = parse_rate_mbps(gcc["overrides"]["video_max_rate"])
    result: dict[str, Any] = {"title": case.title, "stacks": {}}
    for stack in case.stacks:
        folder = out / case.name / stack
        if not (folder / "summary.json").exists():
            continue
        runs = per_run_summaries(folder)
        ts = pd.read_csv(folder / "timeseries.csv")
        flows = {}
        for i, f in enumerate(runs[0]["flows"]):
            vals = {
                "throughput_mbps": [r["flows"][i]["throughput_mbps"] for r in runs],
                "share": [r["flows"][i]["share"] for r in runs],
                "rtt_mean_ms": [(r["flows"][i]["rtt_ms"] or {}).get("mean") for r in runs],
                "rtt_p95_ms": [(r["flows"][i]["rtt_ms"] or {}).get("p95") for r in runs],
                "queuing_mean_ms": [(r["flows"][i]["queuing_delay_ms"] or {}).get("mean") for r in runs],
            }
            if isinstance(f.get("video"), dict):
                for key, path in VIDEO_FIGURES:
                    vals[key] = [video_figure(r["flows"][i], path) for r in runs]
            flows[f["name"]] = {k: spread(v) for k, v in vals.items()}
            flows[f["name"]]["kind"] = f["kind"]
        entry: dict[str, Any] = {"runs": len(runs), "flows": flows, "clips": real_clips(folder)}
        sim = sims.get(stack)
        if sim is not None:
            entry["sim"] = {
                f["name"]: {
                    "throughput_mbps": f["throughput_mbps"],
                    "share": f["share"],
                    "rtt_mean_ms": (f["rtt_ms"] or {}).get("mean"),
                    "rtt_p95_ms": (f["rtt_ms"] or {}).get("p95"),
                    "queuing_mean_ms": (f["queuing_delay_ms"] or {}).get("mean"),
                    **{key: video_figure(f, path) for key, path in VIDEO_FIGURES},
                }
                for f in sim["summary"]["flows"]
            }
            entry["sim_runs"] = sim["summary"]["runs"]
        if gcc is not None and case.events:
            entry["reaction_s"] = {}
            for at, what, direction in case.events:
                column = "throughput_mbps" if direction == "up" else "send_rate_mbps"
                real_rate = reaction(ts, gcc["name"], at, direction, max_rate, column)
                real_target = reaction(ts, gcc["name"], at, direction, max_rate, "target_mbps") if "target_mbps" in ts else None
                sim_rate = reaction(sim["timeseries"], gcc["name"], at, direction, max_rate, column) if sim else None
                sim_ts = sim["timeseries"] if sim else None
                sim_target = (reaction(sim_ts, gcc["name"], at, direction, max_rate, "target_mbps")
                              if sim_ts is not None and "target_mbps" in sim_ts else None)
                entry["reaction_s"][what] = {
                    "direction": direction,
                    "real": real_rate,
                    "real_target": real_target,
                    "sim": sim_rate,
                    "sim_target": sim_target,
                }
        result["stacks"][stack] = entry
    return result


def figure(case: Case, out: Path, sims: dict[str, dict], path: Path) -> Optional[Path]:
    """Each flow's throughput over time: every real run (thin) and the simulator's mean
    over its runs (thick, dashed), one panel per stack; GCC's target (getStats) dotted."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    stacks = [s for s in case.stacks if (out / case.name / s / "timeseries.csv").exists()]
    if not stacks:
        return None
    fig, axes = plt.subplots(len(stacks), 1, figsize=(9, 3.2 * len(stacks)), squeeze=False)
    for ax, stack in zip(axes[:, 0], stacks):
        ts = pd.read_csv(out / case.name / stack / "timeseries.csv")
        flows = list(dict.fromkeys(ts["flow"]))
        colors = {f: f"C{i}" for i, f in enumerate(flows)}
        for (flow, run), g in ts.groupby(["flow", "run"]):
            ax.plot(g["time_s"], g["throughput_mbps"], color=colors[flow], lw=0.8, alpha=0.7,
                    label=f"{flow} real" if run == 0 else None)
            if "target_mbps" in g and g["target_mbps"].notna().any() and run == 0:
                ax.plot(g["time_s"], g["target_mbps"], color=colors[flow], lw=0.8, ls=":", label=f"{flow} GCC target (run 1)")
        sim = sims.get(stack)
        if sim is not None:
            st = sim["timeseries"].groupby(["flow", "time_s"])["throughput_mbps"].mean().reset_index()
            for flow, g in st.groupby("flow"):
                ax.plot(g["time_s"], g["throughput_mbps"], color=colors.get(flow, "k"), lw=2, ls="--",
                        label=f"{flow} simulator")
        cap = ts[ts["flow"] == flows[0]].groupby("time_s")["capacity_mbps"].first()
        ax.plot(cap.index, cap.values, color="k", lw=1, ls="-.", label="capacity")
        who = "Chromium 156" if stack == "chromium" else "flowstate's endpoints"
        kinds = [str(f.get("kind", "")) for f in scenario_doc(case, chromium_preset=False)["flows"]]
        tcp = " + kernel TCP" if any(k.startswith("tcp-") for k in kinds) else ""
        ax.set_title(f"{case.name}: real path ({who}{tcp}) vs simulator", fontsize=9)
        ax.set_ylabel("Mbit/s")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=3, loc="upper right")
    axes[-1, 0].set_xlabel("time (s)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def spread(values: list) -> Optional[dict]:
    xs = [float(v) for v in values if v is not None]
    if not xs:
        return None
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


def fmt(x: Optional[dict], digits: int = 2) -> str:
    if not x:
        return "-"
    if x["n"] == 1:
        return f"{x['median']:.{digits}f}"
    return f"{x['median']:.{digits}f} ({x['min']:.{digits}f}-{x['max']:.{digits}f})"


def num(x: Optional[float], digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def within(sim: Optional[float], real: Optional[dict], tolerance: float) -> str:
    """' (ok)' / ' (x1.23)': the simulator's value against the real median."""
    if sim is None or not real or not real["median"]:
        return ""
    ratio = sim / real["median"]
    return " ok" if within_tolerance(ratio, tolerance) else f" (x{ratio:.2f})"


def tables(results: dict) -> str:
    lines = [f"Simulator side: GCC preset `{SIM.preset}`, SCTP preset `{SIM.sctp_preset or 'scenario'}`"
             + (f", settings {dict(SIM.settings)}" if SIM.settings else "")
             + (", GCC flows with the full send chain (`--full-set`)" if SIM.full_set else "")
             + (", TCP flows on Linux's defaults (`--kernel-tcp`)" if SIM.kernel_tcp else "")
             + "; `ok`: throughput within 15 %, RTT mean within 20 % of the real median, else sim/real.", ""]
    for name, r in results.items():
        for stack, e in r["stacks"].items():
            note = clip_note(e.get("clips") or [])
            lines.append(f"**{name}** ({r['title']}), {stack}: {e['runs']} real runs (median, min-max"
                         + (f"; {note}" if note else "") + ")"
                         + (f" vs simulator, {e.get('sim_runs')} runs (mean)" if "sim" in e else ""))
            lines.append("")
            lines.append("| flow | throughput Mbit/s real | sim | share real | sim | RTT mean ms real | sim "
                         "| RTT p95 ms real | sim |")
            lines.append("|---|---|---|---|---|---|---|---|---|")
            for flow, f in e["flows"].items():
                s = (e.get("sim") or {}).get(flow, {})
                lines.append(
                    f"| {flow} ({f['kind']}) | {fmt(f['throughput_mbps'], 3)} | {num(s.get('throughput_mbps'), 3)}"
                    f"{within(s.get('throughput_mbps'), f['throughput_mbps'], THROUGHPUT_TOLERANCE)} "
                    f"| {fmt(f['share'])} | {num(s.get('share'))} | {fmt(f['rtt_mean_ms'], 0)} | {num(s.get('rtt_mean_ms'), 0)}"
                    f"{within(s.get('rtt_mean_ms'), f['rtt_mean_ms'], RTT_TOLERANCE)} "
                    f"| {fmt(f['rtt_p95_ms'], 0)} | {num(s.get('rtt_p95_ms'), 0)} |"
                )
            lines += video_table(e)
            for what, t in (e.get("reaction_s") or {}).items():
                goal = "90 % of the available rate" if t["direction"] == "up" else "under 110 % of the capacity"
                never = "not reached"
                lines.append(
                    f"| GCC: time to {goal} after {what} (s) | {num(t['real'], 1) if t['real'] is not None else never} "
                    f"(target: {num(t['real_target'], 1) if t['real_target'] is not None else never}) "
                    f"| {num(t['sim'], 1) if t['sim'] is not None else never} "
                    f"(target: {num(t.get('sim_target'), 1) if t.get('sim_target') is not None else never}) | | | | | | |"
                )
            lines.append("")
    return "\n".join(lines)


def within_absolute(sim: Optional[float], real: Optional[dict], tolerance: float) -> str:
    """' ok' / ' (+1.2)': the simulator's value against the real median, by difference."""
    if sim is None or not real:
        return ""
    diff = sim - real["median"]
    return " ok" if abs(diff) <= tolerance else f" ({diff:+.1f})"


def video_table(e: dict) -> list[str]:
    """The video flows' frames as rendered, real against simulated (no lines without a
    video flow with frame figures on the real side)."""
    rows = [(flow, f) for flow, f in e["flows"].items() if f.get("fps")]
    if not rows:
        return []
    lines = ["", "| video flow | frames/s real | sim | frame delay mean ms real | sim | frame delay p95 ms real | sim "
             "| freezes/min real | sim | frozen s real | sim |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for flow, f in rows:
        s = (e.get("sim") or {}).get(flow, {})
        lines.append(
            f"| {flow} | {fmt(f['fps'], 1)} | {num(s.get('fps'), 1)}{within(s.get('fps'), f['fps'], FPS_TOLERANCE)} "
            f"| {fmt(f.get('frame_delay_mean_ms'), 0)} | {num(s.get('frame_delay_mean_ms'), 0)}"
            f"{within(s.get('frame_delay_mean_ms'), f.get('frame_delay_mean_ms'), FRAME_DELAY_TOLERANCE)} "
            f"| {fmt(f.get('frame_delay_p95_ms'), 0)} | {num(s.get('frame_delay_p95_ms'), 0)} "
            f"| {fmt(f.get('freezes_per_min'), 1)} | {num(s.get('freezes_per_min'), 1)}"
            f"{within_absolute(s.get('freezes_per_min'), f.get('freezes_per_min'), FREEZES_PER_MIN_TOLERANCE)} "
            f"| {fmt(f.get('freeze_duration_s'), 1)} | {num(s.get('freeze_duration_s'), 1)} |"
        )
    return lines


def parse_sim_settings(items: list[str]) -> tuple[tuple[str, object], ...]:
    """`--sim-set KEY=VALUE ...` as (key, value) pairs, VALUE read as TOML (false, 1.5, "x")
    and kept as text when it is not TOML; ValueError names an item without `=`."""
    settings = []
    for kv in items:
        if "=" not in kv:
            raise ValueError(f"--sim-set {kv!r}: expected KEY=VALUE")
        k, v = kv.split("=", 1)
        try:
            value = tomllib.loads(f"v = {v}")["v"]
        except tomllib.TOMLDecodeError:
            value = v
        settings.append((k, value))
    return tuple(settings)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sim-runs", type=int, default=10)
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "real")
    ap.add_argument("--only", nargs="*", help="case names (default: all)")
    ap.add_argument("--lanes", type=int, choices=(1, 2), default=2)
    ap.add_argument("--tables-only", action="store_true", help="only rebuild the tables from OUT")
    ap.add_argument("--stacks", nargs="+", choices=("chromium", "flowstate"), default=["chromium", "flowstate"],
                    help="which real stacks to run and compare (default both; `chromium` alone skips the own-stack "
                    "runs of the cases that have them)")
    ap.add_argument("--refs", type=Path, metavar="DIR",
                    help="with --tables-only: read the real runs from DIR/CASE/STACK instead of OUT (e.g. the "
                    "repository's references/chromium-156); the simulator's runs and the tables still go to OUT")
    ap.add_argument("--rtc-event-log", action="store_true",
                    help="the real Chromium runs keep their RTC event logs (flowstate browser --rtc-event-log)")
    ap.add_argument("--figures", type=Path, metavar="DIR", help="also draw one figure per case into DIR")
    ap.add_argument("--preset", default="chromium", help="the simulator's GCC preset for the Chromium cases")
    ap.add_argument("--sctp-preset", choices=("usrsctp", "dcsctp"), help="the simulator's SCTP preset")
    ap.add_argument("--full-set", action="store_true",
                    help="every simulated GCC flow runs Chromium's send chain as the GCC options model it (vp8_frame_drop, "
                    "chromium_pacer with pacing_factor 1.1, chromium_fec, chromium_adjuster)")
    ap.add_argument("--kernel-tcp", action="store_true",
                    help="the simulated TCP flows run Linux's defaults (sack, timestamps, linux_rto; hystart in CUBIC), "
                    "as the real competitor does")
    ap.add_argument("--sim-set", nargs="*", default=[], metavar="KEY=VALUE",
                    help="settings of the simulated scenario (VALUE as TOML: false, 1.5, \"x\")")
    args = ap.parse_args(argv)
    try:
        settings = parse_sim_settings(args.sim_set)
    except ValueError as e:
        ap.error(str(e))
    global SIM
    SIM = SimSide(args.preset, args.sctp_preset, settings, args.kernel_tcp, args.full_set)
    cases = [c for c in CASES if not args.only or c.name in args.only]
    cases = [Case(c.name, c.scenario, tuple(s for s in c.stacks if s in args.stacks), c.set, c.duration, c.events,
                  c.title) for c in cases]
    cases = [c for c in cases if c.stacks]
    unknown = sorted(set(args.only or ()) - {c.name for c in CASES})
    if unknown:
        ap.error(f"--only: no such case {', '.join(unknown)} (cases: {', '.join(c.name for c in CASES)})")
    if args.refs is not None and not args.tables_only:
        ap.error("--refs: only with --tables-only (real runs are written to --out)")
    real_root = args.refs if args.refs is not None else args.out
    if args.tables_only:
        # Nothing real to compare with is an error, not an empty table.
        missing = [real_root / c.name / s for c in cases for s in c.stacks
                   if not (real_root / c.name / s / "summary.json").exists()]
        if len(missing) == sum(len(c.stacks) for c in cases):
            ap.error(f"--tables-only: no real runs in {real_root} (no CASE/STACK/summary.json); "
                     "run without --tables-only to make them")
        for folder in missing:
            print(f"real_vs_sim: no real runs in {folder} (summary.json): that table is left out",
                  file=sys.stderr)
    if not args.tables_only:
        chromium_jobs = [(c, "chromium") for c in cases if "chromium" in c.stacks]
        own_jobs = [(c, "flowstate") for c in cases if "flowstate" in c.stacks]

        def lane(jobs: list, prefix: str) -> None:
            for c, stack in jobs:
                real(c, stack, args.out, args.runs, prefix, args.rtc_event_log)

        if args.lanes == 2:
            with ThreadPoolExecutor(2) as ex:
                futures = [ex.submit(lane, chromium_jobs, "fsrc"), ex.submit(lane, own_jobs, "fsro")]
                for f in futures:
                    f.result()
        else:
            lane(chromium_jobs + own_jobs, "fsrc")
    results = {}
    for c in cases:
        sims = {stack: simulate(c, args.out, args.sim_runs, stack) for stack in c.stacks}
        results[c.name] = figures(c, real_root, sims)
        if args.figures is not None:
            suffix = f"-{SIM.tag}" if SIM.tag else ""
            figure(c, real_root, sims, args.figures / f"real-vs-sim-{c.name}{suffix}.png")
    suffix = f"-{SIM.tag}" if SIM.tag else ""
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"results{suffix}.json").write_text(json.dumps(results, indent=1))
    md = tables(results)
    (args.out / f"tables{suffix}.md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
