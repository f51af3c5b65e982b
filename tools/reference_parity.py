"""Runs flowstate on the scenarios matched to the RMCAT reference implementations and
sets each window's figures beside the recorded ones (references/rmcat/*.json).

    .venv/bin/python tools/reference_parity.py            # every table (markdown)
    .venv/bin/python tools/reference_parity.py --only ns3-rmcat-nada

Each window is the case's scenario with `measure.start` / `measure.end` set to it:
throughput, mean and 95th-percentile queuing delay and loss ratio of each flow named
in the reference (`tcp`: the TCP flows' throughput summed). How many runs of ours
stand against a recorded figure follows how it was recorded:

- the mean of n > 1 reference runs (`reference_runs`): the mean of seeds 1..n of ours;
- one reference run: seeds 1..20 of ours, whose range is what one run of ours can
  give: it holds a 21st run of the same model with probability 19 / 21 (90 %). A
  scenario with no randomness gives twenty equal runs. The comparison takes the point
  of that range nearest the reference.

Flows the scenario defines identically (the same kind, start, stop and overrides:
which of them gets more is a tie-break of simultaneous events, in the reference as
here) are compared by rank (run by run; means by rank where the figure is a mean):
the reference's higher-throughput flow with ours. tests/test_reference_parity.py compares the two within its stated tolerances.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORDS = {
    "ns3-rmcat-nada": ROOT / "references" / "rmcat" / "ns3-rmcat-nada.json",
    "ericsson-scream-v1": ROOT / "references" / "rmcat" / "ericsson-scream-v1.json",
    "ericsson-scream-v1-rerun": ROOT / "references" / "rmcat" / "ericsson-scream-v1-rerun.json",
}
#: Each reference implementation and its records. Ericsson's SCReAM is a set of classes
#: that a driver runs; two drivers that both fit the set-up's description ran the same
#: revision and differ in their queue (references/rmcat/ericsson-scream-v1-rerun.json,
#: `figures`), so its figure is the range its two records span.
REFERENCES = {
    "ns3-rmcat-nada": ["ns3-rmcat-nada"],
    "ericsson-scream-v1": ["ericsson-scream-v1", "ericsson-scream-v1-rerun"],
}


def load(record: str) -> dict:
    """The recorded figures `record` (a key of RECORDS)."""
    return json.loads(RECORDS[record].read_text())


def _span(values: list) -> dict | float | None:
    """One record's figure as it is; several as {"low", "high", "records"}."""
    if any(v is None for v in values):
        return None
    if len(values) == 1:
        return values[0]
    return {"low": min(values), "high": max(values), "records": values}


def reference_windows(reference: str):
    """(case, window, the case as the first record has it, the reference's figures) for
    every window its records share; a figure of several records is their span."""
    records = [load(r) for r in REFERENCES[reference]]
    for case, c in records[0]["cases"].items():
        for window, flows in c["windows"].items():
            theirs = {
                flow: {key: _span([r["cases"][case]["windows"][window][flow][key] for r in records])
                       for key in figures}
                for flow, figures in flows.items()
            }
            yield case, window, c, theirs


def _one_run(scenario: str, seed: int, t0: float, t1: float, flows: list[str]) -> dict:
    import flowstate

    r = flowstate.run(
        str(ROOT / scenario), seed=seed, set={"measure.start": f"{t0}s", "measure.end": f"{t1}s"}
    )
    by_name = {f["name"]: f for f in r.summary["flows"]}
    out = {}
    for name in flows:
        if name == "tcp":
            tcp = [f for f in r.summary["flows"] if f["kind"].startswith("tcp")]
            out[name] = {"throughput_mbps": sum(f["throughput_mbps"] for f in tcp),
                         "queuing_mean_ms": None, "queuing_p95_ms": None, "loss_ratio": None}
            continue
        f = by_name[name]
        out[name] = {
            "throughput_mbps": f["throughput_mbps"],
            "queuing_mean_ms": f["queuing_delay_ms"]["mean"],
            "queuing_p95_ms": f["queuing_delay_ms"]["p95"],
            "loss_ratio": f["loss_ratio"],
        }
    return out


def _mean(values: list) -> float | None:
    return None if any(v is None for v in values) else sum(values) / len(values)


#: Runs of ours against a figure recorded from one reference run.
SPREAD_RUNS = 20


def _summarise(per_run: list[dict], flows: list[str]) -> dict:
    """Per flow and figure: {"value": the mean, "low": the least, "high": the most}."""
    out = {}
    for name in flows:
        out[name] = {}
        for key in per_run[0][name]:
            values = [r[name][key] for r in per_run]
            if any(v is None for v in values):
                out[name][key] = None
            else:
                out[name][key] = {"value": _mean(values), "low": min(values), "high": max(values)}
    return out


def exchangeable(scenario: str) -> list[list[str]]:
    """The groups of two or more flows `scenario` defines identically but for the name."""
    import tomllib

    flows = tomllib.loads((ROOT / scenario).read_text()).get("flows", [])
    groups: dict[str, list[str]] = {}
    for f in flows:
        key = json.dumps({k: v for k, v in f.items() if k != "name"}, sort_keys=True)
        groups.setdefault(key, []).append(f["name"])
    return [g for g in groups.values() if len(g) > 1]


def by_rank(theirs: dict, mine: dict, groups: list[list[str]]) -> dict:
    """`mine` with each exchangeable group's figures reassigned by throughput rank: the
    name of the reference's k-th fastest flow of the group gets our k-th fastest."""
    out = dict(mine)
    for group in groups:
        names = [n for n in group if n in theirs and n in mine]
        if len(names) < 2:
            continue
        ref_order = sorted(names, key=lambda n: theirs[n]["throughput_mbps"])
        our_order = sorted(names, key=lambda n: mine[n]["throughput_mbps"])
        for ref_name, our_name in zip(ref_order, our_order):
            out[ref_name] = mine[our_name]
    return out


def window_figures(case: dict, window: str) -> tuple[dict, dict]:
    """(the reference's figures, ours matched to them) for one recorded window; ours
    per flow and figure as {"value", "low", "high"} (see the module's text)."""
    theirs = case["windows"][window]
    t0, t1 = (float(x) for x in window.split("-"))
    n = case.get("reference_runs", 1)
    groups = exchangeable(case["scenario"])
    flows = list(theirs)
    seeds = range(1, n + 1) if n > 1 else range(1, SPREAD_RUNS + 1)
    per_run = [_one_run(case["scenario"], s, t0, t1, flows) for s in seeds]
    if n > 1:
        # The reference's figure is each flow's mean over its runs: so is ours, and
        # the means of exchangeable flows are matched by rank.
        per_run = [{f: {k: _mean([r[f][k] for r in per_run]) for k in per_run[0][f]} for f in flows}]
    per_run = [by_rank(theirs, r, groups) for r in per_run]
    return theirs, _summarise(per_run, flows)


def rows(reference: str):
    """(case, window, flow, the reference's figures, ours) for every recorded window."""
    for case, window, c, theirs in reference_windows(reference):
        _, mine = window_figures(c, window)
        for flow in theirs:
            yield case, window, flow, theirs[flow], mine[flow]


def _fmt(x, nd=2, scale=1.0):
    """A recorded figure, or ours: the mean, with the range over runs when it has one."""
    if x is None:
        return "-"
    if isinstance(x, dict) and "records" in x:
        return ", ".join(f"{v * scale:.{nd}f}" for v in x["records"])
    if not isinstance(x, dict):
        return f"{x * scale:.{nd}f}"
    lo, hi = round(x["low"] * scale, nd), round(x["high"] * scale, nd)
    mean = f"{x['value'] * scale:.{nd}f}"
    return mean if lo == hi else f"{mean} ({lo:.{nd}f}-{hi:.{nd}f})"


def table(name: str) -> str:
    out = [
        "| case | window s | flow | Mbit/s ref / ours | queuing mean ms ref / ours | queuing p95 ms ref / ours | loss % ref / ours |",
        "|---|---|---|---|---|---|---|",
    ]
    for case, window, flow, t, m in rows(name):
        out.append(
            f"| {case} | {window} | {flow} | {_fmt(t['throughput_mbps'])} / {_fmt(m['throughput_mbps'])} "
            f"| {_fmt(t['queuing_mean_ms'], 0)} / {_fmt(m['queuing_mean_ms'], 0)} "
            f"| {_fmt(t['queuing_p95_ms'], 0)} / {_fmt(m['queuing_p95_ms'], 0)} "
            f"| {_fmt(t['loss_ratio'], 2, 100)} / {_fmt(m['loss_ratio'], 2, 100)} |"
        )
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", choices=sorted(REFERENCES), help="one reference")
    a = p.parse_args(argv)
    for name in [a.only] if a.only else REFERENCES:
        print(f"## {name} ({', '.join(REFERENCES[name])})\n")
        print(table(name))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
