#!/usr/bin/env python3
"""The trace hash of every run of the whole catalogue, to prove a refactor changed nothing.

    python tools/catalogue_hashes.py --out hashes.json [--runs K] [--short]
        [--recorder-thread auto|on|off]
    python tools/catalogue_hashes.py --compare before.json after.json

A trace hash digests every event of a simulation (its time, kind and packet), so two
runs with equal hashes behaved identically, event for event. The first form simulates
every point of every catalogue entry for seeds 1..K and writes
``{"<entry>/<point>/seed=<s>": hash}``; the second prints how many hashes two such files
share and lists those that differ (exit status 1 if any differs or is missing).
``--recorder-thread on`` runs every point with its trace hash and window histograms
computed on the recorder thread (``[measure] recorder_thread``; the catalogue's runs
are below its automatic threshold), to prove the thread changes no hash.
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def collect(runs: int, short: bool, jobs: int, recorder: str = "auto") -> dict[str, int]:
    sys.path.insert(0, str(ROOT / "python"))
    from flowstate import _native
    from flowstate.catalogue import catalogue

    root = catalogue.find_root()
    work = []
    for exp in catalogue.load_all(root):
        for point in exp.points(short=short):
            scenario = point.scenario
            if recorder != "auto":
                measure = {**scenario.get("measure", {}), "recorder_thread": recorder}
                scenario = {**scenario, "measure": measure}
            text = _native.scenario_toml(scenario)
            for seed in range(1, runs + 1):
                work.append((f"{exp.id}/{point.name}/seed={seed}", text, f"{exp.file}: point {point.name}", seed))

    def one(item: tuple[str, str, str, int]) -> tuple[str, int]:
        key, text, file, seed = item
        return key, int(_native.simulate(text, file, seed=seed, runs=1, threads=1)[0]["trace_hash"])

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return dict(sorted(pool.map(one, work)))


def compare(before: Path, after: Path) -> int:
    a = json.loads(before.read_text())
    b = json.loads(after.read_text())
    same = sum(1 for k in a if k in b and a[k] == b[k])
    differ = sorted(k for k in a if k in b and a[k] != b[k])
    missing = sorted(set(a) ^ set(b))
    new = sum(1 for k in b if k not in a)
    print(
        f"{same} of {len(a)} runs have the same trace hash; {len(differ)} differ; {len(missing)} in only one file"
        f" ({new} only in AFTER, e.g. new points; {len(missing) - new} only in BEFORE)"
    )
    for k in differ[:50]:
        print(f"  differs: {k}")
    for k in missing[:50]:
        print(f"  only in one: {k}")
    return 0 if not differ and not missing else 1


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="write the hashes here (JSON)")
    ap.add_argument("--runs", type=int, default=2, help="seeds 1..K per point (default 2)")
    ap.add_argument("--short", action="store_true", help="the entries' short versions")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument(
        "--recorder-thread",
        choices=("auto", "on", "off"),
        default="auto",
        help="[measure] recorder_thread of every point (default: the points' own, auto)",
    )
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        ap.error("give --out FILE or --compare BEFORE AFTER")
    hashes = collect(args.runs, args.short, args.jobs, args.recorder_thread)
    args.out.write_text(json.dumps(hashes, indent=1) + "\n")
    print(f"{len(hashes)} trace hashes written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
