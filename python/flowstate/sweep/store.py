"""The result store of a sweep folder OUT (docs/SWEEPS.md):

- ``OUT/points/<key>.json``: one finished task (point, seed, scenario, the run's summary,
  derived values, its manifest: what produced it); ``key`` is a hash of (scenario dict, seed), so a task is found again
  whatever sweep, axis order or point index produced it. Written to a temporary file and
  renamed: a file is either complete or absent (Ctrl-C, crash).
- ``OUT/sweep.json``: the spec and its hash.
- ``OUT/results.csv``: one row per point and seed; ``OUT/summary.csv``: one row per
  point, mean/std/min/max over the seeds of every metric.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import os
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from flowstate.output_files import SWEEP_POINTS_DIR, SWEEP_RESULTS_FILE, SWEEP_SPEC_FILE, SWEEP_SUMMARY_FILE
from flowstate.sweep.spec import Point, SweepSpec, Task, format_value

# Hex digits of the task key: 80 bits, no collision in any realistic sweep.
KEY_HEX = 20
STATS = ("mean", "std", "min", "max")


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)


def task_key(scenario: Mapping[str, Any], seed: int) -> str:
    """The name of a task's result: a hash of the scenario dict and the seed (what the
    run is a pure function of)."""
    text = canonical_json({"scenario": scenario, "seed": seed})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:KEY_HEX]


def spec_hash(spec: SweepSpec) -> str:
    return hashlib.sha256(canonical_json(spec.as_dict()).encode("utf-8")).hexdigest()[:KEY_HEX]


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


class Store:
    """The folder of one sweep."""

    def __init__(self, out: str | os.PathLike[str]) -> None:
        self.out = Path(out)
        self.points = self.out / SWEEP_POINTS_DIR

    def prepare(self) -> None:
        self.points.mkdir(parents=True, exist_ok=True)

    def path(self, key: str) -> Path:
        return self.points / f"{key}.json"

    def load(self, key: str, seed: int, derived: Sequence[Mapping[str, Any]]) -> Optional[dict[str, Any]]:
        """A finished task's document if it is there, readable, for this seed, and holds
        every wanted derived metric with the same function and args; else None."""
        try:
            doc = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(doc, dict) or doc.get("key") != key or doc.get("seed") != seed:
            return None
        if not isinstance(doc.get("summary"), dict):
            return None
        have = doc.get("derived") or {}
        for d in derived:
            entry = have.get(d["name"])
            if not isinstance(entry, dict) or entry.get("fn") != d["fn"] or entry.get("args") != dict(d["args"]):
                return None
        return doc

    def save(
        self, key: str, task: Task, result: Mapping[str, Any], manifest: Optional[Mapping[str, Any]] = None
    ) -> dict[str, Any]:
        """Stores a finished task (keeping derived values of an older run of it), with
        ``manifest``, what produced it (flowstate.manifest, kind "sweep-point"), and
        returns its document."""
        old = self.load(key, task.seed, [])
        derived = {**((old or {}).get("derived") or {}), **result.get("derived", {})}
        doc = {
            "key": key,
            "seed": task.seed,
            "point": {k: v for k, v in task.point.values.items()},
            "scenario": task.point.scenario,
            "summary": result["summary"],
            "derived": derived,
        }
        if manifest is not None:
            doc["manifest"] = dict(manifest)
        write_atomic(self.path(key), json.dumps(doc, default=str) + "\n")
        return doc

    def previous_spec_hash(self) -> Optional[str]:
        try:
            doc = json.loads((self.out / SWEEP_SPEC_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return doc.get("spec_hash") if isinstance(doc, dict) else None

    def write_spec(self, spec: SweepSpec, extra: Mapping[str, Any]) -> None:
        doc = {"spec_hash": spec_hash(spec), **extra, "spec": spec.as_dict()}
        write_atomic(self.out / SWEEP_SPEC_FILE, json.dumps(doc, indent=2, default=str) + "\n")


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (dict, list)):  # an array or table axis value, as a label
        return format_value(value)
    return value


def stats(values: Sequence[Optional[float]]) -> dict[str, Optional[float]]:
    """Mean, sample standard deviation, min and max of the non-null values."""
    xs = [v for v in values if v is not None]
    if not xs:
        return {k: None for k in STATS}
    mean = math.fsum(xs) / len(xs)
    std = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0
    return {"mean": mean, "std": std, "min": min(xs), "max": max(xs)}


def write_results(
    out: Path, spec: SweepSpec, rows: Sequence[tuple[Task, Mapping[str, Optional[float]]]]
) -> Path:
    """results.csv: point, axis values, seed, metrics (empty cell: no value)."""
    path = out / SWEEP_RESULTS_FILE
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["point", *(a.name for a in spec.axes), "seed", *spec.metrics])
        for task, metrics in rows:
            w.writerow(
                [
                    task.point.label,
                    *(_cell(task.point.values[a.name]) for a in spec.axes),
                    task.seed,
                    *(_cell(metrics.get(m)) for m in spec.metrics),
                ]
            )
    return path


def point_stats(
    spec: SweepSpec, points: Sequence[Point], rows: Sequence[tuple[Task, Mapping[str, Optional[float]]]]
) -> list[tuple[Point, int, dict[str, dict[str, Optional[float]]]]]:
    """Per point: the number of seeds and the stats of every metric over them."""
    by_point: dict[int, list[Mapping[str, Optional[float]]]] = {p.index: [] for p in points}
    for task, metrics in rows:
        by_point[task.point.index].append(metrics)
    return [
        (p, len(by_point[p.index]), {m: stats([r.get(m) for r in by_point[p.index]]) for m in spec.metrics})
        for p in points
    ]


def write_summary(out: Path, spec: SweepSpec, per_point: Sequence[tuple[Point, int, dict[str, Any]]]) -> Path:
    """summary.csv: point, axis values, runs, then <metric>_mean/_std/_min/_max."""
    path = out / SWEEP_SUMMARY_FILE
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(
            ["point", *(a.name for a in spec.axes), "runs", *(f"{m}_{s}" for m in spec.metrics for s in STATS)]
        )
        for point, runs, st in per_point:
            w.writerow(
                [
                    point.label,
                    *(_cell(point.values[a.name]) for a in spec.axes),
                    runs,
                    *(_cell(st[m][s]) for m in spec.metrics for s in STATS),
                ]
            )
    return path


def best_points(
    spec: SweepSpec, per_point: Sequence[tuple[Point, int, dict[str, Any]]], top: int
) -> list[tuple[Point, int, dict[str, Any]]]:
    """The ``top`` points by the objective's mean (``goal`` max or min; ties: grid order;
    points without a value last)."""
    if spec.objective is None:
        return []
    sign = -1.0 if spec.goal == "max" else 1.0
    with_value = [p for p in per_point if p[2][spec.objective]["mean"] is not None]
    ranked = sorted(with_value, key=lambda p: (sign * p[2][spec.objective]["mean"], p[0].index))
    return ranked[:top]


def describe(point: Point) -> str:
    return ", ".join(f"{k} = {format_value(v)}" for k, v in point.values.items()) or "base"
