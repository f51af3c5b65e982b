"""`flowstate compare DIR_A DIR_B ... [--out DIR]`: output folders side by side.

Each DIR is anything `flowstate report` reads (a run, a `--runs K` batch, a testbed or
browser run, a reproduction or one of its points, a sweep). The comparison is a
results.json of its own (every point of every folder, named by its folder;
flowstate.report.folder_results.compare_results) in the output folder (default
out/compare-A-vs-B), drawn by flowstate.report.report: the side-by-side table, time series
overlaid (one panel per flow, a line per folder: the mean over its runs with a min-max
band), bars of each flow's throughput, share, RTT and queuing delay. The table is
printed too.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Optional, Sequence, TextIO

from flowstate.cli import argtypes
from flowstate.cli.exit_status import ExitStatus
from flowstate.errors import UsageError
from flowstate.output_files import RESULTS_FILE
from flowstate.report import folder_results
from flowstate.report import report


def table(results: dict) -> object:
    """The side-by-side table (rich): one row per flow and metric, a column per point."""
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
        text = []
        for c in cells:
            if c is None:
                text.append("-")
            else:
                text.append(report.fmt(c["mean"]) + (f" ± {report.fmt(c['std'], c['mean'])}" if several else ""))
        out.add_row(owner if owner != previous else "", metric, *text)
        previous = owner
    return out


def main(dirs: Sequence[str], *, out: Optional[str] = None, stdout: Optional[TextIO] = None) -> Path:
    """Writes results.json and report.html of the comparison; returns the report's path.
    ReportError (one line) for a folder that cannot be read."""
    stdout = stdout if stdout is not None else sys.stdout
    from rich.console import Console

    folders = [Path(d) for d in dirs]
    for folder in folders:
        if not folder.is_dir():
            raise report.ReportError(f"{folder}: not found" if not folder.exists() else f"{folder}: not a folder")
    out_dir = Path(out) if out is not None else folder_results.compare_out(folders)
    results = folder_results.compare_results(folders, out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / RESULTS_FILE).write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n",
                                               encoding="utf-8")
    path = report.build(out_dir)
    console = Console(file=stdout, width=None if stdout.isatty() else 160)
    console.print(table(results))
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
