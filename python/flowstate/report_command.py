"""`flowstate report DIR`: the figures and report.html of any output folder.

DIR is the output of one reproduction (holds results.json), a folder of reproductions
(`reproduce --all`: DIR/<id>/results.json; every report is rebuilt, plus DIR/index.html),
or any other output folder: a `flowstate run` (one run or `--runs K`), a testbed or
browser run, a reproduction's point, a folder of such folders, a sweep. For those,
flowstate.folder_results writes a results.json without the paper's columns first.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional, TextIO

from flowstate import folder_results, report


def _is_reproduction(folder: Path) -> bool:
    path = folder / report.RESULTS_FILE
    if not path.is_file():
        return False
    try:
        return folder_results.results_for(folder).get("source") is None
    except report.ReportError:
        return True  # let report.build name what is wrong with it


def build(folder: Path) -> Path:
    """report.html of ``folder`` (a reproduction's, or any output folder's)."""
    folder = Path(folder)
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
    if not (folder / report.RESULTS_FILE).exists() and not folder_results.is_output_folder(folder):
        children = sorted(p.parent for p in folder.glob(f"*/{report.RESULTS_FILE}"))
        if children:
            written = [report.build(child) for child in children]
            written.append(report.build_index(folder))
            for path in written:
                print(f"wrote {path}", file=stdout)
            return written
    path = build(folder)
    print(f"wrote {path}", file=stdout)
    return [path]
