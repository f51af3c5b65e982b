#!/usr/bin/env python3
"""Why two uncoupled NADA flows with RFC 8698 PRIO 1 and 0.5 share at about 1.7, not 2
(p003-nada-prio, point none-prio; docs/REPRODUCTION.md, "Coupled NADA and LEDBAT
(issue 20)").

    .venv/bin/python scripts/nada_prio.py [--runs 10]

Runs the entry's scenario (uncoupled, PRIO 1 / 0.5) with one NADA option changed at a
time and prints each flow's mean sending rate and the ratio. Rows:

- ``catalogue``: the entry as it is (120 s, rates from 20 s).
- ``long``: 400 s, rates from 200 s (converged: the gradual update closes a gap between
  the two flows' PRIO-normalised rates with a time constant of TAU^2 / (KAPPA x_curr),
  about 36 s here).
- ``no-ramp-up``: as ``long`` with QEPS = 0.001 ms, so rmode never returns to 0 and the
  accelerated ramp-up (RFC 8698 section 4.3) never runs; both flows start together at
  r_ref 1.2 / 0.6 Mbit/s instead of ramping up from RMIN.
- ``equal-filter-span``: as ``long`` with flow 2's minimum filter at 8 taps instead of 15
  (section 5.1.1): flow 2 sends 82 packets/s against flow 1's 131, so 8 of its packets
  span about the time of flow 1's 15.
- ``both``: ``no-ramp-up`` and ``equal-filter-span`` together.
"""

from __future__ import annotations

import argparse
import copy
import tomllib
from pathlib import Path
from typing import Any

from flowstate.simulation import run

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "p003-nada-prio" / "base.toml"
LONG = {"duration": "400s", "from": 200.0}
NO_RAMP = {"both": {"qeps_ms": 0.001}, "f1": {"initial_rate": "1200kbps"}, "f2": {"initial_rate": "600kbps"}, "start2": "0s"}

ROWS: dict[str, dict[str, Any]] = {
    "catalogue": {"from": 20.0},
    "long": dict(LONG),
    "no-ramp-up": {**LONG, **NO_RAMP},
    "equal-filter-span": {**LONG, "f2": {"min_filter_taps": 8}},
    "both": {**LONG, **NO_RAMP, "f2": {"initial_rate": "600kbps", "min_filter_taps": 8}},
}


def scenario(row: dict[str, Any]) -> dict[str, Any]:
    s = tomllib.loads(SCENARIO.read_text(encoding="utf-8"))
    s["coupling"]["mechanism"] = "none"
    s["flows"][0]["overrides"] = {"prio": 1.0, **row.get("both", {}), **row.get("f1", {})}
    s["flows"][1]["overrides"] = {"prio": 0.5, **row.get("both", {}), **row.get("f2", {})}
    if "start2" in row:
        s["flows"][1]["start"] = row["start2"]
    if "duration" in row:
        s["duration"] = row["duration"]
    return copy.deepcopy(s)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=10, help="seeds 1..N (default 10)")
    args = ap.parse_args()
    print(f"{'row':18s} {'nada1 Mbit/s':>12s} {'nada2 Mbit/s':>12s} {'ratio':>6s}  (mean over {args.runs} runs)")
    for name, row in ROWS.items():
        ts = run(scenario(row), seed=1, runs=args.runs).timeseries
        rate = ts[ts.time_s >= row["from"]].groupby("flow").send_rate_mbps.mean()
        print(f"{name:18s} {rate['nada1']:12.3f} {rate['nada2']:12.3f} {rate['nada1'] / rate['nada2']:6.2f}")


if __name__ == "__main__":
    main()
