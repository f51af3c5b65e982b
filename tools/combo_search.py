#!/usr/bin/env python3
"""Which combination of the `chromium-m156` GCC options matches the stored
real Chromium 156 runs best (docs/REPRODUCTION.md, "Which combination of the options
matches Chromium 156 best"). Simulator only: no browser, no namespaces, no root.

    .venv/bin/python tools/combo_search.py [--refs REFS] [--sim-runs 10]
        [--start full] [--tcp rfc sack kernel] [--greedy] [--combo NAME+NAME ...]
        [--json OUT.json] [--markdown OUT.md]

REFS is a folder of the real runs as `real_vs_sim.py --tables-only` reads them:
REFS/CASE/chromium/summary.json (and timeseries.csv); by default the repository's own
copy, references/chromium-156 (references/README.md: three Chromium 156 runs a case,
recorded with `real_vs_sim.py`, the set "Where it stands" uses). Each combination runs the seven cases of real_vs_sim.py with `--sim-runs`
simulator runs (seeds 1..N, the scenario each case of real_vs_sim.py builds, GCC on
`chromium-m156`, SCTP on `dcsctp`) with the named options on the video flow and the
named competitor rules on every TCP flow, and judges each case as real_vs_sim.py does:
every flow's throughput within 15 % and its mean RTT within 20 % of the real median. A
throughput miss that still lies within the real runs' own min-max is marked `in range`
(Chromium's run-to-run spread is wider than the bound in some cases: tools/real_spread.py).

`--combo` evaluates the named combinations (options joined by `+` or taken away with `-`;
`preset` for what `chromium-m156` switches on, `bare` for none, `full` for the full set;
every option not named is switched off explicitly); `--greedy` starts from `--start` and adds or removes one
option at a time while the count of cases within target rises (ties: the smaller
summed miss, see `miss`), once per `--tcp` competitor.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Optional

import real_vs_sim  # tools/, this script's folder

# The real Chromium 156 runs the repository keeps (references/README.md).
REFS = Path(__file__).resolve().parents[1] / "references" / "chromium-156"

CASES = ("p000-table5", "p000-fig2", "p000-fig3", "rfc8867-5.1", "rfc8867-5.6", "p002-fig11", "p001-fig8")
THROUGHPUT_TOLERANCE = real_vs_sim.THROUGHPUT_TOLERANCE
RTT_TOLERANCE = real_vs_sim.RTT_TOLERANCE

# The options of the video (gcc) flow, each with the overrides that switch it on (`set`)
# and off (`off`: every combination sets every option, so a run does not depend on the
# preset's defaults) and the options it needs (the simulator rejects `loss_v2_padding`
# without `loss_v2_m150` and `fec_delay_ms` without `chromium_fec`). `origin`: "source"
# for a rule taken from the libwebrtc / Chromium sources (docs/ALGORITHMS.md cites each),
# "clip" for one fitted to the test clip, "measured" for a value measured in the real runs
# with no rule found.
OPTIONS: dict[str, dict[str, Any]] = {
    "vp8_frame_drop": {"set": {"vp8_frame_drop": True}, "off": {"vp8_frame_drop": False},
                       "needs": (), "origin": "clip"},
    "chromium_pacer": {"set": {"chromium_pacer": True}, "off": {"chromium_pacer": False},
                       "needs": (), "origin": "source"},
    "pacing_1.1": {"set": {"pacing_factor": 1.1}, "off": {"pacing_factor": 2.5}, "needs": (), "origin": "source"},
    "chromium_fec": {"set": {"chromium_fec": True}, "off": {"chromium_fec": False}, "needs": (), "origin": "source"},
    "chromium_adjuster": {"set": {"chromium_adjuster": True}, "off": {"chromium_adjuster": False},
                          "needs": (), "origin": "source"},
    "loss_v2_m150": {"set": {"loss_v2_m150": True}, "off": {"loss_v2_m150": False}, "needs": (), "origin": "source"},
    "loss_v2_padding": {"set": {"loss_v2_padding": True}, "off": {"loss_v2_padding": False},
                        "needs": ("loss_v2_m150",), "origin": "source"},
    "send_time_ms": {"set": {"send_time_ms": True}, "off": {"send_time_ms": False}, "needs": (), "origin": "source"},
    "fec_delay_ms": {"set": {"fec_delay_ms": 5.4}, "off": {"fec_delay_ms": 0}, "needs": ("chromium_fec",),
                     "origin": "measured"},
    "chromium_feedback_cadence": {"set": {"chromium_feedback_cadence": True},
                                  "off": {"chromium_feedback_cadence": False}, "needs": (), "origin": "source"},
    "nack_rtx": {"set": {"nack_rtx": True}, "off": {"nack_rtx": False}, "needs": (), "origin": "source"},
    "rtcp_report_random": {"set": {"rtcp_report_random": True}, "off": {"rtcp_report_random": False},
                           "needs": (), "origin": "source"},
}
# real_vs_sim.py --full-set, by option name.
FULL_SET = ("vp8_frame_drop", "chromium_pacer", "pacing_1.1", "chromium_fec", "chromium_adjuster")
# What the `chromium-m156` preset switches on (its send chain; docs/ALGORITHMS.md
# "Today's Chromium's send chain"): `preset`. `bare` is none of the options, the preset
# as it was before it took the send chain.
PRESET = ("chromium_pacer", "pacing_1.1", "chromium_fec", "chromium_adjuster", "loss_v2_m150",
          "loss_v2_padding", "send_time_ms", "fec_delay_ms", "chromium_feedback_cadence", "rtcp_report_random")
# The competitor: tcp-cubic's RFC defaults, SACK alone, or Linux's defaults (--kernel-tcp).
TCP: dict[str, dict[str, Any]] = {
    "rfc": {},
    "sack": {"sack": True},
    "kernel": dict(real_vs_sim.KERNEL_CUBIC),
}


def parse_combo(text: str) -> frozenset[str]:
    """'preset' -> the preset's options, 'bare' -> {}, 'full' -> the full set,
    'preset+vp8_frame_drop-fec_delay_ms' -> the preset's with vp8_frame_drop and without
    fec_delay_ms, 'a+b' -> {a, b}; ValueError names an unknown option or one without an
    option it needs."""
    names: set[str] = set()
    for sign, token in re.findall(r"([+-]?)([^+-]+)", text):
        if token == "full":
            part = set(FULL_SET)
        elif token == "preset":
            part = set(PRESET)
        elif token == "bare":
            part = set()
        elif token in OPTIONS:
            part = {token}
        else:
            raise ValueError(f"combination {text!r}: no option {token!r} (options: {', '.join(OPTIONS)})")
        names = names - part if sign == "-" else names | part
    combo = frozenset(names)
    check(combo, text)
    return combo


def check(combo: frozenset[str], text: str = "") -> None:
    for name in combo:
        for need in OPTIONS[name]["needs"]:
            if need not in combo:
                raise ValueError(f"combination {text or name!r}: {name} needs {need}")


def label(combo: Iterable[str]) -> str:
    """A combination's shortest name: `preset`, `full` or `bare` with what it adds and
    leaves out (ties in that order)."""
    combo = set(combo)
    names = []
    for base, members in (("preset", PRESET), ("full", FULL_SET), ("bare", ())):
        parts = [base] + [f"-{n}" for n in OPTIONS if n in set(members) - combo] + [
            f"+{n}" for n in OPTIONS if n in combo - set(members)]
        names.append(parts)
    return "".join(min(names, key=len))


def overrides(combo: Iterable[str]) -> dict[str, Any]:
    """Every option's overrides: its `set` if in `combo`, else its `off`."""
    combo = set(combo)
    out: dict[str, Any] = {}
    for name, option in OPTIONS.items():
        out.update(option["set"] if name in combo else option["off"])
    return out


def parse_sctp_set(items: Iterable[str]) -> dict[str, Any]:
    """`--sctp-set KEY=VALUE ...` as SCTP overrides (VALUE as TOML: true, 4, 1.5 or a
    string); ValueError names an item without '='."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--sctp-set {item!r}: expected KEY=VALUE")
        try:
            out[key] = tomllib.loads(f"v = {value}")["v"]
        except tomllib.TOMLDecodeError:
            out[key] = value
    return out


def scenario(case: Any, combo: Iterable[str], tcp: str, sctp: Optional[dict[str, Any]] = None) -> dict:
    """The simulated scenario of a real_vs_sim case: every GCC flow on chromium-m156 with
    the combination's overrides, every SCTP flow on dcsctp (with `sctp`'s overrides),
    every TCP flow with the competitor's rules."""
    side = real_vs_sim.SimSide("chromium-m156", "dcsctp")
    doc = real_vs_sim.scenario_doc(case, chromium_preset=True, side=side)
    for f in doc["flows"]:
        if f.get("kind") == "gcc":
            f["overrides"] = {**(f.get("overrides") or {}), **overrides(combo)}
        if f.get("kind") == "sctp" and sctp:
            f["overrides"] = {**(f.get("overrides") or {}), **sctp}
        if str(f.get("kind", "")).startswith("tcp-") and TCP[tcp]:
            f["overrides"] = {**(f.get("overrides") or {}), **TCP[tcp]}
    return doc


@dataclass
class FlowResult:
    name: str
    kind: str
    real_mbps: float
    sim_mbps: float
    real_rtt_ms: Optional[float]
    sim_rtt_ms: Optional[float]
    # The lowest and highest throughput of the real runs (the median is real_mbps).
    real_min_mbps: Optional[float] = None
    real_max_mbps: Optional[float] = None

    @property
    def in_real_range(self) -> Optional[bool]:
        """Whether the simulated throughput lies within the real runs' own range (a miss
        inside it is within Chromium's run-to-run spread; one outside is the model)."""
        if self.real_min_mbps is None or self.real_max_mbps is None:
            return None
        return self.real_min_mbps <= self.sim_mbps <= self.real_max_mbps

    @property
    def ratio(self) -> float:
        return self.sim_mbps / self.real_mbps

    @property
    def rtt_ratio(self) -> Optional[float]:
        if not self.real_rtt_ms or self.sim_rtt_ms is None:
            return None
        return self.sim_rtt_ms / self.real_rtt_ms

    @property
    def ok(self) -> bool:
        return within(self.ratio, THROUGHPUT_TOLERANCE) and (self.rtt_ratio is None or within(self.rtt_ratio, RTT_TOLERANCE))


within = real_vs_sim.within_tolerance


def miss(flows: list[FlowResult]) -> float:
    """How far a case is outside its bounds: the sum over its flows of how far each
    ratio's log is past the bound's (0 within target). Only the tie-break of the greedy
    search."""
    total = 0.0
    for f in flows:
        total += max(0.0, abs(math.log(f.ratio)) - math.log(1 + THROUGHPUT_TOLERANCE))
        if f.rtt_ratio is not None:
            total += max(0.0, abs(math.log(f.rtt_ratio)) - math.log(1 + RTT_TOLERANCE))
    return total


def case_result(entry: dict) -> list[FlowResult]:
    """The flows of one case from real_vs_sim.figures()'s chromium entry, the video first."""
    out = []
    for name, f in entry["flows"].items():
        s = entry["sim"][name]
        t = f["throughput_mbps"]
        out.append(FlowResult(name, f["kind"], t["median"], s["throughput_mbps"],
                              (f["rtt_mean_ms"] or {}).get("median"), s["rtt_mean_ms"],
                              t.get("min"), t.get("max")))
    return sorted(out, key=lambda f: f.kind != "gcc")


class Runner:
    def __init__(self, refs: Path, sim_runs: int, cases: Iterable[str] = CASES,
                 sctp: Optional[dict[str, Any]] = None):
        self.refs = refs
        self.sctp = sctp or {}
        self.sim_runs = sim_runs
        self.cases = [c for c in real_vs_sim.CASES if c.name in set(cases)]
        missing = [c.name for c in self.cases if not (refs / c.name / "chromium" / "summary.json").exists()]
        if missing:
            raise ValueError(f"--refs {refs}: no real runs for {', '.join(missing)} (CASE/chromium/summary.json)")
        self.cache: dict[tuple[frozenset[str], str], dict[str, list[FlowResult]]] = {}

    def has_tcp(self, case: Any) -> bool:
        doc = real_vs_sim.scenario_doc(case, chromium_preset=False)
        return any(str(f.get("kind", "")).startswith("tcp-") for f in doc["flows"])

    def run(self, combo: frozenset[str], tcp: str) -> dict[str, list[FlowResult]]:
        import flowstate

        key = (combo, tcp)
        if key in self.cache:
            return self.cache[key]
        results = {}
        for case in self.cases:
            # A case without a TCP flow does not depend on the competitor's rules.
            if tcp != "rfc" and not self.has_tcp(case) and (combo, "rfc") in self.cache:
                results[case.name] = self.cache[(combo, "rfc")][case.name]
                continue
            r = flowstate.run(scenario(case, combo, tcp, self.sctp), seed=1, runs=self.sim_runs)
            sims = {"chromium": {"summary": r.summary, "timeseries": r.timeseries}}
            entry = real_vs_sim.figures(case, self.refs, sims)["stacks"]["chromium"]
            results[case.name] = case_result(entry)
        self.cache[key] = results
        return results


def score(results: dict[str, list[FlowResult]]) -> tuple[int, float]:
    passed = sum(all(f.ok for f in flows) for flows in results.values())
    return passed, sum(miss(flows) for flows in results.values())


def neighbours(combo: frozenset[str], allowed: Iterable[str]) -> list[frozenset[str]]:
    """The combinations one option away (adding an option adds what it needs; removing
    one removes what needs it)."""
    out = []
    for name in allowed:
        if name in combo:
            nxt = set(combo) - {name}
            nxt -= {n for n in nxt if name in OPTIONS[n]["needs"]}
        else:
            nxt = set(combo) | {name} | set(OPTIONS[name]["needs"])
        out.append(frozenset(nxt))
    return out


def every_combination(base: frozenset[str], allowed: Iterable[str]) -> list[frozenset[str]]:
    """Every valid combination: `base` with any subset of `allowed` switched (an option
    in `base` and `allowed` may go), leaving out those without an option they need."""
    allowed = [n for n in OPTIONS if n in set(allowed)]
    fixed = set(base) - set(allowed)
    out = []
    for mask in range(1 << len(allowed)):
        combo = frozenset(fixed | {n for i, n in enumerate(allowed) if mask >> i & 1})
        try:
            check(combo)
        except ValueError:
            continue
        out.append(combo)
    return out


def greedy(runner: Runner, start: frozenset[str], tcp: str, allowed: Iterable[str], log: Any = None) -> list[dict]:
    """The greedy path from `start`: at each step the best neighbour by (cases within
    target, -summed miss), while it beats the current combination."""
    allowed = list(allowed)
    path = []
    cur = start
    cur_score = score(runner.run(cur, tcp))
    path.append({"combo": cur, "tcp": tcp, "score": cur_score, "step": "start"})
    seen = {cur}
    while True:
        best = None
        for nxt in neighbours(cur, allowed):
            if nxt in seen:
                continue
            seen.add(nxt)
            s = score(runner.run(nxt, tcp))
            if log:
                log(f"  [{tcp}] {label(nxt)}: {s[0]}/7, miss {s[1]:.3f}")
            if best is None or (s[0], -s[1]) > (best[1][0], -best[1][1]):
                best = (nxt, s)
        if best is None or (best[1][0], -best[1][1]) <= (cur_score[0], -cur_score[1]):
            return path
        cur, cur_score = best
        path.append({"combo": cur, "tcp": tcp, "score": cur_score, "step": "greedy"})
        if log:
            log(f"[{tcp}] -> {label(cur)}: {cur_score[0]}/7, miss {cur_score[1]:.3f}")


def range_note(f: FlowResult) -> str:
    """`, in range` after a throughput miss that lies within the real runs' min-max."""
    return ", in range" if f.in_real_range else ""


def cell(flows: list[FlowResult]) -> str:
    """One case in a table: the video's Mbit/s and ratio, then what else misses."""
    video = flows[0]
    text = f"{video.sim_mbps:.3f}" + (" ok" if within(video.ratio, THROUGHPUT_TOLERANCE)
                                      else f" (x{video.ratio:.2f}{range_note(video)})")
    extra = []
    for f in flows[1:]:
        if not within(f.ratio, THROUGHPUT_TOLERANCE):
            extra.append(f"{f.name} x{f.ratio:.2f}{range_note(f)}")
    for f in flows:
        if f.rtt_ratio is not None and not within(f.rtt_ratio, RTT_TOLERANCE):
            extra.append(f"{f.name} RTT x{f.rtt_ratio:.2f}")
    if extra:
        text += "; " + ", ".join(extra)
    return ("**" + text + "**") if all(f.ok for f in flows) else text


def markdown(rows: list[tuple[str, str, dict[str, list[FlowResult]]]], cases: list[str]) -> str:
    lines = ["| combination | competitor | " + " | ".join(cases) + " | within |",
             "|---|---|" + "---|" * len(cases) + "---|"]
    for name, tcp, results in rows:
        cells = [cell(results[c]) for c in cases]
        lines.append(f"| {name} | {tcp} | " + " | ".join(cells) + f" | {score(results)[0]} |")
    return "\n".join(lines)


def as_json(results: dict[str, list[FlowResult]]) -> dict:
    return {c: {"ok": all(f.ok for f in flows),
                "flows": [{"name": f.name, "kind": f.kind, "real_mbps": f.real_mbps, "sim_mbps": f.sim_mbps,
                           "ratio": f.ratio, "real_rtt_ms": f.real_rtt_ms, "sim_rtt_ms": f.sim_rtt_ms,
                           "rtt_ratio": f.rtt_ratio, "ok": f.ok, "real_min_mbps": f.real_min_mbps,
                           "real_max_mbps": f.real_max_mbps, "in_real_range": f.in_real_range} for f in flows]}
            for c, flows in results.items()}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--refs", type=Path, default=REFS,
                    help="REFS/CASE/chromium: the real runs (default: the repository's references/chromium-156)")
    ap.add_argument("--sim-runs", type=int, default=10)
    ap.add_argument("--only", nargs="*", default=list(CASES), help="cases (default: the seven)")
    ap.add_argument("--combo", nargs="*", default=[], help="combinations to evaluate (a+b, full, full-x+y, preset)")
    ap.add_argument("--greedy", action="store_true", help="greedy search from --start")
    ap.add_argument("--start", default="full", help="the greedy search's start (default: full)")
    ap.add_argument("--exhaustive", action="store_true",
                    help="every combination of --start with the --allow options switched on or off")
    ap.add_argument("--allow", nargs="*", default=list(OPTIONS), help="the options the greedy search may change")
    ap.add_argument("--tcp", nargs="*", default=["rfc"], choices=list(TCP), help="competitor rules to run")
    ap.add_argument("--sctp-set", nargs="*", default=[], metavar="KEY=VALUE",
                    help="overrides on every SCTP flow (e.g. renack_retransmissions=false)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--markdown", type=Path)
    ap.add_argument("--write-toml", type=Path, metavar="DIR",
                    help="only write each --combo's scenario per case and --tcp as DIR/CASE.COMBO.TCP.toml "
                         "(to run elsewhere, e.g. with the engine binary) and run nothing")
    args = ap.parse_args(argv)
    unknown = sorted(set(args.only) - set(CASES))
    if unknown:
        ap.error(f"--only: no such case {', '.join(unknown)} (cases: {', '.join(CASES)})")
    bad = sorted(set(args.allow) - set(OPTIONS))
    if bad:
        ap.error(f"--allow: no option {', '.join(bad)} (options: {', '.join(OPTIONS)})")
    try:
        combos = [parse_combo(c) for c in args.combo]
        start = parse_combo(args.start)
        sctp = parse_sctp_set(args.sctp_set)
    except ValueError as e:
        ap.error(str(e))
    if args.write_toml:
        args.write_toml.mkdir(parents=True, exist_ok=True)
        for case in real_vs_sim.CASES:
            if case.name not in args.only:
                continue
            for tcp in args.tcp:
                for combo in combos:
                    path = args.write_toml / f"{case.name}.{label(combo)}.{tcp}.toml"
                    real_vs_sim.write_toml(scenario(case, combo, tcp, sctp), path)
                    print(path)
        return 0
    try:
        runner = Runner(args.refs, args.sim_runs, args.only, sctp)
    except ValueError as e:
        ap.error(str(e))

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    rows = []
    paths = []
    for tcp in args.tcp:
        for combo in combos:
            res = runner.run(combo, tcp)
            log(f"[{tcp}] {label(combo)}: {score(res)[0]}/7, miss {score(res)[1]:.3f}")
            rows.append((label(combo), tcp, res))
        if args.exhaustive:
            for combo in every_combination(start, args.allow):
                res = runner.run(combo, tcp)
                log(f"[{tcp}] {label(combo)}: {score(res)[0]}/7, miss {score(res)[1]:.3f}")
                rows.append((label(combo), tcp, res))
        if args.greedy:
            path = greedy(runner, start, tcp, args.allow, log)
            paths.append(path)
            for p in path:
                rows.append((label(p["combo"]) + (" (greedy end)" if p is path[-1] else ""), tcp,
                             runner.run(p["combo"], tcp)))
    cases = [c for c in CASES if c in args.only]
    md = markdown(rows, cases)
    print(md)
    if args.markdown:
        args.markdown.write_text(md + "\n")
    if args.json:
        everything = [{"combination": label(c), "options": sorted(c), "tcp": t, "within": score(r)[0],
                       "miss": score(r)[1], "cases": as_json(r)} for (c, t), r in runner.cache.items()]
        args.json.write_text(json.dumps({"sim_runs": args.sim_runs, "evaluated": everything,
                                         "greedy": [[{"combination": label(p["combo"]), "tcp": p["tcp"],
                                                      "within": p["score"][0], "miss": p["score"][1]} for p in path]
                                                    for path in paths]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
