"""Listings (`flowstate list`, `flowstate list-options`) for a person or for a program:
rich tables on a terminal; into a pipe or a file, plain text a program can split, one
line per row, never wrapped: a ``# title`` line, then the header and every row as
tab-separated cells (a tab or newline inside a cell becomes a space), a blank line
between tables. ``--json`` gives the same content as one JSON document."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence, TextIO


@dataclass(frozen=True)
class Listing:
    """One table: its title, column headers and rows of cells (already text)."""

    title: str
    headers: Sequence[str]
    rows: Sequence[Sequence[str]]


def _plain_cell(text: str) -> str:
    return " ".join(text.split())


def print_plain(listings: Iterable[Listing], stream: TextIO) -> None:
    """Every listing as tab-separated lines (the non-terminal form)."""
    for i, listing in enumerate(listings):
        if i:
            print(file=stream)
        print(f"# {_plain_cell(listing.title)}", file=stream)
        for row in (listing.headers, *listing.rows):
            print("\t".join(_plain_cell(str(cell)) for cell in row), file=stream)


def print_rich(listings: Iterable[Listing], stream: TextIO, no_wrap_first: bool = True) -> None:
    """Every listing as a rich table (the terminal form); the first column, the name a
    scenario writes, is never wrapped."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(file=stream)
    for listing in listings:
        table = Table(title=escape(listing.title), title_justify="left")
        for k, header in enumerate(listing.headers):
            table.add_column(escape(header), no_wrap=no_wrap_first and k == 0, overflow="fold")
        for row in listing.rows:
            table.add_row(*(escape(str(cell)) for cell in row))
        console.print(table)


def print_listings(listings: Sequence[Listing], stream: TextIO) -> None:
    """Rich tables on a terminal, plain tab-separated text otherwise."""
    isatty: Any = getattr(stream, "isatty", None)
    if callable(isatty) and isatty():
        print_rich(listings, stream)
    else:
        print_plain(listings, stream)
