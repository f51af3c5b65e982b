"""Runs flowstate on the scenarios matched to the RMCAT reference implementations and
sets each window's figures beside the recorded ones (references/rmcat/*.json).

    .venv/bin/python tools/reference_parity.py            # both tables (markdown)
    .venv/bin/python tools/reference_parity.py --only ns3-rmcat-nada

Each window is one run of the case's scenario with `measure.start` / `measure.end` set
to it (seed 1): throughput, mean and 95th-percentile queuing delay and loss ratio of
each flow named in the reference (`tcp`: the TCP flows' throughput summed).
tests/test_reference_parity.py compares the two within its stated tolerances.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCES = {
    "ns3-rmcat-nada": ROOT / "references" / "rmcat" / "ns3-rmcat-nada.json",
    "ericsson-scream-v1": ROOT / "references" / "rmcat" / "ericsson-scream-v1.json",
    "ericsson-scream-v1-rerun": ROOT / "references" / "rmcat" / "ericsson-scream-v1-rerun.json",
}


def load(name: str) -> dict:
    """The recorded reference `name` (a key of REFERENCES)."""
    return json.loads(REFERENCES[name].read_text())


def ours(scenario: str, t0: float, t1: float, flows: list[str]) -> dict:
    """flowstate's figures for `flows` over [t0, t1) s of `scenario` (seed 1)."""
    import flowstate

    r = flowstate.run(
        str(ROOT / scenario), seed=1, set={"measure.start": f"{t0}s", "measure.end": f"{t1}s"}
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


def rows(name: str):
    """(case, window, flow, reference figures, our figures) for every recorded window."""
    ref = load(name)
    for case, c in ref["cases"].items():
        for window, flows in c["windows"].items():
            t0, t1 = (float(x) for x in window.split("-"))
            mine = ours(c["scenario"], t0, t1, list(flows))
            for flow, theirs in flows.items():
                yield case, window, flow, theirs, mine[flow]


def _fmt(x, nd=2):
    return "-" if x is None else f"{x:.{nd}f}"


def table(name: str) -> str:
    out = [
        "| case | window s | flow | Mbit/s ref / ours | queuing mean ms ref / ours | queuing p95 ms ref / ours | loss % ref / ours |",
        "|---|---|---|---|---|---|---|",
    ]
    for case, window, flow, t, m in rows(name):
        loss = lambda v: None if v is None else 100 * v
        out.append(
            f"| {case} | {window} | {flow} | {_fmt(t['throughput_mbps'])} / {_fmt(m['throughput_mbps'])} "
            f"| {_fmt(t['queuing_mean_ms'], 0)} / {_fmt(m['queuing_mean_ms'], 0)} "
            f"| {_fmt(t['queuing_p95_ms'], 0)} / {_fmt(m['queuing_p95_ms'], 0)} "
            f"| {_fmt(loss(t['loss_ratio']))} / {_fmt(loss(m['loss_ratio']))} |"
        )
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", choices=sorted(REFERENCES), help="one reference")
    a = p.parse_args(argv)
    for name in [a.only] if a.only else REFERENCES:
        print(f"## {name}\n")
        print(table(name))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
