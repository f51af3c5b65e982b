#!/usr/bin/env python3
"""Scaling benchmark of the simulator: events/s and peak memory from 10 to 10,000 flows.

    python tools/bench_scale.py [--flows 10,100,1000,10000] [--mixes tcp,gcc-sctp,cbr]
        [--duration 10] [--repeat 3] [--cli] [--json OUT.json]

Each point is a dumbbell of N flows at 1 Mbit/s each (capacity N Mbit/s, one-way delay
20 ms, queue 100 ms at capacity, seed 1): ``tcp`` is N TCP NewReno flows, ``gcc-sctp``
N/2 GCC (chromium preset) video flows and N/2 SCTP flows, no coupling; ``cbr`` (not in
the default mixes) is N constant-rate flows at 0.9 Mbit/s, which send no feedback and
keep no state per packet: the engine's own cost per event (links, lanes, slabs,
metrics) without an endpoint's. Every
measurement runs in a fresh subprocess so its peak RSS (``ru_maxrss``) is its own:

- ``engine``: the Rust example binary ``run_scenario`` (the engine alone: its wall time
  of ``flowstate_sim::run``, printed on stderr, and the process's CPU time; peak RSS of
  the whole process);
- ``python``: ``flowstate.run(path)`` in a Python process, timed around the call (wall
  and the process's CPU time), with
  the Python side broken down: ``_native.simulate`` (parse + engine + results to Python
  values, GIL released during the run), then ``RunResult`` (``json.loads`` of the
  summary, combining), then ``.timeseries`` (the pandas DataFrame, built lazily, not
  part of ``flowstate.run``); peak RSS of the process minus its RSS after the imports;
- ``cli`` (with ``--cli``): ``flowstate run SCENARIO --out DIR --force`` end to end (Python
  start, imports, the run, the table, summary.json and timeseries.csv).

Reported: the median over ``--repeat`` repetitions (the machine is shared: medians and
ratios, and the load average at the start and the end). Needs the release extension
and the engine binary built the same way: ``bash scripts/build_native.sh --example``
(profile-guided; the binary is ``target/pgo/release/examples/run_scenario``, the default
``--engine`` when it exists) or, for a plain release build, ``FLOWSTATE_PGO=0 bash
scripts/build_native.sh --example`` (``target/release/examples/run_scenario``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The engine binary as scripts/build_native.sh --example builds it: profile-guided, or plain.
PGO_ENGINE = ROOT / "target" / "pgo" / "release" / "examples" / "run_scenario"
PLAIN_ENGINE = ROOT / "target" / "release" / "examples" / "run_scenario"

CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
import flowstate
from flowstate import _native
from flowstate.simulation import RunResult, load_scenario
import pandas  # noqa: F401  (imported up front so its memory is in the baseline)
base_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
imports_s = time.perf_counter() - t0
path = sys.argv[1]
t, c = time.perf_counter(), time.process_time()
result = flowstate.run(path)
run_s, run_cpu_s = time.perf_counter() - t, time.process_time() - c
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
# The same run again, split into its parts.
text, file = load_scenario(path)
t = time.perf_counter()
raw = _native.simulate(text, file, seed=None, runs=1, threads=None)
native_s = time.perf_counter() - t
t = time.perf_counter()
rr = RunResult(raw)
wrap_s = time.perf_counter() - t
t = time.perf_counter()
frame = rr.timeseries
frame_s = time.perf_counter() - t
print(json.dumps({
    "events": result.summary["events"], "run_s": run_s, "run_cpu_s": run_cpu_s, "native_s": native_s,
    "wrap_s": wrap_s, "frame_s": frame_s, "rows": len(frame), "imports_s": imports_s,
    "base_kb": base_kb, "peak_kb": peak_kb,
}))
"""


def scenario(
    mix: str, n: int, duration: float, series: bool = True, trace_hash: bool = True, recorder: str = "auto"
) -> str:
    head = (
        f'name = "{mix}-{n}"\nduration = "{duration:g}s"\nseed = 1\n'
        f'[link]\ncapacity = "{n}Mbps"\ndelay = "20ms"\nqueue = "100ms"\n'
    )
    if not series or not trace_hash or recorder != "auto":
        head += "[measure]\n"
    if recorder != "auto":
        head += f'recorder_thread = "{recorder}"\n'
    if not series:
        head += "series = false\n"
    if not trace_hash:
        head += "trace_hash = false\n"
    if mix == "tcp":
        return head + f'[[flows]]\nname = "tcp"\nkind = "tcp-newreno"\ncount = {n}\n'
    if mix == "gcc-sctp":
        half = max(n // 2, 1)
        return head + (
            '[coupling]\nmechanism = "none"\n'
            f'[[flows]]\nname = "gcc"\nkind = "gcc"\npreset = "chromium"\ncount = {half}\n'
            f'[[flows]]\nname = "sctp"\nkind = "sctp"\ncount = {n - half}\n'
        )
    if mix == "cbr":
        return head + (
            f'[[flows]]\nname = "cbr"\nkind = "cbr"\ncount = {n}\n'
            '[flows.overrides]\nrate = "0.9Mbps"\n'
        )
    raise SystemExit(f"unknown mix {mix!r} (tcp, gcc-sctp, cbr)")


def run_engine(engine: Path, path: Path) -> dict[str, float]:
    proc = subprocess.Popen([str(engine), str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # The engine prints one line on stderr: read it after the exit (it cannot fill the pipe).
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read() if proc.stderr else ""
    if status != 0:
        raise SystemExit(f"run_scenario failed on {path}: {err.strip()}")
    m = re.search(r"wall ([0-9.]+) s, (\d+) events", err)
    if not m:
        raise SystemExit(f"run_scenario printed no timing: {err.strip()}")
    return {
        "wall_s": float(m.group(1)),
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "events": int(m.group(2)),
        "peak_kb": usage.ru_maxrss,
    }


def run_python(path: Path) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"flowstate.run failed on {path}: {out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_cli(path: Path, work: Path) -> dict[str, float]:
    exe = Path(sys.executable).with_name("flowstate")
    t = time.perf_counter()
    proc = subprocess.Popen(
        [str(exe), "run", str(path), "--out", str(work / "cli-out"), "--force"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    if status != 0:
        raise SystemExit(f"flowstate run failed on {path}: {(proc.stderr.read() if proc.stderr else '').strip()}")
    return {"wall_s": wall, "peak_kb": usage.ru_maxrss}


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flows", default="10,100,1000,10000")
    ap.add_argument("--mixes", default="tcp,gcc-sctp")
    ap.add_argument("--duration", type=float, default=10.0, help="simulated seconds per run")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cli", action="store_true", help="also time `flowstate run` end to end")
    ap.add_argument("--json", type=Path, help="write every measurement here")
    ap.add_argument(
        "--no-series", action="store_true", help="runs keep no time series ([measure] series = false): the summary only"
    )
    ap.add_argument(
        "--no-trace-hash", action="store_true", help="runs compute no trace hash ([measure] trace_hash = false)"
    )
    ap.add_argument(
        "--recorder-thread",
        choices=("auto", "on", "off"),
        default="auto",
        help="[measure] recorder_thread of the runs (default auto: the helper thread from 256 flows on)",
    )
    ap.add_argument(
        "--engine",
        type=Path,
        help=f"the engine binary (default: {PGO_ENGINE.relative_to(ROOT)} when it exists, else {PLAIN_ENGINE.relative_to(ROOT)})",
    )
    args = ap.parse_args(argv)
    engine = args.engine or (PGO_ENGINE if PGO_ENGINE.exists() else PLAIN_ENGINE)
    if not engine.exists():
        ap.error(f"{engine} is missing: bash scripts/build_native.sh --example")
    print(f"engine binary: {engine}")
    flows = [int(x) for x in args.flows.split(",")]
    mixes = args.mixes.split(",")
    load0 = os.getloadavg()
    rows = []
    print(
        "| mix | flows | events | engine M ev/s (wall / CPU) | python M ev/s (wall / CPU) | python / engine (wall / CPU) | "
        "simulate s | RunResult s | DataFrame s | engine peak MB | python peak MB (over imports) |"
        + (" cli s |" if args.cli else "")
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|" + ("---|" if args.cli else ""))
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        work = Path(tmp)
        for mix in mixes:
            for n in flows:
                path = work / f"{mix}-{n}.toml"
                path.write_text(scenario(
                        mix,
                        n,
                        args.duration,
                        series=not args.no_series,
                        trace_hash=not args.no_trace_hash,
                        recorder=args.recorder_thread,
                    ))
                eng = [run_engine(engine, path) for _ in range(args.repeat)]
                py = [run_python(path) for _ in range(args.repeat)]
                cli = [run_cli(path, work) for _ in range(args.repeat)] if args.cli else []
                events = eng[0]["events"]
                e_rate = med([events / e["wall_s"] for e in eng]) / 1e6
                p_rate = med([events / p["run_s"] for p in py]) / 1e6
                # CPU time: the engine process's whole CPU time (parse, set-up, run,
                # summary); the Python process's CPU time during flowstate.run (all
                # threads). Less disturbed by other jobs than the wall time.
                e_cpu = med([events / e["cpu_s"] for e in eng]) / 1e6
                p_cpu = med([events / p["run_cpu_s"] for p in py]) / 1e6
                row = {
                    "mix": mix,
                    "flows": n,
                    "events": events,
                    "engine": eng,
                    "python": py,
                    "cli": cli,
                }
                rows.append(row)
                line = (
                    f"| {mix} | {n} | {events:,} | {e_rate:.2f} / {e_cpu:.2f} | {p_rate:.2f} / {p_cpu:.2f} | "
                    f"{p_rate / e_rate:.2f} / {p_cpu / e_cpu:.2f} | "
                    f"{med([p['native_s'] for p in py]):.3f} | {med([p['wrap_s'] for p in py]):.3f} | "
                    f"{med([p['frame_s'] for p in py]):.3f} | {med([e['peak_kb'] for e in eng]) / 1024:.0f} | "
                    f"{med([(p['peak_kb'] - p['base_kb']) for p in py]) / 1024:.0f} |"
                )
                if args.cli:
                    line += f" {med([c['wall_s'] for c in cli]):.2f} |"
                print(line, flush=True)
    load1 = os.getloadavg()
    print(f"\nload average (1, 5, 15 min) at the start {load0}, at the end {load1}; {os.cpu_count()} CPUs")
    if args.json:
        args.json.write_text(json.dumps({"load_start": load0, "load_end": load1, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
