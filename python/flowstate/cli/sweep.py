"""`flowstate sweep FILE`: a parameter grid over a scenario (docs/SWEEPS.md).

::

    flowstate sweep scenarios/sweeps/p002-fig8-ku-kd.toml --workers 2
    flowstate sweep SCENARIO.toml --set link.capacity=1Mbps,2Mbps \\
        --set "flows.gcc.overrides.k_up=logspace(1e-5,0.1,6)" --seeds 1-5 --out DIR
    flowstate sweep SCENARIO.toml --set video_prio:flows.video.priority=1,2 \\
        --set data_prio:flows.data.priority=1,2

FILE is a sweep file (``scenario = "..."`` plus axes) or a scenario file. ``--set``
adds an axis (or replaces the values of the file's axis on the same path), named
``NAME`` with ``NAME:PATH=...``; ``--unset PATH`` removes a key of the scenario before
the axes apply; ``--seeds``,
``--metric`` and ``--objective`` override / extend the file.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Optional, TextIO

from flowstate import manifest
from flowstate.cli import argtypes
from flowstate.cli.exit_status import ExitStatus
from flowstate.output_folder import Claim, claim

DEFAULT_OUT_ROOT = Path("out") / "sweeps"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``sweep`` subcommand on the ``flowstate`` subparsers ``sub``."""
    p = sub.add_parser(
        "sweep",
        help="run a parameter grid (axes x seeds) over a scenario, resumable",
        description="Run every point of a grid over a scenario for every seed, on a local process pool "
        "(default) or Ray; with --resume, finished points in DIR are reused. Writes DIR/results.csv, DIR/summary.csv, "
        "DIR/sweep.json, DIR/points/ and DIR/plots/ (with matplotlib). See docs/SWEEPS.md.",
    )
    p.add_argument("file", metavar="FILE.toml", help="a sweep file (scenario = ..., [[axes]]) or a scenario file")
    p.add_argument(
        "--set",
        dest="axes",
        action="append",
        default=[],
        metavar="[NAME:]PATH=V1,V2",
        help="an axis: a scenario path and its values (TOML values: numbers, booleans, strings, "
        "[arrays], {inline tables}; other text is a string), or PATH=logspace(FROM,TO,NUM) / linspace(...); "
        "NAME: names the axis in tables, CSV columns and plots (default: the path's last key) "
        "(repeatable; replaces the values of the file's axis on the same path, else adds an axis)",
    )
    p.add_argument(
        "--unset",
        action="append",
        default=[],
        metavar="PATH",
        help="remove this key of the scenario before the axes apply (repeatable; "
        "e.g. --unset link.capacity --set 'link.capacity_schedule=[{at=\"0s\",rate=\"1Mbps\"}]')",
    )
    p.add_argument("--seeds", metavar="SEEDS", help='seeds: "1-10", "1,3,5-7" or one number')
    p.add_argument("--metric", action="append", default=[], metavar="PATH", help="a metric path (repeatable)")
    p.add_argument("--objective", metavar="PATH", help="metric (or derived name) to rank the points by")
    p.add_argument("--minimize", action="store_true", help="the best points have the smallest objective")
    p.add_argument("--out", type=argtypes.out_dir, metavar="DIR", help="output folder (default: out/sweeps/<sweep name>/)")
    p.add_argument("--workers", type=argtypes.positive, metavar="N", help="parallel tasks (default: one per core)")
    p.add_argument("--executor", choices=["local", "ray"], default="local", help="local process pool (default) or Ray")
    p.add_argument("--ray-address", metavar="ADDR", help="Ray cluster address (default: start a local Ray)")
    p.add_argument("--fresh", action="store_true", help="the same as --force")
    argtypes.add_force_option(p)
    argtypes.add_resume_option(p, "the finished tasks")
    p.add_argument("--top", type=argtypes.positive, default=5, metavar="K", help="best points to print (default 5)")
    p.add_argument("--no-plots", action="store_true", help="do not draw the PNG figures")
    return p


def build_spec(args: argparse.Namespace) -> Any:
    """The sweep of FILE with the flags applied."""
    from flowstate.overrides import PathError, remove_path
    from flowstate.sweep.spec import SweepError, finish, load_any, parse_seeds, parse_set_flag

    spec = load_any(args.file)
    for path in args.unset:
        try:
            remove_path(spec.scenario, path)
        except PathError as e:
            raise SweepError(f"{spec.source}: --unset {e}") from None
    for text in args.axes:  # a flag on a path of the file replaces that axis's values
        axis = parse_set_flag(text)
        same = [i for i, a in enumerate(spec.axes) if a.key == axis.key]
        if same:
            old = spec.axes[same[0]]
            if not axis.named:  # the file's name and label, unless the flag names it
                axis = replace(axis, name=old.name, label=old.label, named=old.named)
            spec.axes[same[0]] = axis
        else:
            spec.axes.append(axis)
    if args.seeds is not None:
        spec.seeds = parse_seeds(args.seeds, "--seeds")
    if args.metric:
        spec.metrics = list(dict.fromkeys([*spec.metrics, *args.metric]))
    if args.objective is not None:
        spec.objective = args.objective
    if args.minimize:
        spec.goal = "min"
    return finish(spec)


def out_folder(name: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "sweep"
    return DEFAULT_OUT_ROOT / safe


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _workers(n: Optional[int]) -> str:
    return "" if n is None else f" ({n} worker{'s' if n > 1 else ''})"


def _num(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.4g}"


def best_table(result: Any) -> Any:
    from rich.table import Table

    spec = result.spec
    goal = "largest" if spec.goal == "max" else "smallest"
    table = Table(
        title=f"best points of {spec.name} by {spec.objective} ({goal} mean over {_count(len(spec.seeds), 'seed')})",
        title_justify="left",
    )
    table.add_column("#", justify="right")
    for a in spec.axes:
        table.add_column(a.name, justify="right")
    table.add_column(f"{spec.objective}\nmean ± std", justify="right")
    others = [m for m in spec.metrics if m != spec.objective]
    for m in others:
        table.add_column(m, justify="right")
    from flowstate.sweep.spec import format_value

    for rank, (point, _runs, st) in enumerate(result.best, start=1):
        o = st[spec.objective]
        table.add_row(
            str(rank),
            *(format_value(point.values[a.name]) for a in spec.axes),
            f"{_num(o['mean'])} ± {_num(o['std'])}",
            *(_num(st[m]["mean"]) for m in others),
        )
    return table


def main(args: argparse.Namespace, stdout: Optional[TextIO] = None, stderr: Optional[TextIO] = None) -> Any:
    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    from rich.console import Console

    from flowstate.sweep.executors import make_executor
    from flowstate.cli.progress_bar import progress_bar
    from flowstate.sweep.run import run_sweep

    spec = build_spec(args)
    out = Path(args.out) if args.out is not None else out_folder(spec.name)
    resumed = claim(out, force=args.force or args.fresh, resume=args.resume, resumable=True) is Claim.RESUMED
    executor = make_executor(args.executor, args.workers, args.ray_address)
    console = Console(file=stdout, width=None if stdout.isatty() else 160)
    n_points = 1
    for a in spec.axes:
        n_points *= len(a.values)
    n_tasks = n_points * len(spec.seeds)
    print(
        f"sweep {spec.name}: {_count(n_points, 'point')} x {_count(len(spec.seeds), 'seed')} = "
        f"{_count(n_tasks, 'task')} "
        f"on {executor.name}{_workers(args.workers)}, into {out}",
        file=stderr,
    )
    if resumed:
        _remove_derived_files(out)
    t0 = time.monotonic()
    command = getattr(args, "command_line", None)
    try:
        with manifest.recording(
            out, kind="sweep", command=command, seeds=spec.seeds, scenario=spec.scenario, sets=args.axes
        ):
            with progress_bar(stderr, "sweeping") as bar:
                result = run_sweep(spec, out, executor, progress=bar, top=args.top, command=command)
            files = list(result.files)
            if not args.no_plots:
                from flowstate.sweep.plots import write_plots

                plots = write_plots(result)
                if plots:
                    files.append(plots[0].parent)
    except KeyboardInterrupt:
        from flowstate.output_files import SWEEP_POINTS_DIR

        stored = len(list((out / SWEEP_POINTS_DIR).glob("*.json")))
        raise KeyboardInterrupt(
            f"flowstate: interrupted ({stored} finished tasks are stored in {out}); to complete it: "
            f"{resume_command(args, out)}"
        ) from None
    changed = " (the spec changed since the last run in this folder: reused the matching tasks)"
    console.print(
        f"{len(result.rows)} tasks: {result.reused} reused, {result.computed} computed in "
        f"{time.monotonic() - t0:.1f} s{changed if result.spec_changed else ''}",
        highlight=False,
        soft_wrap=True,
    )
    if result.best:
        console.print(best_table(result))
    console.print(f"wrote {', '.join(str(f) for f in files)}", highlight=False, soft_wrap=True)
    return result


def _remove_derived_files(out: Path) -> None:
    """Before a resumed sweep: the tables, plots and report an earlier run drew from
    its tasks (the sweep redraws them from the current spec's tasks, so none of a
    metric or point it no longer has survives); the tasks and sweep.json stay."""
    import shutil

    from flowstate.output_files import SWEEP_PLOTS_DIR, SWEEP_RESULTS_FILE, SWEEP_SUMMARY_FILE
    from flowstate.output_folder import remove_report_files

    remove_report_files(out, keep_results=False)
    for name in (SWEEP_RESULTS_FILE, SWEEP_SUMMARY_FILE):
        (out / name).unlink(missing_ok=True)
    if (out / SWEEP_PLOTS_DIR).is_dir():
        shutil.rmtree(out / SWEEP_PLOTS_DIR)


def resume_command(args: argparse.Namespace, out: Path) -> str:
    """The command that finishes this sweep: its own, without --force / --fresh, with
    --out and --resume."""
    import shlex

    argv = list(getattr(args, "command_line", None) or ["flowstate", "sweep", args.file])
    argv = [a for a in argv if a not in ("--force", "--fresh", "--resume")]
    if args.out is None:
        argv += ["--out", str(out)]
    return shlex.join([*argv, "--resume"])


def run(args: argparse.Namespace) -> ExitStatus:
    main(args)
    return ExitStatus.OK
