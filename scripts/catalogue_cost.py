#!/usr/bin/env python3
"""What each catalogue entry costs: the CPU seconds of its simulations for one seed, as
`flowstate reproduce` runs them, paired with the runs as they were before the runner
shared identical simulations and dropped the trace hash (docs/BENCHMARKS.md, "Fifth
pass").

    .venv/bin/python scripts/catalogue_cost.py [--seed S] [--top N]

For every point of every entry, one after the other in one thread: the point simulated
with its trace hash (``before``), then, unless an earlier point already had the same run
key (the scenario but its name, and the seed; flowstate.catalogue.reproduce.run_key),
the point simulated as the runner does (``after``: ``[measure] trace_hash = false``).
Interleaving the two per point lets both see the same machine load; the figures are
process CPU seconds, not wall time. Prints the totals, their ratio and the N most
expensive entries.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cpu_seconds(call) -> float:
    t0 = time.process_time()
    call()
    return time.process_time() - t0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--top", type=int, default=10, help="list the N most expensive entries (default 10)")
    args = ap.parse_args(argv)
    if args.seed < 0 or args.top < 0:
        ap.error("--seed and --top must be >= 0")
    sys.path.insert(0, str(ROOT / "python"))
    from flowstate import _native
    from flowstate.catalogue import catalogue, reproduce
    from flowstate.simulation import without_trace_hash

    def simulate(text: str) -> None:
        _native.simulate(text, "catalogue_cost", seed=args.seed, runs=1, threads=1)

    before = Counter[str]()
    after = Counter[str]()
    seen: set = set()
    points = runs = 0
    for exp in catalogue.load_all(catalogue.find_root()):
        for point in exp.points():
            points += 1
            before[exp.id] += cpu_seconds(lambda: simulate(_native.scenario_toml(point.scenario)))
            key = reproduce.run_key(point.scenario, args.seed)
            if key not in seen:
                seen.add(key)
                runs += 1
                after[exp.id] += cpu_seconds(lambda: simulate(_native.scenario_toml(without_trace_hash(point.scenario))))
    b, a = sum(before.values()), sum(after.values())
    print(f"seed {args.seed}: before {points} runs, {b:.2f} CPU s; after {runs} runs, {a:.2f} CPU s; after/before {a / b:.3f}")
    for exp_id, cost in after.most_common(args.top):
        print(f"  {exp_id:24s} after {cost:6.2f} s   before {before[exp_id]:6.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
