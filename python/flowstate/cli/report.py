"""`flowstate report DIR`: the figures and report.html of any output folder.

DIR is the output of one reproduction (holds results.json), a folder of reproductions
(`reproduce --all`: DIR/<id>/results.json; every report is rebuilt, plus DIR/index.html),
or any other output folder: a `flowstate run` (one run or `--runs K`), a testbed or
browser run, a reproduction's point, a folder of such folders, a sweep. For those,
flowstate.report.folder_results writes a results.json without the paper's columns first.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Optional, TextIO

from flowstate import output_folder
from flowstate.cli.exit_status import ExitStatus
from flowstate.output_files import RESULTS_FILE
from flowstate.report import folder_results
from flowstate.report import report


def _is_reproduction(folder: Path) -> bool:
    path = folder / RESULTS_FILE
    if not path.is_file():
        return False
    try:
        return folder_results.results_for(folder).get("source") is None
    except report.ReportError:
        return True  # let report.build name what is wrong with it


def build(folder: Path) -> Path:
    """report.html of ``folder`` (a reproduction's, or any output folder's), drawn
    anew: the report and figures of an earlier build are removed first. ReportError for
    a folder whose command did not finish (flowstate.output_folder.incomplete)."""
    folder = Path(folder)
    unfinished = output_folder.incomplete(folder)
    if unfinished is not None:
        raise report.ReportError(unfinished)
    output_folder.remove_report_files(folder)
    if not _is_reproduction(folder):
        folder_results.write(folder)
    return report.build(folder)


def main(out_dir: str, *, stdout: Optional[TextIO] = None) -> list[Path]:
    """Rebuilds and returns the written pages; raises report.ReportError (one line)."""
    stdout = stdout if stdout is not None else sys.stdout
    folder = Path(out_dir)
    if not folder.is_dir():
        raise report.ReportError(f"{folder}: not found (an output folder of flowstate run, reproduce, testbed, "
                                 "browser or sweep)" if not folder.exists() else f"{folder}: not a folder")
    if not (folder / RESULTS_FILE).exists() and not folder_results.is_output_folder(folder):
        children = sorted(p.parent for p in folder.glob(f"*/{RESULTS_FILE}"))
        if children:
            written = [build(child) for child in children]
            written.append(report.build_index(folder))
            for path in written:
                print(f"wrote {path}", file=stdout)
            return written
    path = build(folder)
    print(f"wrote {path}", file=stdout)
    return [path]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "report",
        help="figures and report.html of any output folder (run, --runs batch, testbed, browser, reproduction, sweep)",
        description="Draw OUT_DIR/figures/*.png and write OUT_DIR/report.html. OUT_DIR is any output folder: "
        "a reproduction's (from its results.json; for a folder of reproductions: each one's report and "
        "OUT_DIR/index.html), or a 'flowstate run' (one run or --runs K), testbed, browser or sweep folder, "
        "for which a results.json without the paper's columns is written first.",
    )
    p.add_argument("out_dir", metavar="OUT_DIR", help="an output folder of flowstate")
    return p


def run(args: argparse.Namespace) -> ExitStatus:
    main(args.out_dir)
    return ExitStatus.OK
