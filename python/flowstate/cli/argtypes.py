"""Argument types of the `flowstate` command line (argparse ``type=`` functions) and the
options several commands share. Each type turns bad text into a one-line
``argparse.ArgumentTypeError`` (exit status 2, before any work)."""

from __future__ import annotations

import argparse

from flowstate.errors import FlowstateError
from flowstate.simulation import MAX_RUNS, MAX_SEED, check_out_folder


def seconds(text: str) -> float:
    """A duration in seconds, > 0 and finite."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds > 0, got '{text}'") from None
    if not (value > 0 and value < float("inf")):
        raise argparse.ArgumentTypeError(f"expected seconds > 0, got '{text}'")
    return value


def out_dir(text: str) -> str:
    """An ``--out`` folder: not empty, and neither it nor an existing parent a file
    (mkdir would fail with a bare "[Errno 17] File exists" after the work is done)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected an output folder, got an empty path '{text}'")
    try:
        check_out_folder(text)
    except FlowstateError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def integer(text: str, minimum: int, what: str, maximum: int = MAX_SEED) -> int:
    """A decimal integer in [minimum, maximum]; ``what`` describes it in the error."""
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got '{text}'") from None
    if value < minimum or value > maximum:
        raise argparse.ArgumentTypeError(f"expected {what}, got {value}")
    return value


def seed(text: str) -> int:
    return integer(text, 0, "an integer in [0, 2^64 - 1]")


def positive(text: str) -> int:
    return integer(text, 1, "an integer >= 1")


def runs(text: str) -> int:
    return integer(text, 1, f"an integer in [1, {MAX_RUNS}]", MAX_RUNS)


def add_catalogue_option(parser: argparse.ArgumentParser) -> None:
    """``--catalogue DIR`` (`list`, `reproduce`)."""
    parser.add_argument(
        "--catalogue",
        metavar="DIR",
        help="the catalogue folder (default: $FLOWSTATE_CATALOGUE, else the source tree's scenarios/)",
    )


def add_force_option(parser: argparse.ArgumentParser) -> None:
    """``--force`` (every command that writes an output folder; flowstate.output_folder)."""
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace the outputs of an earlier run in the output folder (default: refuse a non-empty folder)",
    )


def add_resume_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--resume`` (`reproduce`, `sweep`): finish an earlier run in the output folder."""
    parser.add_argument(
        "--resume",
        action="store_true",
        help=f"finish an earlier run in the output folder: keep {what}, run the rest",
    )
