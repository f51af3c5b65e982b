#!/usr/bin/env python3
"""How fast the whole catalogue could be simulated: its events, as `flowstate reproduce`
simulates them, against the engine's own rate with its cheapest endpoint, measured in
the same minutes (docs/BENCHMARKS.md, "The catalogue's floor").

    .venv/bin/python scripts/catalogue_floor.py [--seeds K] [--runs R] [--jobs J] [--rounds N]

The catalogue's runs: every point of every entry, once per run key (the scenario but its
name, and the seed: flowstate.catalogue.reproduce.run_key, as the runner shares them),
as a pooled run (flowstate.simulation.as_pooled_run: no trace hash, no recorder thread,
the series kept), seeds 1..K, one after the other in this thread. The floor: bench_scale's
``cbr`` mix, 10 CBR flows of 0.9 Mbit/s on a 10 Mbit/s dumbbell for 300 s, the engine's
loop, link, metrics and series with the simplest sender there is (a timer and a packet,
no feedback), also as a pooled run. The two are interleaved, N rounds, so both see the
same machine; the figures are process CPU seconds.

Prints the catalogue's events at ``--runs R`` (the events of seeds 1..K scaled to R
seeds), its rate, the floor's rate, and two bounds on the wall time of
``flowstate reproduce --all --runs R --jobs J``: the simulations alone at the rate
measured (``simulated``), and the same events at the floor's rate (``floor``: what the
catalogue would take if every controller, coupling manager and measurement of the
papers cost nothing beyond a CBR packet's, with J cores never idle and no Python).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=1, help="simulate seeds 1..K of every run key (default 1)")
    ap.add_argument("--runs", type=int, default=10, help="the catalogue's runs per point to project to (default 10)")
    ap.add_argument("--jobs", type=int, default=2, help="cores the catalogue runs on (default 2)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds of floor and catalogue (default 3)")
    args = ap.parse_args(argv)
    if min(args.seeds, args.runs, args.jobs, args.rounds) < 1:
        ap.error("--seeds, --runs, --jobs and --rounds must be >= 1")
    sys.path.insert(0, str(ROOT / "python"))
    import tomllib

    import bench_scale
    from flowstate import _native
    from flowstate.catalogue import catalogue, reproduce
    from flowstate.simulation import as_pooled_run

    def simulate(text: str, seed: int) -> tuple[int, float]:
        t0 = time.process_time()
        result = _native.simulate(text, "catalogue_floor", seed=seed, runs=1, threads=1)[0]
        return int(result["events"]), time.process_time() - t0

    texts: list[tuple[str, int]] = []
    seen: set = set()
    for exp in catalogue.load_all(catalogue.find_root()):
        for point in exp.points():
            for seed in range(1, args.seeds + 1):
                key = reproduce.run_key(point.scenario, seed)
                if key not in seen:
                    seen.add(key)
                    texts.append((_native.scenario_toml(as_pooled_run(point.scenario)), seed))
    floor_scenario = tomllib.loads(bench_scale.scenario("cbr", 10, 300))
    floor_text = _native.scenario_toml(as_pooled_run(floor_scenario))

    floor_rates: list[float] = []
    catalogue_rates: list[float] = []
    events = 0
    for r in range(args.rounds):
        ev, cpu = simulate(floor_text, 1)
        floor_rates.append(ev / cpu)
        events, total = 0, 0.0
        for text, seed in texts:
            ev, cpu = simulate(text, seed)
            events, total = events + ev, total + cpu
        catalogue_rates.append(events / total)
        print(
            f"round {r + 1}: floor {floor_rates[-1] / 1e6:.2f} M events/s; catalogue {len(texts)} runs,"
            f" {events / 1e6:.1f} M events, {total:.1f} CPU s, {catalogue_rates[-1] / 1e6:.2f} M events/s",
            flush=True,
        )
    ev, cpu = simulate(floor_text, 1)
    floor_rates.append(ev / cpu)
    floor = statistics.median(floor_rates)
    rate = statistics.median(catalogue_rates)
    projected = events * args.runs / args.seeds
    print(
        f"catalogue at --runs {args.runs}: {projected / 1e6:.0f} M events; rate {rate / 1e6:.2f} M events/s"
        f" (median of {args.rounds}), floor {floor / 1e6:.2f} M events/s (median of {len(floor_rates)});"
        f" catalogue / floor {rate / floor:.2f}"
    )
    print(
        f"on {args.jobs} cores: simulated {projected / rate / args.jobs:.0f} s,"
        f" floor {projected / floor / args.jobs:.0f} s;"
        f" under 60 s needs {projected / 60 / args.jobs / 1e6:.1f} M events/s a core"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
