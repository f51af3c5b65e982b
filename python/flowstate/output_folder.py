"""Claiming an output folder before a command writes into it, so that no file of an
earlier run survives next to the new ones (docs/SCENARIOS.md, "The output folder and
`manifest.json`").

A command (`flowstate run`, `reproduce`, `sweep`, `testbed`, `browser`) calls
:func:`claim` with its ``--force`` / ``--resume`` flags before any work:

- a folder that does not exist or is empty is the command's;
- a non-empty one is refused with a one-line error naming ``--force`` (and
  ``--resume`` where the command can finish an earlier run);
- ``--force`` empties it first, but only when it is one flowstate wrote (it holds a
  manifest.json or another output file of flowstate): ``--out ~ --force`` deletes
  nothing;
- ``--resume`` keeps it as it is for the command to finish.

`flowstate report DIR` writes into an existing folder by design; it removes the report
files it regenerates with :func:`remove_report_files`.
"""

from __future__ import annotations

import shlex
import shutil
from enum import Enum
from pathlib import Path
from typing import Optional

from flowstate.errors import UsageError
from flowstate.output_files import (
    BROWSER_FILE,
    CATALOGUE_INDEX_FILE,
    FIGURES_DIR,
    MANIFEST_FILE,
    REPORT_FILE,
    RESULTS_FILE,
    SUMMARY_FILE,
    SWEEP_RESULTS_FILE,
    SWEEP_SPEC_FILE,
    SWEEP_SUMMARY_FILE,
    TESTBED_FILE,
    TIMESERIES_FILE,
)

# Files only flowstate writes: a folder holding one of them (or a subfolder holding
# one: a reproduction's points, a browser batch's runs) is an output folder.
OUTPUT_MARKERS = (
    MANIFEST_FILE,
    SUMMARY_FILE,
    TIMESERIES_FILE,
    RESULTS_FILE,
    REPORT_FILE,
    SWEEP_SPEC_FILE,
    TESTBED_FILE,
    BROWSER_FILE,
    CATALOGUE_INDEX_FILE,
)


class Claim(Enum):
    """What :func:`claim` found and did."""

    NEW = "new"  # absent or empty: nothing to replace
    REPLACED = "replaced"  # --force: emptied
    RESUMED = "resumed"  # --resume: kept for the command to finish


def is_empty(folder: Path) -> bool:
    """Whether ``folder`` is absent or holds nothing of value: nothing at all, or only
    the manifest of a command that failed before writing anything (bad input found
    once the work had begun), which the next run replaces."""
    if not folder.is_dir():
        return True
    children = list(folder.iterdir())
    if not children:
        return True
    if [c.name for c in children] == [MANIFEST_FILE]:
        from flowstate import manifest

        doc = manifest.read(folder)
        return doc is not None and doc.get("status") == manifest.FAILED
    return False


def is_flowstate_output(folder: Path) -> bool:
    """Whether ``folder`` holds a file only flowstate writes, itself or in a subfolder."""
    if any((folder / name).exists() for name in OUTPUT_MARKERS):
        return True
    return any(child.is_dir() and any((child / name).exists() for name in OUTPUT_MARKERS) for child in folder.iterdir())


def refusal(folder: Path, resumable: bool) -> str:
    """The one-line refusal of a non-empty ``folder``."""
    resume = " (--resume to finish them)" if resumable else ""
    return (
        f"{folder} already holds a previous run's outputs: pass --force to replace them{resume}, "
        "or --out another folder"
    )


def clear(folder: Path) -> None:
    """Empties ``folder``, an output folder of flowstate (:func:`check_claim` with
    ``force`` refuses any other, and the working folder or one above it)."""
    if not folder.is_dir():
        return
    check_claim(folder, force=True)
    for child in folder.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def check_claim(folder: Path, *, force: bool = False, resume: bool = False, resumable: bool = False) -> None:
    """Raises the UsageError :func:`claim` would raise, changing nothing (a command
    with several output folders checks them all before it empties any)."""
    folder = Path(folder)
    if force and resume:
        raise UsageError("--force and --resume: give one (--force replaces the earlier outputs, --resume finishes them)")
    if is_empty(folder) or (resume and resumable):
        return
    if not force:
        raise UsageError(refusal(folder, resumable))
    resolved = folder.resolve()
    cwd = Path.cwd().resolve()
    if resolved == cwd or resolved in cwd.parents:
        raise UsageError(f"{folder}: --force would delete the working folder; pass --out a folder below it")
    if not is_flowstate_output(folder):
        raise UsageError(
            f"{folder} holds files flowstate did not write (no {MANIFEST_FILE}, {SUMMARY_FILE} or {RESULTS_FILE}): "
            "--force replaces only an output folder of flowstate; pass --out another folder"
        )


def claim(folder: Path, *, force: bool = False, resume: bool = False, resumable: bool = False) -> Claim:
    """Makes ``folder`` ready for a command's outputs (see the module's docstring):
    UsageError (one line) for a non-empty folder without ``force`` or ``resume``.
    ``resumable``: the command takes ``--resume`` (the refusal names it)."""
    folder = Path(folder)
    check_claim(folder, force=force, resume=resume, resumable=resumable)
    if is_empty(folder):
        if (folder / MANIFEST_FILE).is_file():
            (folder / MANIFEST_FILE).unlink()  # a failed start's
        return Claim.NEW
    if resume and resumable:
        return Claim.RESUMED
    clear(folder)
    return Claim.REPLACED


def remove_report_files(folder: Path, keep_results: bool = True) -> None:
    """Removes ``folder``'s report.html and figures/ (and, unless ``keep_results``,
    results.json), which `flowstate report` writes anew: no figure of an earlier
    report survives one that draws fewer."""
    report = folder / REPORT_FILE
    if report.is_file() or report.is_symlink():
        report.unlink()
    figures = folder / FIGURES_DIR
    if figures.is_dir() and not figures.is_symlink():
        shutil.rmtree(figures)
    if not keep_results:
        results = folder / RESULTS_FILE
        if results.is_file():
            results.unlink()


# What each kind of folder holds once its command has finished (docs/SCENARIOS.md,
# docs/CATALOGUE.md, docs/SWEEPS.md).
FINISHED_FILES = {
    "run": (SUMMARY_FILE, TIMESERIES_FILE),
    "testbed": (SUMMARY_FILE, TIMESERIES_FILE),
    "browser": (SUMMARY_FILE, TIMESERIES_FILE),
    "reproduce": (RESULTS_FILE,),
    "sweep": (SWEEP_SPEC_FILE, SWEEP_RESULTS_FILE, SWEEP_SUMMARY_FILE),
}
RESUMABLE_KINDS = ("reproduce", "sweep")


def completing_command(command: list[str], kind: str) -> str:
    """The command that finishes (``--resume``) or redoes (``--force``) a folder made by
    ``command``, quoted for a shell."""
    argv = [a for a in command if a not in ("--force", "--fresh", "--resume")]
    return shlex.join([*argv, "--resume" if kind in RESUMABLE_KINDS else "--force"])


def incomplete(folder: Path) -> Optional[str]:
    """One line naming what an unfinished ``folder`` lacks (its manifest says
    "running", "interrupted" or "failed" and a file its command writes at the end is
    missing) and the command that completes it; None for a finished folder, or one
    without a manifest (an older folder)."""
    from flowstate import manifest

    doc = manifest.read(folder)
    if doc is None or doc.get("status") == manifest.COMPLETE:
        return None
    kind = str(doc.get("kind"))
    missing = [name for name in FINISHED_FILES.get(kind, ()) if not (folder / name).exists()]
    if not missing:
        return None
    command = doc.get("command")
    hint = (
        f"; to complete it: {completing_command([str(a) for a in command], kind)}"
        if isinstance(command, list) and command
        else ""
    )
    return f"{folder} is incomplete (its {kind} is {doc.get('status')}): no {', '.join(missing)}{hint}"
