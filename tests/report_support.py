"""Fixtures for the report tests: small reproductions assembled by hand, exactly as
docs/CATALOGUE.md describes results.json (the reproduce runner is not needed).

``table5(out)``: paper 000 Table 5, uncoupled and FSEv2, shortened to 20 s, 2 runs.
``sweep(out)``: a made-up grid, FSEv2 at two SCTP priorities, 2 runs.
"""

from __future__ import annotations

import atexit
import json
import math
import shutil
import tempfile
import tomllib
from pathlib import Path
from typing import Any, Optional, Sequence

import flowstate
from flowstate.report.figures import metric_stats
from flowstate.overrides import load_toml, with_overrides

ROOT = Path(__file__).resolve().parent.parent
TABLE5 = ROOT / "scenarios" / "p000-table5"
SEED = 1
RUNS = 2
SHORT = {
    "duration": "20s",
    "flows.gcc.stop": "20s",
    "flows.sctp.start": "5s",
    "flows.sctp.stop": "20s",
    "measure.start": "5s",
    "measure.end": "20s",
}


def _experiment() -> dict[str, Any]:
    """scenarios/p000-table5/experiment.toml (the paper id is ``paper_id``; ``[[paper]]``
    holds the paper's numbers, docs/CATALOGUE.md)."""
    text = (TABLE5 / "experiment.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def _paper_numbers(experiment: dict[str, Any]) -> list[dict[str, Any]]:
    """The paper's numbers: the array of tables with point, metric and value, whatever
    its name."""
    for value in experiment.values():
        if isinstance(value, list) and value and all(
            isinstance(v, dict) and {"point", "metric", "value"} <= v.keys() for v in value
        ):
            return value
    raise AssertionError("experiment.toml: no paper numbers found")


def _point_dir(name: str) -> str:
    return "".join("_" if c in "[],=" else c for c in name)


def _run_point(
    out: Path, name: str, overrides: dict[str, Any], short: Optional[dict[str, Any]] = SHORT, runs: int = RUNS
) -> dict[str, Any]:
    scenario = with_overrides(load_toml(TABLE5 / "base.toml"), {**(short or {}), **overrides})
    result = flowstate.run(scenario, seed=SEED, runs=runs)
    result.write(out / _point_dir(name))
    return {"summary": result.summary, "dir": _point_dir(name)}


def _comparison(points: list[dict[str, Any]], paper: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_name = {p["name"]: p for p in points}
    rows = []
    for entry in paper:
        stats = metric_stats(by_name[entry["point"]], entry["metric"]) or {}
        row = {"point": entry["point"], "metric": entry["metric"]}
        if "label" in entry:
            row["label"] = entry["label"]
        row.update(
            paper=entry["value"], ours=stats.get("mean"), std=stats.get("std"), min=stats.get("min"), max=stats.get("max")
        )
        rows.append(row)
    return rows


def _claim(text: str, check: str, values: dict[str, Any], holds: Any) -> dict[str, Any]:
    if any(v is None for v in values.values()):
        status = "not evaluated"
    else:
        status = "holds" if holds(*values.values()) else "fails"
    return {"text": text, "check": check, "status": status, "values": values}


def _write(out: Path, results: dict[str, Any]) -> Path:
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return out


def table5(
    out: Path, names: Sequence[str] = ("none", "fsev2"), short: Optional[dict[str, Any]] = SHORT, runs: int = RUNS
) -> Path:
    """The p000-table5 reproduction: by default uncoupled and FSEv2 only, 20 s, 2 runs
    (``short=None``: the experiment's full length)."""
    out.mkdir(parents=True, exist_ok=True)
    experiment = _experiment()
    variants = [v for v in experiment["variants"] if v["name"] in names]
    points = []
    for v in variants:
        point = {"name": v["name"], "variant": v["name"], "label": v.get("label", v["name"]), "grid": {}}
        point.update(_run_point(out, v["name"], v.get("set", {}), short, runs))
        point["derived"] = {}
        points.append(point)
    paper = [p for p in _paper_numbers(experiment) if p["point"] in names]
    paper[0] = {**paper[0], "label": "GCC throughput (Mbit/s)"}
    by = {p["name"]: p for p in points}

    def mean(point: str, metric: str) -> Any:
        stats = metric_stats(by[point], metric)
        return None if stats is None else stats["mean"]

    claims = [
        _claim(
            "uncoupled: GCC starved, Jain < 0.75",
            "{none:aggregate.jain_index} < 0.75 and {none:flows.gcc.share} < 0.25",
            {"{none:aggregate.jain_index}": mean("none", "aggregate.jain_index"),
             "{none:flows.gcc.share}": mean("none", "flows.gcc.share")},
            lambda j, s: j < 0.75 and s < 0.25,
        ),
        _claim(
            "FSEv2: Jain >= 0.98 and GCC RTT well below (< 75 % of) the uncoupled case",
            "{fsev2:aggregate.jain_index} >= 0.98 and {fsev2:flows.gcc.rtt_ms.mean} < 0.75 * {none:flows.gcc.rtt_ms.mean}",
            {"{fsev2:aggregate.jain_index}": mean("fsev2", "aggregate.jain_index"),
             "{fsev2:flows.gcc.rtt_ms.mean}": mean("fsev2", "flows.gcc.rtt_ms.mean"),
             "{none:flows.gcc.rtt_ms.mean}": mean("none", "flows.gcc.rtt_ms.mean")},
            lambda j, r, r0: j >= 0.98 and r < 0.75 * r0,
        ),
        _claim("a claim on a metric without a value", "{none:derived.missing} > 1",
               {"{none:derived.missing}": None}, lambda v: v > 1),
    ]
    results = {
        "id": "p000-table5",
        "paper": experiment["paper_id"],
        "reference": experiment["reference"],
        "title": experiment["title"],
        "finding": experiment["finding"],
        "notes": "Test fixture: 20 s instead of 120 s, 2 runs, two of the four mechanisms." if short else "",
        "runs": runs,
        "seed": SEED,
        "short": short is not None,
        "elapsed_s": 1.0,
        "axes": [],
        "points": points,
        "comparison": _comparison(points, paper),
        "claims": claims,
        "figures": [*experiment["figures"], {"kind": "rtt", "flows": ["gcc"], "title": "GCC RTT <over time> & more"}],
    }
    return _write(out, results)


def sweep(out: Path) -> Path:
    """A made-up grid: FSEv2 with the SCTP priority at 1.0 and 0.25 (and a paper value)."""
    out.mkdir(parents=True, exist_ok=True)
    axis = {"name": "p_sctp", "key": "flows[1].priority", "label": "SCTP priority"}
    points = []
    for value in (1.0, 0.25):
        name = f"fsev2[p_sctp={value}]"
        point = {"name": name, "variant": "fsev2", "label": "FSEv2", "grid": {"p_sctp": value}}
        point.update(_run_point(out, name, {"coupling.mechanism": "fsev2", axis["key"]: value}))
        share = metric_stats(point, "flows.sctp.share")
        point["derived"] = {"sctp_share_x2": {"mean": 2 * share["mean"], "std": 0.0, "min": 2 * share["min"],
                                              "max": 2 * share["max"], "values": []}}
        points.append(point)
    paper = [{"point": "fsev2[p_sctp=0.25]", "metric": "flows.sctp.share", "value": 0.2}]
    results = {
        "id": "sweep-demo",
        "paper": "000",
        "reference": "made up for the tests",
        "title": "FSEv2 against the SCTP priority",
        "finding": "The SCTP share follows its priority share.",
        "notes": "",
        "runs": RUNS,
        "seed": SEED,
        "short": True,
        "elapsed_s": 1.0,
        "axes": [axis],
        "points": points,
        "comparison": _comparison(points, paper),
        "claims": [
            _claim("SCTP share near its priority share at p = 0.25", "abs({fsev2[p_sctp=0.25]:flows.sctp.share} - 0.2) < 0.1",
                   {"{fsev2[p_sctp=0.25]:flows.sctp.share}": metric_stats(points[1], "flows.sctp.share")["mean"]},
                   lambda s: math.fabs(s - 0.2) < 0.1),
        ],
        "figures": [
            {"kind": "sweep", "x": "p_sctp", "y": "flows.sctp.share"},
            {"kind": "sweep", "y": "derived.sctp_share_x2"},
            {"kind": "bar", "metrics": ["flows.gcc.throughput_mbps", "flows.sctp.throughput_mbps", "aggregate.jain_index"]},
        ],
    }
    return _write(out, results)


_BUILT: dict[str, Path] = {}


def simulated(name: str) -> Path:
    """The fixture ``name`` ("table5" or "sweep") simulated once per test process, in a
    temporary folder: copy it (:func:`copy`) before changing it."""
    if name not in _BUILT:
        root = Path(tempfile.mkdtemp(prefix="flowstate-report-"))
        atexit.register(shutil.rmtree, root, True)
        folder = {"table5": "p000-table5", "sweep": "sweep-demo"}[name]
        _BUILT[name] = {"table5": table5, "sweep": sweep}[name](root / folder)
    return _BUILT[name]


def copy(src: Path, dst: Path) -> Path:
    """A copy of a fixture folder (tests that rebuild or corrupt it work on a copy)."""
    shutil.copytree(src, dst)
    return dst
