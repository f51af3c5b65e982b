"""`flowstate list`: every experiment of the catalogue, checked, with its paper (cited from
docs/REFERENCES.md) and a one-line description."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Optional, TextIO

from flowstate.catalogue import catalogue, references
from flowstate.catalogue.catalogue import Experiment
from flowstate.cli import argtypes
from flowstate.cli.exit_status import ExitStatus
from flowstate.cli.listing import Listing, print_listings


def experiment_record(exp: Experiment) -> dict[str, Any]:
    """One entry as ``flowstate list --json`` gives it."""
    return {
        "id": exp.id,
        "paper": exp.paper,
        "paper_short": references.short(exp.paper),
        "reference": exp.reference,
        "title": exp.title,
        "description": exp.description or exp.title,
        "points": list(exp.point_names()),
        "runs": exp.runs,
        "file": str(exp.file),
    }


def list_main(
    catalogue_dir: Optional[str] = None, *, as_json: bool = False, stdout: Optional[TextIO] = None
) -> list[Experiment]:
    """Prints every id with its one-line description (checking every entry): a table on a
    terminal, tab-separated lines into a pipe, a JSON list with ``as_json``."""
    stdout = stdout if stdout is not None else sys.stdout
    experiments = catalogue.load_all(catalogue.find_root(catalogue_dir))
    if as_json:
        print(json.dumps([experiment_record(exp) for exp in experiments], indent=2), file=stdout)
        return experiments
    rows = [
        (
            exp.id,
            references.short(exp.paper),
            exp.reference,
            str(len(exp.point_names())),
            str(exp.runs),
            exp.description or exp.title,
        )
        for exp in experiments
    ]
    print_listings(
        [
            Listing(
                f"{len(experiments)} experiments",
                ("id", "paper (docs/REFERENCES.md)", "reference", "points", "runs", "description"),
                rows,
            )
        ],
        stdout,
    )
    return experiments


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "list",
        help="list the experiments of the catalogue",
        description="List every experiment of the catalogue (scenarios/*/experiment.toml, docs/CATALOGUE.md) "
        "with a one-line description; every entry is checked.",
    )
    argtypes.add_catalogue_option(p)
    p.add_argument("--json", action="store_true", help="print the entries as a JSON list (id, paper, points, runs, ...)")
    return p


def run(args: argparse.Namespace) -> ExitStatus:
    list_main(args.catalogue, as_json=args.json)
    return ExitStatus.OK
