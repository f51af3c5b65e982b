"""`flowstate list`: every experiment of the catalogue, checked, with its paper (cited from
docs/REFERENCES.md) and a one-line description."""

from __future__ import annotations

import argparse
import sys
from typing import Any, Optional, TextIO

from flowstate.catalogue import catalogue, references
from flowstate.catalogue.catalogue import Experiment
from flowstate.cli import argtypes
from flowstate.cli.exit_status import ExitStatus


def _console(stream: TextIO) -> Any:
    from rich.console import Console

    return Console(file=stream, width=None if stream.isatty() else 160)


def list_main(catalogue_dir: Optional[str] = None, *, stdout: Optional[TextIO] = None) -> list[Experiment]:
    """Prints every id with its one-line description (checking every entry)."""
    stdout = stdout if stdout is not None else sys.stdout
    from rich.table import Table

    experiments = catalogue.load_all(catalogue.find_root(catalogue_dir))
    table = Table(title=f"{len(experiments)} experiments", title_justify="left")
    for header in ("id", "paper (docs/REFERENCES.md)", "reference", "points", "runs", "description"):
        table.add_column(header, overflow="fold")
    for exp in experiments:
        table.add_row(
            exp.id,
            references.short(exp.paper),
            exp.reference,
            str(len(exp.point_names())),
            str(exp.runs),
            exp.description or exp.title,
        )
    _console(stdout).print(table)
    return experiments


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "list",
        help="list the experiments of the catalogue",
        description="List every experiment of the catalogue (scenarios/*/experiment.toml, docs/CATALOGUE.md) "
        "with a one-line description; every entry is checked.",
    )
    argtypes.add_catalogue_option(p)
    return p


def run(args: argparse.Namespace) -> ExitStatus:
    list_main(args.catalogue)
    return ExitStatus.OK
