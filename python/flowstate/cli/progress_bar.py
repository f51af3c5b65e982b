"""The one progress bar of the command line (`run`, `reproduce`, `sweep`): a transient
rich bar on a terminal, nothing otherwise (logs stay readable)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator, Optional, TextIO

Update = Callable[[int, int], None]


@contextmanager
def progress_bar(stream: TextIO, label: str, total: Optional[int] = None, *, eta: bool = True) -> Iterator[Optional[Update]]:
    """Yields ``update(done, total)`` drawing a bar labelled ``label`` on ``stream`` with
    done/total, elapsed time and (``eta``) the time remaining; yields ``None`` when
    ``stream`` is not a terminal. The bar disappears when the block ends."""
    if not stream.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    columns = [TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()]
    if eta:
        columns += [TextColumn("eta"), TimeRemainingColumn()]
    with Progress(*columns, console=Console(file=stream), transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda done, n: bar.update(task, completed=done, total=n)
