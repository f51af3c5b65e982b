"""`flowstate report OUT_DIR`: rebuild the figures and report.html of an output folder.

OUT_DIR is the output of one reproduction (holds results.json), or a folder of
reproductions (`reproduce --all`: OUT_DIR/<id>/results.json), whose reports are all
rebuilt, plus OUT_DIR/index.html.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional, TextIO

from flowstate import report


def main(out_dir: str, *, stdout: Optional[TextIO] = None) -> list[Path]:
    """Rebuilds and returns the written pages; raises report.ReportError (one line)."""
    stdout = stdout if stdout is not None else sys.stdout
    folder = Path(out_dir)
    if not (folder / report.RESULTS_FILE).exists() and folder.is_dir():
        children = sorted(p.parent for p in folder.glob(f"*/{report.RESULTS_FILE}"))
        if children:
            written = [report.build(child) for child in children]
            written.append(report.build_index(folder))
            for path in written:
                print(f"wrote {path}", file=stdout)
            return written
    path = report.build(folder)
    print(f"wrote {path}", file=stdout)
    return [path]
