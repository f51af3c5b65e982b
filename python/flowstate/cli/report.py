"""`flowstate report DIR`: the figures and report.html of any output folder.

DIR is the output of one reproduction (holds results.json), a folder of reproductions
(`reproduce --all`: DIR/<id>/results.json; every report is rebuilt, plus DIR/index.html),
or any other output folder: a `flowstate run` (one run or `--runs K`), a testbed or
browser run, a reproduction's point, a folder of such folders, a sweep. For those,
flowstate.report.folder_results makes a results.json without the paper's columns. Every
file is read and checked before anything is written (flowstate.report.input_files).
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


def prepare(folder: Path) -> report.Prepared:
    """The report of ``folder`` (a reproduction's, or any output folder's), read, checked
    and drawn; nothing written yet. ReportError for a folder whose command did not finish
    (flowstate.output_folder.incomplete) or a damaged input."""
    folder = Path(folder)
    folder_results.read_manifest(folder)  # a damaged manifest.json is a one-line error
    unfinished = output_folder.incomplete(folder)
    if unfinished is not None:
        raise report.ReportError(unfinished)
    doc = folder_results.results_for(folder)
    if doc.get("source") == folder_results.SOURCE_FOLDER:
        return report.prepare(folder, doc, source=str(folder))
    return report.prepare(folder, doc, source=str(folder / RESULTS_FILE))


def build(folder: Path) -> Path:
    """report.html of ``folder`` (a reproduction's, or any output folder's), drawn
    anew once every input is read and checked: the report and figures of an earlier
    build are removed (no figure of an earlier report survives one that draws fewer) and
    the new ones written."""
    prepared = prepare(folder)
    output_folder.remove_report_files(Path(folder))
    return report.write(prepared)


def main(out_dir: str, *, stdout: Optional[TextIO] = None) -> list[Path]:
    """Rebuilds and returns the written pages; raises report.ReportError (one line).
    Every input is read and checked before anything is written."""
    stdout = stdout if stdout is not None else sys.stdout
    folder = Path(out_dir)
    if not folder.is_dir():
        raise report.ReportError(f"{folder}: not found (an output folder of flowstate run, reproduce, testbed, "
                                 "browser or sweep)" if not folder.exists() else f"{folder}: not a folder")
    if not (folder / RESULTS_FILE).exists() and not folder_results.is_output_folder(folder):
        children = sorted(p.parent for p in folder.glob(f"*/{RESULTS_FILE}"))
        if children:
            prepared = [prepare(child) for child in children]
            for child in children:
                output_folder.remove_report_files(child)
            written = [report.write(p) for p in prepared]
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
