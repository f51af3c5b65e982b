"""Running a sweep: expand it, reuse finished tasks from OUT, run the rest on an
executor, store each result as it arrives, then write results.csv and summary.csv.

::

    from flowstate.sweep.spec import load_sweep_file
    from flowstate.sweep.run import run_sweep
    from flowstate.sweep.executors import make_executor

    result = run_sweep(load_sweep_file("scenarios/sweeps/gamma-bar.toml"), "out/sweeps/g",
                       make_executor("local", workers=2))
    result.reused, result.computed, result.best
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

from flowstate.sweep.executors import Executor
from flowstate.sweep.spec import Point, SweepError, SweepSpec, Task, expand
from flowstate.sweep.metrics import MetricError, check_derived, metric_value
from flowstate.sweep.store import (
    Store,
    best_points,
    point_stats,
    spec_hash,
    task_key,
    write_results,
    write_summary,
)

# Called with (finished, total) once with 0 and after every computed task.
Progress = Callable[[int, int], Any]


@dataclass
class SweepResult:
    spec: SweepSpec
    out: Path
    points: list[Point]
    rows: list[tuple[Task, dict[str, Optional[float]]]]  # task order (point-major)
    per_point: list[tuple[Point, int, dict[str, Any]]]
    reused: int
    computed: int
    elapsed_s: float
    spec_changed: bool
    best: list[tuple[Point, int, dict[str, Any]]] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)


def _metrics_of(spec: SweepSpec, doc: Mapping[str, Any], task: Task) -> dict[str, Optional[float]]:
    try:
        return {m: metric_value(doc["summary"], doc.get("derived") or {}, m) for m in spec.metrics}
    except MetricError as e:
        raise SweepError(f"{spec.source}: metrics: {e}") from None


def _set_value(value: Any) -> str:
    """An axis value as ``--set`` reads it back: numbers in full (``repr``), booleans
    ``true``/``false``, strings as they are."""
    if isinstance(value, (bool, int, float)):
        return json.dumps(value)
    return str(value)


def point_manifest(spec: SweepSpec, task: Task, command: Optional[Sequence[str]]) -> dict[str, Any]:
    """The manifest of one finished task: its scenario, its seed, and its axis values
    as the ``PATH=VALUE`` sets that make it from the base scenario."""
    from flowstate import manifest

    keys = {a.name: a.key for a in spec.axes}
    sets = [f"{keys[name]}={_set_value(value)}" for name, value in task.point.values.items()]
    now = manifest.utc_now()
    return manifest.document(
        kind="sweep-point",
        command=command,
        seeds=[task.seed],
        scenario=task.point.scenario,
        sets=sets,
        status=manifest.COMPLETE,
        started_at=now,
        finished_at=now,
    )


def run_sweep(
    spec: SweepSpec,
    out: str | Path,
    executor: Executor,
    *,
    progress: Optional[Progress] = None,
    fresh: bool = False,
    top: int = 5,
    command: Optional[Sequence[str]] = None,
) -> SweepResult:
    """Runs every task of ``spec`` not already finished in ``out`` (``fresh``: forget
    them first). Tasks are identified by (scenario dict, seed), so a changed spec reuses
    exactly the tasks it shares with the old one. Raises SweepError for bad input (a
    point whose scenario cannot run, a metric path that addresses nothing); finished
    tasks stay stored. Each stored task carries its manifest (kind "sweep-point",
    ``command`` the argv that computed it)."""
    t0 = time.monotonic()
    derived = [d.as_dict() for d in spec.derived]
    try:
        check_derived(derived)
    except MetricError as e:
        raise SweepError(f"{spec.source}: derived: {e}") from None
    points = expand(spec)
    tasks = spec.tasks(points)
    keys = [task_key(t.point.scenario, t.seed) for t in tasks]
    store = Store(out)
    if fresh and store.points.exists():
        shutil.rmtree(store.points)
    store.prepare()
    previous = store.previous_spec_hash()
    changed = previous is not None and previous != spec_hash(spec)
    store.write_spec(spec, {"tasks": len(tasks), "points": len(points)})

    docs: dict[int, dict[str, Any]] = {}
    todo: list[int] = []
    for i, (task, key) in enumerate(zip(tasks, keys)):
        doc = store.load(key, task.seed, derived)
        if doc is not None:
            docs[i] = doc
        else:
            todo.append(i)
    reused = len(docs)
    checked = False
    if docs:  # metric paths against a stored summary, before any work
        first = next(iter(docs))
        _metrics_of(spec, docs[first], tasks[first])
        checked = True

    # The same (scenario, seed) twice in one sweep (e.g. an axis value equal to the
    # base) is computed once.
    unique: dict[str, int] = {}
    for i in todo:
        unique.setdefault(keys[i], i)
    jobs = [(tasks[i].point.scenario, tasks[i].seed, derived) for i in unique.values()]
    job_tasks = list(unique.values())
    if progress is not None:
        progress(0, len(jobs))
    for n, (j, result) in enumerate(executor.run(jobs), start=1):
        i = job_tasks[j]
        task = tasks[i]
        if "error" in result:
            error = str(result["error"]).removeprefix("<dict>: ")
            where = f"{spec.source}: point {task.point.label}, seed {task.seed}"
            if "bug" in result:  # not bad input: no SweepError, so the CLI shows it as a bug
                raise RuntimeError(f"{where}: {result['bug']}: {error}")
            raise SweepError(f"{where}: {error}")
        doc = store.save(keys[i], task, result, point_manifest(spec, task, command))
        docs[i] = doc
        if not checked:
            _metrics_of(spec, doc, task)
            checked = True
        if progress is not None:
            progress(n, len(jobs))
    for i in todo:  # duplicates of a computed task
        if i not in docs:
            docs[i] = docs[unique[keys[i]]]

    rows = [(task, _metrics_of(spec, docs[i], task)) for i, task in enumerate(tasks)]
    per_point = point_stats(spec, points, rows)
    files = [write_results(store.out, spec, rows), write_summary(store.out, spec, per_point)]
    elapsed = time.monotonic() - t0
    store.write_spec(
        spec,
        {"tasks": len(tasks), "points": len(points), "reused": reused, "computed": len(jobs),
         "executor": executor.name, "elapsed_s": round(elapsed, 3)},
    )
    return SweepResult(
        spec=spec,
        out=store.out,
        points=points,
        rows=rows,
        per_point=per_point,
        reused=reused,
        computed=len(jobs),
        elapsed_s=elapsed,
        spec_changed=changed,
        best=best_points(spec, per_point, top),
        files=files,
    )
