#!/usr/bin/env python3
"""Chromium against itself: how often a real run passes the simulator's target against the
other runs of its case (docs/REPRODUCTION.md, "How far the real runs are from each other").

    .venv/bin/python tools/real_spread.py [--refs DIR ...] [--markdown OUT.md] [--json OUT.json]

real_vs_sim.py judges the simulator by the median of >= 3 real runs: every flow's throughput
within 15 % and its mean RTT within 20 %. This script applies the same rule to each real
run, leaving it out of the median it is judged against (the median of the case's other
runs): a perfect model of Chromium would pass no more often than Chromium's own runs do.
Per case and flow it writes the real median, the range, and how many runs fall within the
tolerance of the others' median; per case, how many runs pass on every flow.

DIR holds DIR/CASE/chromium/summary.json with `per_run` (the repository's
references/chromium-156, or a folder `tools/pool_real_runs.py` wrote); several DIRs are
pooled per case (the runs of each, in order). The tolerances are real_vs_sim.py's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Optional

# real_vs_sim.py's tolerances: throughput within 15 %, mean RTT within 20 % of the median
# (tools/, this script's folder: on the path when it runs, and in the tests' pytest config).
from real_vs_sim import RTT_TOLERANCE, THROUGHPUT_TOLERANCE, within_tolerance

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_REFS = ROOT / "references" / "chromium-156"
METRICS = (("throughput_mbps", THROUGHPUT_TOLERANCE), ("rtt_mean_ms", RTT_TOLERANCE))


def run_values(run: dict) -> dict[str, dict[str, Optional[float]]]:
    """flow name -> {throughput_mbps, rtt_mean_ms} of one run's summary."""
    out = {}
    for f in run.get("flows", []):
        rtt = f.get("rtt_ms") or {}
        out[str(f["name"])] = {"throughput_mbps": f.get("throughput_mbps"), "rtt_mean_ms": rtt.get("mean")}
    return out


def load_case_runs(refs: list[Path], case: str) -> list[dict]:
    """Every real run of ``case`` over the DIRs, as run_values(); a DIR without the case is
    skipped, a summary that is not JSON or has no flows is a one-line error."""
    runs: list[dict] = []
    for ref in refs:
        path = ref / case / "chromium" / "summary.json"
        if not path.exists():
            continue
        try:
            summary = json.loads(path.read_text())
        except json.JSONDecodeError as e:
            raise SystemExit(f"{path}: not JSON ({e.msg}, line {e.lineno})") from None
        per_run = summary.get("per_run", [summary]) if isinstance(summary, dict) else None
        if not isinstance(per_run, list) or not all(isinstance(r, dict) and r.get("flows") for r in per_run):
            raise SystemExit(f"{path}: no per-run flows (a summary of real runs, per_run: [{{flows: ...}}])")
        runs += [run_values(r) for r in per_run]
    return runs


def within(value: Optional[float], reference: Optional[float], tolerance: float) -> Optional[bool]:
    """Whether ``value`` is within ``tolerance`` of ``reference`` (None when either is
    missing or the reference is 0)."""
    if value is None or not reference:
        return None
    return within_tolerance(value / reference, tolerance)


def leave_one_out(runs: list[dict]) -> dict:
    """Per flow and metric: the median, min, max over the runs and, for each run, its
    ratio to the median of the other runs and whether that is within the tolerance; per
    run, whether every flow's every metric is (None for a metric a run lacks)."""
    flows = list(runs[0]) if runs else []
    result: dict = {"runs": len(runs), "flows": {}, "run_passes": []}
    passes = [True] * len(runs)
    for flow in flows:
        per_metric = {}
        for metric, tol in METRICS:
            values = [r.get(flow, {}).get(metric) for r in runs]
            present = [v for v in values if v is not None]
            if not present:
                continue
            ratios, oks = [], []
            for k, v in enumerate(values):
                others = [x for j, x in enumerate(values) if j != k and x is not None]
                ref = statistics.median(others) if others else None
                ok = within(v, ref, tol)
                ratios.append(None if ok is None else v / ref)
                oks.append(ok)
                if ok is False:
                    passes[k] = False
            per_metric[metric] = {
                "median": statistics.median(present),
                "min": min(present),
                "max": max(present),
                "tolerance": tol,
                "ratio_to_others": ratios,
                "within": oks,
            }
        result["flows"][flow] = per_metric
    result["run_passes"] = passes
    return result


def case_names(refs: list[Path]) -> list[str]:
    names: set[str] = set()
    for ref in refs:
        if not ref.is_dir():
            raise SystemExit(f"--refs {ref}: not a folder")
        names |= {p.parent.parent.name for p in ref.glob("*/chromium/summary.json")}
    if not names:
        raise SystemExit(f"--refs {' '.join(map(str, refs))}: no CASE/chromium/summary.json in it")
    return sorted(names)


def markdown(results: dict[str, dict]) -> str:
    lines = [
        "| case | runs | flow | throughput Mbit/s, median (min-max) | runs within 15 % of the others' median "
        "| mean RTT ms, median (min-max) | runs within 20 % | runs passing every flow |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for case, r in results.items():
        first = True
        for flow, m in r["flows"].items():
            cells = []
            for metric, digits in (("throughput_mbps", 3), ("rtt_mean_ms", 0)):
                x = m.get(metric)
                if x is None:
                    cells += ["-", "-"]
                    continue
                ok = sum(1 for w in x["within"] if w)
                ratios = ", ".join("-" if q is None else f"x{q:.2f}" for q in x["ratio_to_others"])
                cells += [f"{x['median']:.{digits}f} ({x['min']:.{digits}f}-{x['max']:.{digits}f})",
                          f"{ok} of {r['runs']} ({ratios})"]
            passing = f"**{sum(r['run_passes'])} of {r['runs']}**" if first else ""
            lines.append(f"| {case if first else ''} | {r['runs'] if first else ''} | {flow} | "
                         + " | ".join(cells) + f" | {passing} |")
            first = False
    total = sum(sum(r["run_passes"]) for r in results.values())
    runs = sum(r["runs"] for r in results.values())
    lines.append("")
    lines.append(f"Real runs passing their case against the other runs' median: {total} of {runs}.")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--refs", nargs="+", type=Path, default=[DEFAULT_REFS],
                    help="folders of real runs (CASE/chromium/summary.json), pooled per case "
                         "(default: the repository's references/chromium-156)")
    ap.add_argument("--only", nargs="*", help="cases (default: every case in the folders)")
    ap.add_argument("--markdown", type=Path, help="also write the table here")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)
    names = case_names(args.refs)
    if args.only:
        unknown = [c for c in args.only if c not in names]
        if unknown:
            raise SystemExit(f"--only: no real runs of {', '.join(unknown)} (cases: {', '.join(names)})")
        names = args.only
    results = {}
    for case in names:
        runs = load_case_runs(args.refs, case)
        if len(runs) < 2:
            raise SystemExit(f"{case}: {len(runs)} real run(s); leaving one out needs at least 2")
        results[case] = leave_one_out(runs)
    text = markdown(results)
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
