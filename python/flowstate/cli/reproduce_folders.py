"""The entry folders of `flowstate reproduce`: what an earlier reproduction left in
them (``--resume``), and the line that says, after Ctrl-C, what finished and which
command completes the rest (docs/CATALOGUE.md, "Output").

An entry is complete when its manifest.json says ``"complete"`` and its results.json
is readable; its results are usable by ``--resume`` when results.json is there (the
points' files are written before it) and was made with the same seeds and ``--short``:
then only the report is left to build.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from flowstate import manifest
from flowstate.errors import UsageError
from flowstate.output_files import RESULTS_FILE


@dataclass
class Saved:
    """Results an earlier reproduction left in an entry folder."""

    results: dict[str, Any]
    complete: bool  # the report was built too (or not asked for): nothing left to do


def saved(folder: Path, seeds: Sequence[int], short: bool) -> Optional[Saved]:
    """The results in ``folder`` that ``--resume`` keeps, or None (the entry runs
    again). UsageError for a complete entry made with other seeds or ``--short``: its
    results are not what was asked for, and replacing them is ``--force``'s job."""
    record = manifest.read(folder)
    if record is None:
        return None
    try:
        results = json.loads((folder / RESULTS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(results, dict):
        return None
    complete = record.get("status") == manifest.COMPLETE
    same = record.get("seeds") == list(seeds) and bool(results.get("short")) == short
    if not same:
        if complete:
            was = record.get("seeds") or []
            made = f"seeds {was[0]}..{was[-1]}" if was else "no seeds"
            raise UsageError(
                f"{folder} holds a reproduction with {made}{' (--short)' if results.get('short') else ''}, "
                f"not seeds {seeds[0]}..{seeds[-1]}{' (--short)' if short else ''}: pass --force to replace it, "
                "or --out another folder"
            )
        return None
    return Saved(results, complete)


def resume_command(
    ids: Sequence[str],
    *,
    all_: bool,
    out: Optional[str],
    runs: Optional[int],
    seed: Optional[int],
    short: bool,
    no_report: bool,
    catalogue_dir: Optional[str],
) -> str:
    """The `flowstate reproduce ... --resume` command that finishes a reproduction
    started with these arguments, quoted for a shell."""
    argv = ["flowstate", "reproduce", *(["--all"] if all_ else ids)]
    for flag, value in (("--out", out), ("--runs", runs), ("--seed", seed), ("--catalogue", catalogue_dir)):
        if value is not None:
            argv += [flag, str(value)]
    argv += [flag for flag, on in (("--short", short), ("--no-report", no_report)) if on]
    return shlex.join([*argv, "--resume"])


def interrupted_message(finished: Sequence[str], unfinished: Sequence[str], command: str, report_only: Optional[Path]) -> str:
    """The one line after Ctrl-C. ``report_only``: the folder of the entry that was cut
    short after its results were written (`flowstate report` finishes it too)."""
    done = f"finished: {', '.join(finished)}" if finished else "no entry finished"
    rest = f"; not finished: {', '.join(unfinished)}" if unfinished else ""
    report = f" (or, for its report only, {shlex.join(['flowstate', 'report', str(report_only)])})" if report_only else ""
    return f"flowstate: interrupted ({done}{rest}); to complete it: {command}{report}"
