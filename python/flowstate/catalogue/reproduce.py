"""Running a catalogue entry: every point x seed, in parallel; point outputs and
results.json (docs/CATALOGUE.md).

::

    from flowstate.catalogue import catalogue
    from flowstate.catalogue import reproduce

    exp = catalogue.load_id(catalogue.find_root(), "p000-table5")
    results = reproduce.reproduce(exp, runs=10, out="out/p000-table5")
    results["claims"]      # [{"text", "check", "status", "values", "value_off", ...}, ...]

Each run is one call of the native simulator (``threads=1``; it releases the GIL), on a
pool of ``jobs`` threads, the longest runs first, without the trace hash (``[measure]
trace_hash = false``: nothing a reproduction writes uses it) and without the recorder
thread (``recorder_thread = "off"``: the pool keeps the cores busy). Point ``p`` runs the seeds
``seed .. seed + runs - 1`` (``seed`` default 1), the same for every point, so that
the results are a pure function of (entry, runs, seed, short): two reproductions give
the same results.json except ``elapsed_s``.

Points whose scenarios differ only in their ``name`` (several entries measure the same
simulations differently: paper 004's loss, queue and utilization figures; the paper-000
entries and their ``-webapi`` twins) are simulated once per seed (:class:`SharedRuns`):
a scenario's name labels its summary and nothing else, so the other points take the run
with their own name in the summary (``tests/test_reproduce.py`` checks that the results
are those of each point simulated on its own).
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from concurrent.futures import Executor, Future, ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Optional

from flowstate import _native
from flowstate.catalogue import claims as claims_mod
from flowstate.catalogue import derived as derived_mod
from flowstate import metric_paths
from flowstate.catalogue.catalogue import Experiment, Point
from flowstate.errors import FlowstateError
from flowstate.json_text import dumps_indent2
from flowstate.output_files import RESULTS_FILE
from flowstate.simulation import MAX_SEED, RunResult, as_pooled_run

DEFAULT_SEED = 1
Progress = Callable[[int, int], Any]


def default_out(exp_id: str) -> Path:
    return Path("out") / exp_id


def _seconds(value: Any, default: float) -> float:
    try:
        return derived_mod.parse_time(value)
    except (derived_mod.DerivedError, TypeError, ValueError):
        return default


def _cost(scenario: Mapping[str, Any]) -> float:
    """A rough run-time estimate (simulated packets ~ duration x capacity x flows), to
    start the longest runs first."""
    duration = _seconds(scenario.get("duration"), 1.0)
    link = scenario.get("link") or {}
    try:
        capacity = derived_mod.parse_rate_mbps(link.get("capacity"))
    except derived_mod.DerivedError:
        schedule = link.get("capacity_schedule") or []
        rates = []
        for step in schedule if isinstance(schedule, list) else []:
            try:
                rates.append(derived_mod.parse_rate_mbps(step.get("rate")))
            except (derived_mod.DerivedError, AttributeError):
                pass
        capacity = max(rates, default=1.0)
    return duration * max(capacity, 0.1) * (1 + len(scenario.get("flows") or []))


RunKey = tuple[str, bool, int]


def run_key(scenario: Mapping[str, Any], seed: int) -> RunKey:
    """What a run's outcome depends on: the scenario but for its ``name`` (which only
    labels the summary, flowstate-sim's run.rs), whether it has one, and the seed."""
    unnamed = {k: v for k, v in scenario.items() if k != "name"}
    return _native.scenario_toml(unnamed), "name" in scenario, seed


class SharedRuns:
    """The simulations of one reproduction, each run key (:func:`run_key`) simulated
    once on ``pool`` however many points ask for it.

    ``uses``: how many times each key will be asked for (:meth:`counting`); a run's
    result is let go once its last user has it, so a whole-catalogue reproduction does
    not hold every run in memory. Without it, every result is kept while this object
    lives (one entry's reproduction)."""

    def __init__(self, pool: Executor, uses: Optional[Counter[RunKey]] = None):
        self.pool = pool
        self._uses = uses
        self._runs: dict[RunKey, tuple[Future[Any], Optional[str]]] = {}

    @classmethod
    def counting(
        cls, pool: Executor, experiments: Iterable[Experiment], *, runs: Optional[int], seed: Optional[int], short: bool
    ) -> "SharedRuns":
        """Shared runs for reproducing ``experiments`` one after the other with these
        ``runs``, ``seed`` and ``short``."""
        uses: Counter[RunKey] = Counter()
        for exp in experiments:
            n, first = _checked_seeds(exp, runs, seed, short)
            for point in exp.points(short=short):
                base = run_key(point.scenario, 0)[:2]
                uses.update((*base, first + k) for k in range(n))
        return cls(pool, uses)

    def submit(self, key: RunKey, text: str, file: str, name: Optional[str]) -> tuple[Future[Any], Optional[str]]:
        """The run of ``key`` (simulating ``text``, whose scenario is named ``name``, if
        nobody asked for it before), and the name it runs under."""
        if key not in self._runs:
            future = self.pool.submit(_native.simulate, text, file, seed=key[2], runs=1, threads=1, series_text=True)
            self._runs[key] = (future, name)
        return self._runs[key]

    def take(self, key: RunKey, future: Future[Any], ran_as: Optional[str], name: Optional[str]) -> dict[str, Any]:
        """The finished run of ``key`` (simulated under the name ``ran_as``) as the point
        named ``name`` would have had it (its summary's ``scenario`` is that name);
        raises the run's error."""
        raw = future.result()[0]
        if self._uses is not None:
            self._uses[key] -= 1
            if self._uses[key] <= 0:
                self._runs.pop(key, None)
        if ran_as == name:
            return raw
        summary = json.loads(raw["summary_json"])
        summary["scenario"] = name
        return {**raw, "summary_json": json.dumps(summary)}


class PendingRuns:
    """An entry's runs submitted to a pool (:func:`submit_points`); :meth:`collect`
    waits for them. Lets ``flowstate reproduce`` with several entries start an entry's
    simulations while the previous entry's results are still being written (the
    writing is Python, one core; the simulations release the GIL)."""

    def __init__(self, futures: dict[Future[Any], list[tuple[int, int]]], points: int, runs: int, shared: "SharedRuns", keys: dict[tuple[int, int], tuple[RunKey, Optional[str], Optional[str]]]):
        self._futures = futures
        self._points = points
        self._runs = runs
        self._shared = shared
        self._keys = keys

    def cancel(self) -> None:
        """Cancel the runs that have not started."""
        for f in self._futures:
            f.cancel()

    def collect(self, progress: Optional[Progress] = None) -> list[RunResult]:
        """One RunResult per point, runs in seed order. Raises the first failed run's
        error (ScenarioError for a point that cannot run), cancelling the others."""
        raws: list[list[Any]] = [[None] * self._runs for _ in range(self._points)]
        total, done = self._points * self._runs, 0
        try:
            # as_completed waits on every future once (a wait() per finished run over the
            # pending set cost O(runs^2) lock operations: ~700,000 for three paper-004 entries).
            for f in as_completed(self._futures):
                for i, k in self._futures[f]:
                    key, ran_as, name = self._keys[(i, k)]
                    raws[i][k] = self._shared.take(key, f, ran_as, name)  # raises the run's error
                    done += 1
                    if progress is not None:
                        progress(done, total)
        except BaseException:
            self.cancel()
            raise
        return [RunResult(r) for r in raws]


def submit_points(
    exp: Experiment, points: list[Point], runs: int, seed: int, pool: Executor, shared: Optional[SharedRuns] = None
) -> PendingRuns:
    """Submits every point for the seeds ``seed .. seed + runs - 1`` to ``pool`` (through
    ``shared``, which simulates each run key once; a private one if not given), the
    longest runs first."""
    shared = shared if shared is not None else SharedRuns(pool)
    # A reproduction writes summaries and series, the same without the fingerprint (the
    # catalogue's trace hashes are tools/catalogue_hashes.py's job), from a pool of
    # runs (no recorder thread each).
    texts = [_native.scenario_toml(as_pooled_run(p.scenario)) for p in points]
    bases = [run_key(p.scenario, 0)[:2] for p in points]
    names = [p.scenario.get("name") for p in points]
    files = [f"{exp.file}: point {p.name}" for p in points]
    work = sorted(
        ((i, k) for i in range(len(points)) for k in range(runs)),
        key=lambda ik: (-_cost(points[ik[0]].scenario), ik),
    )
    futures: dict[Future[Any], list[tuple[int, int]]] = {}
    keys: dict[tuple[int, int], tuple[RunKey, Optional[str], Optional[str]]] = {}
    for i, k in work:
        key = (*bases[i], seed + k)
        future, ran_as = shared.submit(key, texts[i], files[i], names[i])
        keys[(i, k)] = (key, ran_as, names[i])
        futures.setdefault(future, []).append((i, k))
    return PendingRuns(futures, len(points), runs, shared, keys)


def run_points(
    exp: Experiment,
    points: list[Point],
    runs: int,
    seed: int,
    jobs: Optional[int] = None,
    progress: Optional[Progress] = None,
) -> list[RunResult]:
    """Simulates every point for the seeds ``seed .. seed + runs - 1`` on a pool of
    ``jobs`` threads; one RunResult per point, runs in seed order. Raises ScenarioError
    for a point that cannot run."""
    workers = max(1, min(jobs or os.cpu_count() or 1, len(points) * runs))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="flowstate-reproduce") as pool:
        return submit_points(exp, points, runs, seed, pool).collect(progress)


def entry_runs(exp: Experiment, runs: Optional[int], short: bool) -> int:
    """The runs per point of a reproduction (``runs`` or the entry's own)."""
    return runs if runs is not None else exp.run_count(short)


metric_stats = metric_paths.metric_stats


def _point_entry(exp: Experiment, point: Point, result: RunResult) -> dict[str, Any]:
    derived = {}
    if exp.derived:
        series = [derived_mod.Series.from_simulator(s, summary=r) for s, r in zip(result._series, result.runs)]
        for spec in exp.derived:
            derived[spec.name] = derived_mod.aggregate([derived_mod.compute(spec, s) for s in series])
    return {
        "name": point.name,
        "variant": point.variant,
        "label": point.label,
        "grid": dict(point.grid),
        "dir": point.dir,
        "summary": result.summary,
        "derived": derived,
    }


def evaluate(exp: Experiment, points: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The comparison rows and the claims of results.json, from its point entries."""
    by_name = {p["name"]: p for p in points}
    comparison = []
    for pv in exp.paper_values:
        stats = metric_stats(by_name[pv.point], pv.metric) or {"mean": None, "std": None, "min": None, "max": None}
        comparison.append(
            {
                "point": pv.point,
                "metric": pv.metric,
                "label": pv.label or pv.metric,
                "paper": pv.value,
                "ours": stats["mean"],
                "std": stats["std"],
                "min": stats["min"],
                "max": stats["max"],
            }
        )

    def lookup(point: str, metric: str) -> Optional[float]:
        stats = metric_stats(by_name[point], metric) if point in by_name else None
        return None if stats is None else stats["mean"]

    claims = []
    for claim in exp.claims:
        status, values = claims_mod.evaluate(claim.check, lookup)
        claims.append({"text": claim.text, "check": claim.check.text, "status": status, "values": values})
    claims_mod.annotate_claims(claims, comparison)
    return comparison, claims


def reproduce(
    exp: Experiment,
    *,
    runs: Optional[int] = None,
    seed: Optional[int] = None,
    short: bool = False,
    out: Optional[str | os.PathLike[str]] = None,
    jobs: Optional[int] = None,
    progress: Optional[Progress] = None,
    pool: Optional[Executor] = None,
    pending: Optional[PendingRuns] = None,
) -> dict[str, Any]:
    """Runs ``exp`` and writes OUT/<point dir>/{summary.json,timeseries.csv} and
    OUT/results.json (OUT default out/<id>). Returns the results.json document.

    ``pending``: the entry's runs already submitted with :func:`start` (the same
    ``runs``, ``seed`` and ``short``); otherwise they run now, on ``pool`` if given, else
    on a pool of ``jobs`` threads."""
    started = time.perf_counter()
    runs, seed = _checked_seeds(exp, runs, seed, short)
    folder = Path(out) if out is not None else default_out(exp.id)
    points = exp.points(short=short)
    if pending is not None:
        results = pending.collect(progress)
    elif pool is not None:
        results = submit_points(exp, points, runs, seed, pool).collect(progress)
    else:
        results = run_points(exp, points, runs, seed, jobs=jobs, progress=progress)
    entries = []
    for point, result in zip(points, results):
        result.write(folder / point.dir)
        entries.append(_point_entry(exp, point, result))
    comparison, claims = evaluate(exp, entries)
    document = {
        "id": exp.id,
        "paper": exp.paper,
        "reference": exp.reference,
        "title": exp.title,
        "finding": exp.finding,
        "notes": exp.notes,
        "runs": runs,
        "seed": seed,
        "short": short,
        "elapsed_s": round(time.perf_counter() - started, 3),
        "axes": [{"name": a.name, "key": a.key, "label": a.label} for a in exp.grid],
        "points": entries,
        "comparison": comparison,
        "claims": claims,
        "figures": [dict(f) for f in exp.figures],
    }
    write_results(folder, document)
    return document


def entry_seeds(exp: Experiment, runs: Optional[int], seed: Optional[int], short: bool) -> list[int]:
    """The seeds every point of a reproduction runs (its manifest's ``seeds``)."""
    n, first = _checked_seeds(exp, runs, seed, short)
    return list(range(first, first + n))


def entry_scenarios(exp: Experiment, short: bool) -> dict[str, dict[str, Any]]:
    """Each point's resolved scenario by point name (its manifest's ``scenario``)."""
    return {p.name: dict(p.scenario) for p in exp.points(short=short)}


def _checked_seeds(exp: Experiment, runs: Optional[int], seed: Optional[int], short: bool) -> tuple[int, int]:
    runs = entry_runs(exp, runs, short)
    seed = seed if seed is not None else DEFAULT_SEED
    if runs < 1 or seed < 0 or seed + runs - 1 > MAX_SEED:
        raise FlowstateError(f"seeds {seed} .. {seed} + {runs} runs - 1 must be in [0, 2^64 - 1]")
    return runs, seed


def start(
    exp: Experiment,
    pool: Executor,
    *,
    runs: Optional[int] = None,
    seed: Optional[int] = None,
    short: bool = False,
    shared: Optional[SharedRuns] = None,
) -> PendingRuns:
    """Submits ``exp``'s runs to ``pool`` now; pass the result to :func:`reproduce` as
    ``pending`` (with the same ``runs``, ``seed`` and ``short``). ``shared``: the runs
    several entries share (:meth:`SharedRuns.counting`), on the same pool."""
    runs, seed = _checked_seeds(exp, runs, seed, short)
    return submit_points(exp, exp.points(short=short), runs, seed, pool, shared)


def write_results(folder: Path, document: Mapping[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / RESULTS_FILE
    path.write_text(dumps_indent2(document, allow_nan=False) + "\n", encoding="utf-8")
    return path


def build_report(folder: Path) -> tuple[Optional[Path], Optional[str]]:
    """``flowstate.report.report.build(folder)`` if that module is installed: ``(report path,
    None)``, or ``(None, why not)``."""
    try:
        from flowstate.report import report  # type: ignore[attr-defined]
    except ImportError as e:
        return None, f"the report builder (flowstate.report.report) cannot be imported ({e}); results.json is written"
    return Path(report.build(folder)), None
