"""Paired before/after CPU time of two builds of the engine on the same scenarios.

    cargo build --release -p flowstate-sim --example run_scenario   # once per build
    cp target/release/examples/run_scenario /tmp/before             # ... then the other
    # (the profile-guided binary, as the extension is built: bash scripts/build_native.sh
    # --example, then target/pgo/release/examples/run_scenario; compare like with like)
    .venv/bin/python tools/bench_pair.py /tmp/before /tmp/after --repeat 3

The scenarios: the first point of the heaviest catalogue entries (what dominates
`flowstate reproduce --all`) and the scaling benchmark's 1,000-flow mixes
(tools/bench_scale.py). Each build runs every scenario ``--repeat`` times, the two
builds interleaved (so both see the same load); reported: the median CPU seconds (user
+ system of the child process, not wall time: the machine is shared) of each, their
ratio, and whether both builds give the same trace hash (the run's fingerprint; the
example prints it to stderr).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENTRIES = [
    ("p004-rtt", -1),
    ("p002-fig8", 0),
    ("p004-qlen", 0),
    ("p004-algo1", 0),
    ("p002-table4", 0),
    ("p000-fig2-webapi", 0),
    ("p001-fig8", 0),
]


def scenarios(folder: Path) -> list[Path]:
    import bench_scale  # tools/, this script's folder

    from flowstate import _native
    from flowstate.catalogue import catalogue

    root = catalogue.find_root()
    out = []
    for entry, index in ENTRIES:
        point = catalogue.load_id(root, entry).points()[index]
        path = folder / f"{entry}.toml"
        path.write_text(_native.scenario_toml(point.scenario), encoding="utf-8")
        out.append(path)
    for mix in ("tcp", "gcc-sctp"):
        path = folder / f"{mix}-1000.toml"
        path.write_text(bench_scale.scenario(mix, 1000, 10), encoding="utf-8")
        out.append(path)
    return out


def run(binary: str, scenario: Path) -> tuple[float, str]:
    p = subprocess.Popen([binary, str(scenario)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    err = p.stderr.read().decode() if p.stderr else ""
    if status != 0:
        raise SystemExit(f"{binary} {scenario}: exit status {status}: {err.strip()}")
    m = re.search(r"trace hash ([0-9a-f]+)", err)
    return usage.ru_utime + usage.ru_stime, m.group(1) if m else "?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    totals = [0.0, 0.0]
    with tempfile.TemporaryDirectory() as tmp:
        for scenario in scenarios(Path(tmp)):
            times: tuple[list[float], list[float]] = ([], [])
            hashes: tuple[set[str], set[str]] = (set(), set())
            for _ in range(args.repeat):
                for k, binary in enumerate((args.before, args.after)):
                    t, h = run(binary, scenario)
                    times[k].append(t)
                    hashes[k].add(h)
            a, b = (statistics.median(t) for t in times)
            totals[0] += a
            totals[1] += b
            same = "same" if hashes[0] == hashes[1] and len(hashes[0]) == 1 else "DIFFERENT"
            print(f"{scenario.stem:18s} before {a * 1e3:8.1f} ms  after {b * 1e3:8.1f} ms  after/before {b / a:5.3f}  trace hash {same}", flush=True)
    print(f"{'total':18s} before {totals[0] * 1e3:8.1f} ms  after {totals[1] * 1e3:8.1f} ms  after/before {totals[1] / totals[0]:5.3f}")


if __name__ == "__main__":
    main()
