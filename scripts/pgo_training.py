#!/usr/bin/env python3
"""The training workload of the profile-guided build (scripts/build_native.sh).

    python scripts/pgo_training.py                 # through the instrumented extension
    python scripts/pgo_training.py --engine BIN    # through an instrumented run_scenario

Runs what the profile should be made of: the whole catalogue at one run per point (every
endpoint, coupling mechanism and preset the catalogue uses) and a 1,000-flow TCP run and
GCC+SCTP run of the scaling benchmark (tools/bench_scale.py: the many-flow paths, the
trace hash). Without ``--engine`` it goes through the installed (instrumented) extension
and the same front-end paths as `flowstate reproduce` and `flowstate.run`; with it, each
point's scenario file goes to the engine binary (the example `run_scenario`, whose
functions are a separate build's and need their own counts). What it writes goes to a
temporary folder, removed at the end; the counts go where the instrumented build was told
(`-Cprofile-generate`).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MIXES = ("tcp", "gcc-sctp")


def scale_scenarios(folder: Path) -> list[Path]:
    sys.path.insert(0, str(ROOT / "tools"))  # the scaling benchmark's scenarios
    import bench_scale

    out = []
    for mix in MIXES:
        path = folder / f"{mix}-1000.toml"
        path.write_text(bench_scale.scenario(mix, 1000, 3), encoding="utf-8")
        out.append(path)
    return out


def through_python(work: Path) -> int:
    import flowstate
    from flowstate.cli.main import main as cli_main

    status = cli_main(["reproduce", "--all", "--runs", "1", "--jobs", "2", "--no-report", "--out", str(work / "catalogue")])
    if status:
        print(f"pgo_training: `flowstate reproduce --all` exited with status {status}", file=sys.stderr)
        return 1
    for path in scale_scenarios(work):
        flowstate.run(path)
    return 0


def through_engine(engine: Path, work: Path) -> int:
    from flowstate import _native
    from flowstate.catalogue import catalogue

    root = catalogue.find_root()
    paths = []
    for exp in catalogue.load_all(root):
        for i, point in enumerate(exp.points()):
            path = work / f"{exp.id}--{i:03d}.toml"
            path.write_text(_native.scenario_toml(point.scenario), encoding="utf-8")
            paths.append(path)
    paths += scale_scenarios(work)

    def one(path: Path) -> str | None:
        p = subprocess.run([str(engine), str(path)], capture_output=True, text=True, check=False)
        return None if p.returncode == 0 else f"{path.name}: {p.stderr.strip()[-300:]}"

    with ThreadPoolExecutor(max_workers=2) as pool:
        failed = [f for f in pool.map(one, paths) if f]
    for f in failed:
        print(f"pgo_training: {engine.name} failed on {f}", file=sys.stderr)
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", type=Path, help="an instrumented run_scenario binary to train instead of the extension")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="flowstate-pgo-") as tmp:
        work = Path(tmp)
        return through_engine(args.engine, work) if args.engine else through_python(work)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
