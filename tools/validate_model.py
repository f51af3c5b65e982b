#!/usr/bin/env python3
"""The simulator's Chromium model against stored real Chromium runs, case by case and
out of sample (docs/REPRODUCTION.md, "Out of sample: the Chromium model on set-ups it
was not fitted to" and "L4S: the model against Chromium's own SCReAM v2").

    # judge the simulator from stored real runs (seconds; no root, no browser)
    .venv/bin/python tools/validate_model.py judge SET [--sim-runs 10] [--out OUT] [--write DOC]
    # record the real runs of a set again (root and Chromium; minutes per case)
    sudo .venv/bin/python tools/validate_model.py record SET --out OUT [--runs 5] [--only CASE ...]

SET is a set file (scenarios/validation/set.toml, scenarios/l4s/real-set.toml): its
``refs`` (the folder of stored real runs, one CASE/chromium.toml + CASE/chromium/ per
case, tools/pool_real_runs.py's compact copy) and its cases, each with its ``role``,
``calibration`` or ``test``, fixed before the test runs existed (the set's README).

The simulator side plays each case's stored ``chromium.toml`` (the scenario the real
runs played) under ONE configuration, `CHROMIUM_MODEL`, for every case: no per-case
setting. Per case and flow: the real median and range over the runs, the simulator's
mean and range over ``--sim-runs`` seeds, their ratio; per set: the share of flows
within the tolerances and the error distribution (median and p90 of |sim/real - 1|)
of throughput, mean RTT, share and the time to react to a capacity change, for the
calibration and the test cases apart. ``--write DOC`` replaces the set's generated block
in DOC (``<!-- validate_model: SET-NAME -->`` .. ``<!-- end -->``); tests check that the
stored runs still give the published block.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[1]

THROUGHPUT_TOLERANCE = 0.15
RTT_TOLERANCE = 0.20
QUEUING_TOLERANCE = 0.20
# The video source and the receiver's frames (docs/REPRODUCTION.md's frame-level table).
FPS_TOLERANCE = 0.15
FRAME_DELAY_TOLERANCE = 0.20

#: The simulator's "today's Chromium" (Chromium 156 / WebRTC M150), the same for every
#: case: GCC on the `chromium-m156` preset (its components as libwebrtc M150 has them:
#: probing, ALR, loss-based BWE v2, the pacer's media debt at a video stream's 1.1
#: pacing factor, FEC, the encoder bitrate adjuster, feedback cadence; docs/ALGORITHMS.md)
#: with the video source the preset leaves off, libvpx's frame dropping on the test clip
#: (`vp8_frame_drop`, its frame-size floor fitted to fixed-target runs of the clip, not to
#: any judged case); SCTP on `dcsctp` (Chromium 156's data channels); kernel
#: TCP as Linux runs it (SACK, timestamps, its RTO rules, HyStart in CUBIC); SCReAM v2
#: with the kind's defaults (libwebrtc M150's, Chromium's pacer included) and the same
#: video source as GCC's (`vp8_frame_drop`: the encoder is the browser's whatever the
#: controller). Only the rate bounds the browser is given (`video_max_rate`, `max_rate`)
#: are kept from the scenario.
GCC_OPTIONS = {"vp8_frame_drop": True}
KERNEL_TCP = {"sack": True, "timestamps": True, "linux_rto": True}
KERNEL_CUBIC = {**KERNEL_TCP, "hystart": True}
CHROMIUM_MODEL = "gcc: chromium-m156 + vp8_frame_drop; sctp: dcsctp; tcp: Linux's defaults; scream-v2: its defaults + vp8_frame_drop"


def model_doc(doc: dict) -> dict:
    """The scenario ``doc`` under `CHROMIUM_MODEL`."""
    for f in doc.get("flows") or []:
        kind = f.get("kind")
        overrides = dict(f.get("overrides") or {})
        if kind == "gcc":
            f["preset"] = "chromium-m156"
            f["overrides"] = {**{k: v for k, v in overrides.items() if k == "video_max_rate"}, **GCC_OPTIONS}
        elif kind == "sctp":
            f["preset"] = "dcsctp"
        elif kind in ("tcp-cubic", "tcp-newreno"):
            f["overrides"] = {**overrides, **(KERNEL_CUBIC if kind == "tcp-cubic" else KERNEL_TCP)}
        elif kind == "scream-v2":
            f.pop("preset", None)
            f["overrides"] = {**{k: v for k, v in overrides.items() if k == "max_rate"}, "vp8_frame_drop": True}
    return doc


@dataclass
class Case:
    name: str
    role: str  # "calibration" | "test"
    title: str
    scenario: Optional[Path] = None  # for `record`: the scenario file to play
    browser_args: tuple[str, ...] = ()
    refs: Optional[Path] = None  # the case's stored runs, when not in the set's `refs`
    # Flows with the same start, kind and path: which one leads is chance, in Chromium
    # as in the simulator, so each run's are compared by rank (the leader with the
    # leader), not by name.
    exchangeable: tuple[str, ...] = ()


@dataclass
class Set:
    name: str
    refs: Path
    cases: list[Case]
    title: str


class SetError(Exception):
    pass


def load_set(path: Path) -> Set:
    try:
        doc = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise SetError(f"{path}: cannot read the set file: {e}") from None
    base = path.parent
    cases = []
    for i, c in enumerate(doc.get("cases") or []):
        where = f"{path}: cases[{i}]"
        if c.get("role") not in ("calibration", "test"):
            raise SetError(f"{where}.role: 'calibration' or 'test', got {c.get('role')!r}")
        if not c.get("name"):
            raise SetError(f"{where}.name: missing")
        scen = (base / c["scenario"]).resolve() if c.get("scenario") else None
        refs = (ROOT / c["refs"]).resolve() if c.get("refs") else None
        cases.append(Case(c["name"], c["role"], c.get("title", c["name"]), scen, tuple(c.get("browser_args") or ()), refs,
                          tuple(c.get("exchangeable") or ())))
    if not cases:
        raise SetError(f"{path}: no cases")
    return Set(doc.get("name", path.stem), (ROOT / doc["refs"]).resolve(), cases, doc.get("title", ""))


# ------------------------------------------------------------------ figures


def spread(values: list) -> Optional[dict]:
    xs = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    if not xs:
        return None
    return {"median": statistics.median(xs), "mean": statistics.fmean(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


def flow_figures(f: dict) -> dict:
    video = f.get("video") if isinstance(f.get("video"), dict) else {}
    return {
        "throughput_mbps": f.get("throughput_mbps"),
        "share": f.get("share"),
        "rtt_mean_ms": (f.get("rtt_ms") or {}).get("mean"),
        "queuing_mean_ms": (f.get("queuing_delay_ms") or {}).get("mean"),
        "queuing_p95_ms": (f.get("queuing_delay_ms") or {}).get("p95"),
        "fps": video.get("fps"),
        "frame_delay_mean_ms": (video.get("frame_delay_ms") or {}).get("mean"),
        "freezes_per_min": video.get("freezes_per_min"),
    }


def capacity_events(doc: dict) -> list[tuple[float, str]]:
    """(time s, "up" | "down") at each capacity change of a scheduled link after 0 s."""
    sched = ((doc.get("link") or {}).get("capacity_schedule")) or []
    from flowstate.catalogue.derived import parse_rate_mbps, parse_time

    out = []
    prev = None
    for step in sched:
        at, rate = parse_time(step["at"]), parse_rate_mbps(step["rate"])
        if prev is not None and at > 0:
            out.append((at, "up" if rate > prev else "down"))
        prev = rate
    return out


def reaction_times(rows: list[dict], flow: str, at: float, direction: str, max_rate: float, column: str) -> list[float]:
    """Per run: seconds from ``at`` until the flow's ``column`` first reaches 90 % of
    min(capacity, max rate) (``up``) or falls under 110 % of the capacity (``down``)."""
    runs: dict[str, list[dict]] = {}
    for r in rows:
        if r["flow"] == flow:
            runs.setdefault(r["run"], []).append(r)
    out = []
    for rs in runs.values():
        rs.sort(key=lambda r: float(r["time_s"]))
        for r in rs:
            t = float(r["time_s"])
            v, cap = _num(r.get(column)), _num(r.get("capacity_mbps"))
            if t < at or v is None or cap is None:
                continue
            if (direction == "up" and v >= 0.9 * min(cap, max_rate)) or (direction == "down" and v <= 1.1 * cap):
                out.append(t - at)
                break
    return out


def mean_by_run(rows: list[dict], flow: str, column: str, t0: float, t1: float) -> list[float]:
    """Per run, the mean of ``column`` over the flow's rows in [t0, t1)."""
    runs: dict[str, list[float]] = {}
    for r in rows:
        v = _num(r.get(column))
        if r["flow"] == flow and v is not None and t0 <= float(r["time_s"]) < t1:
            runs.setdefault(r["run"], []).append(v)
    return [statistics.fmean(v) for v in runs.values() if v]


def _window(doc: dict) -> tuple[float, float]:
    from flowstate.catalogue.derived import parse_time

    m = doc.get("measure") or {}
    return parse_time(m.get("start", 0)), parse_time(m.get("end", doc.get("duration")))


def _num(x: Any) -> Optional[float]:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def read_rows(path: Path) -> list[dict]:
    import csv

    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def video_max_rate(f: dict) -> float:
    from flowstate.catalogue.derived import parse_rate_mbps

    o = f.get("overrides") or {}
    key = "max_rate" if f.get("kind") == "scream-v2" else "video_max_rate"
    return parse_rate_mbps(o[key]) if key in o else 2.5


def judge_case(s: Set, case: Case, sim_runs: int, out: Optional[Path]) -> dict:
    import flowstate

    folder = (case.refs or s.refs) / case.name
    scen_text = (folder / "chromium.toml").read_text()
    doc = tomllib.loads(scen_text)
    real = json.loads((folder / "chromium" / "summary.json").read_text())
    runs = real.get("per_run", [real])
    sim_doc = model_doc(tomllib.loads(scen_text))
    if "--coupling" in case.browser_args:
        # The real runs were coupled by `flowstate browser --coupling`: so is the simulation.
        sim_doc["coupling"] = {"mechanism": case.browser_args[case.browser_args.index("--coupling") + 1]}
    # The stored scenario's relative paths (a trace) resolve against the scenario's own
    # folder in the repository: a scenario dict names its base with `_base` unknown here,
    # so a trace path is made absolute from the case's `scenario`.
    _absolute_traces(sim_doc, case)
    r = flowstate.run(sim_doc, seed=1, runs=sim_runs, out=(out / case.name) if out else None)
    # Each seed's own summary: the simulator's spread as the real runs' (min-max).
    sim_per_run = list(r.runs) or [r.summary]
    flows = {}
    ranked = _ranked_names(case.exchangeable)
    for i, f in enumerate(runs[0]["flows"]):
        name = ranked.get(f["name"], f["name"])
        realv = {k: spread([flow_figures(_by_rank(x, f["name"], case.exchangeable))[k] for x in runs])
                 for k in flow_figures(f)}
        simv = {k: spread([flow_figures(_by_rank(x, f["name"], case.exchangeable))[k] for x in sim_per_run])
                for k in flow_figures(f)}
        flows[name] = {"kind": f["kind"], "real": realv, "sim": simv}
    # Each video flow's mean target over the window, per run: the controller apart from
    # the encoder (real: getStats' availableOutgoingBitrate of its call).
    w0, w1 = _window(doc)
    real_rows = read_rows(folder / "chromium" / "timeseries.csv")
    sim_rows = [{k: str(v) for k, v in row.items()} for row in r.timeseries.to_dict("records")]
    for f in doc["flows"]:
        if f.get("kind") in ("gcc", "scream-v2") and f["name"] in flows and f["name"] not in case.exchangeable:
            flows[f["name"]]["real"]["target_mbps"] = spread(mean_by_run(real_rows, f["name"], "target_mbps", w0, w1))
            flows[f["name"]]["sim"]["target_mbps"] = spread(mean_by_run(sim_rows, f["name"], "target_mbps", w0, w1))
    reactions = []
    events = capacity_events(doc)
    if events:
        for f in doc["flows"]:
            if f.get("kind") not in ("gcc", "scream-v2"):
                continue
            mr = video_max_rate(f)
            for at, direction in events:
                column = "throughput_mbps" if direction == "up" else "send_rate_mbps"
                reactions.append({
                    "flow": f["name"], "at_s": at, "direction": direction,
                    "real": spread(reaction_times(real_rows, f["name"], at, direction, mr, column)),
                    "sim": spread(reaction_times(sim_rows, f["name"], at, direction, mr, column)),
                })
    return {
        "role": case.role, "title": case.title, "runs": len(runs), "sim_runs": sim_runs, "flows": flows,
        "reactions": reactions, "browsers": sorted(set(real.get("browsers") or [])),
        "loadavg": [x.get("start", [None])[0] for x in (real.get("loadavg") or []) if isinstance(x, dict)],
    }


def _flow(summary: dict, name: str) -> dict:
    return next(f for f in summary["flows"] if f["name"] == name)


def _ranked_names(exchangeable: tuple[str, ...]) -> dict[str, str]:
    """The table's name of each exchangeable flow: its rank by throughput in a run."""
    return {n: f"rank {i + 1} of {', '.join(exchangeable)}" for i, n in enumerate(exchangeable)}


def _by_rank(summary: dict, name: str, exchangeable: tuple[str, ...]) -> dict:
    """The flow ``name`` of a run, or for an exchangeable flow the one of its rank: the
    i-th named flow's place is taken by the i-th largest throughput among them."""
    if name not in exchangeable:
        return _flow(summary, name)
    group = sorted((_flow(summary, n) for n in exchangeable), key=lambda f: -(f.get("throughput_mbps") or 0.0))
    return group[exchangeable.index(name)]


def _absolute_traces(doc: dict, case: Case) -> None:
    link = doc.get("link") or {}
    tr = link.get("capacity_trace")
    if isinstance(tr, dict) and "file" in tr and not Path(tr["file"]).is_absolute():
        base = case.scenario.parent if case.scenario else ROOT / "scenarios" / "validation"
        tr["file"] = str((base / tr["file"]).resolve())


def ratio(sim: Optional[dict], real: Optional[dict]) -> Optional[float]:
    if not sim or not real or not real["median"]:
        return None
    return sim["mean"] / real["median"]


# ------------------------------------------------------------------ tables


def fmt(x: Optional[dict], digits: int, key: str = "median") -> str:
    if not x:
        return "-"
    if x["n"] == 1:
        return f"{x[key]:.{digits}f}"
    return f"{x[key]:.{digits}f} ({x['min']:.{digits}f}-{x['max']:.{digits}f})"


def mark(r: Optional[float], tol: float) -> str:
    if r is None:
        return "-"
    return f"x{r:.2f}" + (" ok" if abs(r - 1) <= tol + 1e-12 else "")


def summary_stats(results: dict, role: str, queuing: bool) -> dict:
    rows = [(c, name, f) for c, e in results.items() if e["role"] == role for name, f in e["flows"].items()]
    errs: dict[str, list[float]] = {"throughput": [], "rtt": [], "share": [], "reaction": [], "queuing_mean": [],
                                     "queuing_p95": [], "target": [], "fps": [], "frame_delay": []}
    within = 0
    for _, _, f in rows:
        rt = ratio(f["sim"]["throughput_mbps"], f["real"]["throughput_mbps"])
        rr = ratio(f["sim"]["rtt_mean_ms"], f["real"]["rtt_mean_ms"])
        rs = ratio(f["sim"]["share"], f["real"]["share"])
        rq = ratio(f["sim"]["queuing_mean_ms"], f["real"]["queuing_mean_ms"])
        rp = ratio(f["sim"]["queuing_p95_ms"], f["real"]["queuing_p95_ms"])
        rg = ratio(f["sim"].get("target_mbps"), f["real"].get("target_mbps"))
        rf = ratio(f["sim"]["fps"], f["real"]["fps"])
        rd = ratio(f["sim"]["frame_delay_mean_ms"], f["real"]["frame_delay_mean_ms"])
        for k, v in (("throughput", rt), ("rtt", rr), ("share", rs), ("queuing_mean", rq), ("queuing_p95", rp),
                     ("target", rg), ("fps", rf), ("frame_delay", rd)):
            if v is not None:
                errs[k].append(abs(v - 1))
        ok = rt is not None and abs(rt - 1) <= THROUGHPUT_TOLERANCE + 1e-12
        if queuing:
            ok = ok and all(v is not None and abs(v - 1) <= QUEUING_TOLERANCE + 1e-12 for v in (rq, rp))
        else:
            ok = ok and rr is not None and abs(rr - 1) <= RTT_TOLERANCE + 1e-12
        within += ok
    for e in results.values():
        if e["role"] != role:
            continue
        for rx in e["reactions"]:
            r = ratio(rx["sim"], rx["real"])
            if r is not None:
                errs["reaction"].append(abs(r - 1))
    dist = {k: ({"median": statistics.median(v), "p90": _p90(v), "n": len(v)} if v else None) for k, v in errs.items()}
    return {"flows": len(rows), "within": within, "errors": dist}


def _p90(xs: list[float]) -> float:
    s = sorted(xs)
    k = 0.9 * (len(s) - 1)
    lo, hi = math.floor(k), math.ceil(k)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def tables(s: Set, results: dict, queuing: bool) -> str:
    what = "throughput within 15 % and mean and p95 queuing delay within 20 %" if queuing else \
        "throughput within 15 % and mean RTT within 20 %"
    lines = [
        f"Simulator: {CHROMIUM_MODEL}, {next(iter(results.values()))['sim_runs']} seeds per case (mean, min-max); real: "
        f"median (min-max) over the stored runs in {', '.join(_folders(s))}, with the 1-minute load average at the "
        f"runs' starts where recorded. `ok`: {what} (sim/real).",
        "",
    ]
    for role in ("calibration", "test"):
        names = [c for c, e in results.items() if e["role"] == role]
        if not names:
            continue
        st = summary_stats(results, role, queuing)
        head = "Calibration cases (in sample)" if role == "calibration" else "Test cases (out of sample)"
        lines.append(f"**{head}: {st['within']} of {st['flows']} flows within the tolerances.**")
        lines.append("")
        if queuing:
            lines.append("| case | flow | runs | throughput Mbit/s real | sim | ratio | queuing mean ms real | sim | ratio "
                         "| queuing p95 ms real | sim | ratio | share real | sim |")
            lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        else:
            lines.append("| case | flow | runs | throughput Mbit/s real | sim | ratio | RTT mean ms real | sim | ratio "
                         "| share real | sim |")
            lines.append("|---|---|---|---|---|---|---|---|---|---|---|")
        for c in names:
            e = results[c]
            for name, f in e["flows"].items():
                r, m = f["real"], f["sim"]
                row = (f"| {c} | {name} ({f['kind']}) | {_runs_cell(e)} | {fmt(r['throughput_mbps'], 2)} "
                       f"| {fmt(m['throughput_mbps'], 2, 'mean')} | {mark(ratio(m['throughput_mbps'], r['throughput_mbps']), THROUGHPUT_TOLERANCE)} ")
                if queuing:
                    row += (f"| {fmt(r['queuing_mean_ms'], 1)} | {fmt(m['queuing_mean_ms'], 1, 'mean')} "
                            f"| {mark(ratio(m['queuing_mean_ms'], r['queuing_mean_ms']), QUEUING_TOLERANCE)} "
                            f"| {fmt(r['queuing_p95_ms'], 1)} | {fmt(m['queuing_p95_ms'], 1, 'mean')} "
                            f"| {mark(ratio(m['queuing_p95_ms'], r['queuing_p95_ms']), QUEUING_TOLERANCE)} ")
                else:
                    row += (f"| {fmt(r['rtt_mean_ms'], 0)} | {fmt(m['rtt_mean_ms'], 0, 'mean')} "
                            f"| {mark(ratio(m['rtt_mean_ms'], r['rtt_mean_ms']), RTT_TOLERANCE)} ")
                row += f"| {fmt(r['share'], 2)} | {fmt(m['share'], 2, 'mean')} |"
                lines.append(row)
        lines.append("")
        rx = [(c, x) for c, e in results.items() if e["role"] == role for x in e["reactions"]]
        if rx:
            lines.append("| case | flow | capacity change | time to react s real | sim |")
            lines.append("|---|---|---|---|---|")
            for c, x in rx:
                goal = "up at" if x["direction"] == "up" else "down at"
                lines.append(f"| {c} | {x['flow']} | {goal} {x['at_s']:g} s | {fmt(x['real'], 1)} | {fmt(x['sim'], 1, 'mean')} |")
            lines.append("")
        vids = [(c, name, f) for c in names for name, f in results[c]["flows"].items()
                if f["real"].get("fps") or f["real"].get("target_mbps")]
        if vids:
            lines.append("| case | video flow | target Mbit/s real | sim | ratio | frames/s real | sim | ratio "
                         "| frame delay mean ms real | sim | ratio | freezes/min real | sim |")
            lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
            for c, name, f in vids:
                r, m = f["real"], f["sim"]
                lines.append(
                    f"| {c} | {name} | {fmt(r.get('target_mbps'), 2)} | {fmt(m.get('target_mbps'), 2, 'mean')} "
                    f"| {mark(ratio(m.get('target_mbps'), r.get('target_mbps')), THROUGHPUT_TOLERANCE)} "
                    f"| {fmt(r['fps'], 1)} | {fmt(m['fps'], 1, 'mean')} "
                    f"| {mark(ratio(m['fps'], r['fps']), FPS_TOLERANCE)} | {fmt(r['frame_delay_mean_ms'], 0)} "
                    f"| {fmt(m['frame_delay_mean_ms'], 0, 'mean')} "
                    f"| {mark(ratio(m['frame_delay_mean_ms'], r['frame_delay_mean_ms']), FRAME_DELAY_TOLERANCE)} "
                    f"| {fmt(r['freezes_per_min'], 1)} | {fmt(m['freezes_per_min'], 1, 'mean')} |")
            lines.append("")
        lines.append("| error \\|sim/real - 1\\| | median | p90 | flows or events |")
        lines.append("|---|---|---|---|")
        labels = {"throughput": "throughput", "rtt": "mean RTT", "share": "share", "queuing_mean": "mean queuing delay",
                  "queuing_p95": "p95 queuing delay", "reaction": "time to react to a capacity change",
                  "target": "the video's target (the controller)", "fps": "frames/s at the receiver",
                  "frame_delay": "mean frame delay"}
        for k, label in labels.items():
            d = st["errors"][k]
            if d:
                lines.append(f"| {label} | {d['median']:.2f} | {d['p90']:.2f} | {d['n']} |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _runs_cell(e: dict) -> str:
    """The real runs and, where they recorded it, the range of the 1-minute load average
    at their starts."""
    loads = [x for x in e.get("loadavg") or [] if x is not None]
    if not loads:
        return str(e["runs"])
    return f"{e['runs']} (load {min(loads):.1f}-{max(loads):.1f})"


def _folders(s: Set) -> list[str]:
    return list(dict.fromkeys(str((c.refs or s.refs).relative_to(ROOT)) for c in s.cases))


def write_block(doc_path: Path, set_name: str, body: str) -> None:
    start, end = f"<!-- validate_model: {set_name} -->", "<!-- end -->"
    text = doc_path.read_text()
    i = text.find(start)
    if i < 0:
        raise SetError(f"{doc_path}: no '{start}' block to replace")
    j = text.find(end, i)
    if j < 0:
        raise SetError(f"{doc_path}: the '{start}' block has no '{end}'")
    doc_path.write_text(text[: i + len(start)] + "\n" + body + text[j:])


def published_block(doc_path: Path, set_name: str) -> Optional[str]:
    start, end = f"<!-- validate_model: {set_name} -->", "<!-- end -->"
    text = doc_path.read_text()
    i = text.find(start)
    if i < 0:
        return None
    j = text.find(end, i)
    return text[i + len(start) + 1: j] if j >= 0 else None


# ------------------------------------------------------------------ commands


def judge(s: Set, sim_runs: int, out: Optional[Path], queuing: bool) -> tuple[dict, str]:
    missing = [c.name for c in s.cases if not ((c.refs or s.refs) / c.name / "chromium" / "summary.json").exists()]
    if missing:
        raise SetError(f"{s.refs}: no stored real runs for {', '.join(missing)} (CASE/chromium/summary.json); "
                       "record them with `validate_model.py record` and pool them with tools/pool_real_runs.py")
    results = {c.name: judge_case(s, c, sim_runs, out) for c in s.cases}
    return results, tables(s, results, queuing)


def record(s: Set, out: Path, runs: int, only: list[str]) -> int:
    rc = 0
    for c in s.cases:
        if only and c.name not in only:
            continue
        if c.scenario is None:
            print(f"validate_model: {c.name}: no scenario in the set file (its runs are stored only); skipped",
                  file=sys.stderr)
            continue
        dest = out / c.name / "chromium"
        if (dest / "summary.json").exists():
            continue  # resumable: a finished case is not run again
        (out / c.name).mkdir(parents=True, exist_ok=True)
        (out / c.name / "chromium.toml").write_text(c.scenario.read_text())
        cmd = [sys.executable, "-m", "flowstate", "browser", str(c.scenario), "--runs", str(runs), "--out", str(dest),
               "--no-report", "--force", *c.browser_args]
        print(f"[{c.name}] {' '.join(cmd[3:])}", flush=True)
        p = subprocess.run(cmd)
        rc = rc or p.returncode
    return rc


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    j = sub.add_parser("judge", help="the simulator against the stored real runs")
    j.add_argument("set", type=Path)
    j.add_argument("--sim-runs", type=int, default=10)
    j.add_argument("--out", type=Path, help="keep the simulator's runs and results.json here")
    j.add_argument("--write", type=Path, metavar="DOC", help="replace the set's generated block in DOC")
    j.add_argument("--check", type=Path, metavar="DOC", help="exit 1 unless DOC's block is what the stored runs give")
    r = sub.add_parser("record", help="record the set's real runs (root, Chromium)")
    r.add_argument("set", type=Path)
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--runs", type=int, default=5)
    r.add_argument("--only", nargs="*", default=[])
    args = ap.parse_args(argv)
    try:
        s = load_set(args.set)
        if args.command == "record":
            return record(s, args.out, args.runs, args.only)
        if args.sim_runs < 1:
            ap.error("--sim-runs: at least 1")
        queuing = bool(tomllib.loads(args.set.read_text()).get("judge_queuing", False))
        results, md = judge(s, args.sim_runs, args.out, queuing)
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / "results.json").write_text(json.dumps(results, indent=1))
            (args.out / "tables.md").write_text(md)
        if args.write:
            write_block(args.write, s.name, md)
        if args.check:
            published = published_block(args.check, s.name)
            if published != md:
                print(f"validate_model: {args.check}'s '{s.name}' block differs from what the stored runs give "
                      f"(rerun with --write {args.check})", file=sys.stderr)
                print(md)
                return 1
        print(md)
        return 0
    except SetError as e:
        print(f"validate_model: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
