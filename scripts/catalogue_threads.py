"""The whole catalogue's CPU split between the simulations and the front end's main thread.

Runs ``flowstate reproduce --all --runs RUNS --jobs 2 --no-report --out OUT`` in this
process and prints one line: the main thread's CPU (``time.thread_time()``: collecting
the runs and writing every point's files), the wall time, the process's user and system
CPU and its peak RSS. ``--old-writers`` switches the front end's writers back to the
Python paths they replaced (``csv.writer`` for the series, ``json.dumps(indent=2)``,
``derived.Series``), for a paired before/after on the same code (docs/BENCHMARKS.md,
"Eighth pass"). Usage:

    .venv/bin/python scripts/catalogue_threads.py [--old-writers] [--runs 10] --out /tmp/cat
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sys
import time
from typing import Any


def use_old_writers() -> None:
    """The four Python paths of before the eighth pass (also the fallbacks)."""
    from flowstate import _native
    import flowstate.catalogue.derived as derived
    import flowstate.catalogue.reproduce as reproduce
    import flowstate.simulation as simulation

    native_simulate = _native.simulate

    def simulate(*args: Any, series_text: bool = False, **kwargs: Any) -> Any:
        return native_simulate(*args, **kwargs)

    class Native:
        scenario_toml = staticmethod(_native.scenario_toml)

    Native.simulate = staticmethod(simulate)  # type: ignore[attr-defined]
    reproduce._native = Native  # type: ignore[assignment]

    def dumps(document: Any, allow_nan: bool = True) -> str:
        return json.dumps(document, indent=2, allow_nan=allow_nan)

    simulation.dumps_indent2 = dumps  # type: ignore[assignment]
    reproduce.dumps_indent2 = dumps  # type: ignore[assignment]
    derived.Series.from_simulator = classmethod(lambda cls, columns, summary=None: cls(columns, summary))  # type: ignore[assignment]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="output folder (removed first)")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--old-writers", action="store_true", help="the Python writers of before the eighth pass")
    args = parser.parse_args(argv)
    if args.old_writers:
        use_old_writers()
    from flowstate.cli.main import main as flowstate_main

    shutil.rmtree(args.out, ignore_errors=True)
    cpu0, wall0 = time.thread_time(), time.perf_counter()
    status = flowstate_main(["reproduce", "--all", "--runs", str(args.runs), "--jobs", "2", "--no-report", "--out", args.out])
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(
        f"{'old writers' if args.old_writers else 'writers'}: main thread {time.thread_time() - cpu0:.1f} s CPU, "
        f"wall {time.perf_counter() - wall0:.1f} s, user {usage.ru_utime:.1f} s, system {usage.ru_stime:.1f} s, "
        f"peak RSS {usage.ru_maxrss / 1024:.0f} MB"
    )
    return int(status or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
