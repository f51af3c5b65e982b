"""`flowstate compare DIR_A DIR_B ... [--out DIR]`: output folders side by side.

Each DIR is anything `flowstate report` reads (a run, a `--runs K` batch, a testbed or
browser run, a reproduction or one of its points, a sweep). The comparison is a
results.json of its own (every point of every folder, named by its folder;
flowstate.report.folder_results.compare_results) in the output folder (default
out/compare-A-vs-B), drawn by flowstate.report.report: the side-by-side table, time series
overlaid (one panel per flow, a line per folder: the mean over its runs with a min-max
band), bars of each flow's throughput, share, RTT and queuing delay. The table is
printed too. Each folder is labelled from its manifest.json (its coupling mechanism and
the ``--set`` values that differ between the folders), else by its name. Every input is
read and checked before anything is written; the output folder may not be one of the
inputs, inside one, or hold one.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Any, Optional, Sequence, TextIO

from flowstate.cli import argtypes
from flowstate.cli.exit_status import ExitStatus
from flowstate.errors import UsageError
from flowstate.report import folder_results
from flowstate.report import report


def table(results: dict) -> object:
    """The side-by-side table (rich): one row per flow and metric, a column per point;
    "± std" only for a point of several runs."""
    from rich.table import Table

    labels, rows = report.side_by_side_rows(results)
    several = int(results.get("runs") or 1) > 1
    out = Table(
        title="side by side" + (": mean ± std over the runs" if several else ""), title_justify="left"
    )
    out.add_column("flow")
    out.add_column("metric")
    for label in labels:
        out.add_column(label, justify="right", overflow="fold")
    previous = None
    for owner, metric, cells in rows:
        out.add_row(owner if owner != previous else "", metric, *(report.side_by_side_text(c) for c in cells))
        previous = owner
    return out


def check_out(out_dir: Path, folders: Sequence[Path]) -> None:
    """The output folder must be none of the compared folders, nor inside or around one."""
    out = out_dir.resolve()
    for folder in folders:
        source = folder.resolve()
        if out == source or source in out.parents:
            raise UsageError(f"--out {out_dir}: is or is inside the compared folder {folder}; "
                             "give an output folder outside the compared ones")
        if out in source.parents:
            raise UsageError(f"--out {out_dir}: holds the compared folder {folder}; "
                             "give an output folder outside the compared ones")
        if out.exists() and not out.is_dir():
            raise UsageError(f"--out {out_dir}: not a folder; give a folder to write the comparison into")


def main(dirs: Sequence[str], *, out: Optional[str] = None, stdout: Optional[TextIO] = None) -> Path:
    """Writes results.json and report.html of the comparison; returns the report's path.
    Every folder is read and checked before anything is written; ReportError (one line)
    for a folder that cannot be read, UsageError for an output folder among the inputs."""
    stdout = stdout if stdout is not None else sys.stdout
    from rich.console import Console

    folders = [Path(d) for d in dirs]
    for folder in folders:
        if not folder.is_dir():
            raise report.ReportError(f"{folder}: not found" if not folder.exists() else f"{folder}: not a folder")
    out_dir = Path(out) if out is not None else folder_results.compare_out(folders)
    check_out(out_dir, folders)
    results = folder_results.compare_results(folders, out_dir)
    prepared = report.prepare(out_dir, results, source="the compared folders (" + ", ".join(map(str, folders)) + ")")
    existed = out_dir.exists()
    try:
        path = report.write(prepared)
    except BaseException:
        if not existed:
            shutil.rmtree(out_dir, ignore_errors=True)
        raise
    console = Console(file=stdout, width=None if stdout.isatty() else 160)
    console.print(table(prepared.results))
    console.print(f"report: {path}", highlight=False, soft_wrap=True)
    return path


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "compare",
        help="output folders side by side: table, overlaid time series, bars per flow",
        description="Compare output folders (anything 'flowstate report' reads): a side-by-side table of every "
        "flow's throughput, share, RTT, queuing delay and loss and the aggregate, time series overlaid (one "
        "panel per flow, one line per folder: the mean over its runs with a min-max band), bars per flow, in "
        "OUT/results.json and OUT/report.html. E.g. two 'flowstate run --set' variants of one scenario.",
    )
    p.add_argument("dirs", nargs="+", metavar="DIR", help="output folders (two or more)")
    p.add_argument("--out", type=argtypes.out_dir, help="output folder (default: out/compare-A-vs-B)")
    return p


def run(args: argparse.Namespace) -> ExitStatus:
    if len(args.dirs) < 2:
        raise UsageError("compare: give at least two output folders")
    main(args.dirs, out=args.out)
    return ExitStatus.OK
