"""Progress of `flowstate reproduce` over several experiments: runs done of the total
across all of them, elapsed time and an ETA (docs/CATALOGUE.md).

::

    overall = Overall([("p000-fig5", 40, 1200.0), ("p000-table5", 80, 9600.0)])
    overall.begin(0)                  # the first experiment starts
    overall.update(12, 40)            # its progress callback: 12 of its 40 runs done
    overall.finish()                  # -> "[1/2] p000-fig5: 40 runs in 3.1 s; all: 40/120 runs, ..."

The ETA weighs every run by its estimated cost (``reproduce._cost``: duration x
capacity x flows), so that a catalogue of short and long experiments does not get a
wildly wrong estimate from the short ones. The clock is injectable for tests.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from flowstate.catalogue.catalogue import Experiment


@dataclass(frozen=True)
class Planned:
    """One experiment of the plan: its id, its number of runs and their total cost."""

    id: str
    runs: int
    cost: float


def plan(experiments: Sequence[Experiment], runs: Optional[int], short: bool) -> list[Planned]:
    """Runs and estimated cost of each experiment (``runs`` None: the entry's own)."""
    from flowstate.catalogue.reproduce import _cost

    out = []
    for exp in experiments:
        k = runs if runs is not None else exp.run_count(short)
        points = exp.points(short=short)
        out.append(Planned(exp.id, len(points) * k, k * sum(_cost(p.scenario) for p in points)))
    return out


def clock_text(seconds: Optional[float]) -> str:
    """``h:mm:ss``, or ``-:--:--`` when unknown."""
    if seconds is None:
        return "-:--:--"
    s = max(0, int(round(seconds)))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


class Overall:
    """Runs done of the total across experiments run one after the other."""

    def __init__(self, experiments: Sequence[Planned], clock: Callable[[], float] = time.monotonic) -> None:
        if not experiments:
            raise ValueError("nothing to run")
        self.experiments = list(experiments)
        self._clock = clock
        self._started = clock()
        self._current = 0
        self._current_started = self._started
        self._done_before = 0  # runs of the finished experiments
        self._cost_before = 0.0
        self._done = 0  # runs of the current experiment

    @property
    def total(self) -> int:
        return sum(e.runs for e in self.experiments)

    @property
    def done(self) -> int:
        return self._done_before + self._done

    @property
    def position(self) -> int:
        """The current experiment's index (0-based)."""
        return self._current

    @property
    def current(self) -> Planned:
        return self.experiments[self._current]

    def elapsed(self) -> float:
        return self._clock() - self._started

    def current_elapsed(self) -> float:
        return self._clock() - self._current_started

    def begin(self, index: int) -> None:
        """Experiment ``index`` starts (the ones before it are finished)."""
        self._done_before = sum(e.runs for e in self.experiments[:index])
        self._cost_before = sum(e.cost for e in self.experiments[:index])
        self._current = index
        self._done = 0
        self._current_started = self._clock()

    def update(self, done: int, total: int) -> None:
        """The current experiment's progress callback (``total`` its run count)."""
        self._done = min(done, self.current.runs)

    def fraction(self) -> float:
        """Part of the estimated work done (0..1), runs weighted by cost."""
        total_cost = sum(e.cost for e in self.experiments)
        current = self.current
        if total_cost <= 0:
            return self.done / self.total if self.total else 1.0
        share = current.cost * (self._done / current.runs if current.runs else 1.0)
        return min(1.0, (self._cost_before + share) / total_cost)

    def eta(self) -> Optional[float]:
        """Seconds left (None until some work is done)."""
        f = self.fraction()
        if f <= 0:
            return None
        return self.elapsed() * (1 - f) / f

    def current_eta(self) -> Optional[float]:
        runs = self.current.runs
        if self._done <= 0:
            return None
        return self.current_elapsed() * (runs - self._done) / self._done

    def finish(self) -> str:
        """Marks the current experiment finished; the one line that reports it."""
        self._done = self.current.runs
        n = len(self.experiments)
        eta = "done" if self._current == n - 1 else f"ETA {clock_text(self.eta())}"
        return (
            f"[{self._current + 1}/{n}] {self.current.id}: {self.current.runs} runs in "
            f"{self.current_elapsed():.1f} s; all: {self.done}/{self.total} runs, "
            f"{clock_text(self.elapsed())} elapsed, {eta}"
        )
