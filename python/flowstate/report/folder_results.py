"""A results.json (docs/CATALOGUE.md) for any output folder, so that ``flowstate report``
draws it like a reproduction, without the paper's columns; and the one of
``flowstate compare`` (several folders side by side).

The folders it reads::

    flowstate run / --runs K / testbed / browser   DIR/summary.json + DIR/timeseries.csv
        (a browser batch also has DIR/run-1..run-K; the top-level files hold all runs)
    a reproduction's point                         the same
    a folder of such folders                       DIR/*/summary.json (one point each, labelled
                                                   from its manifest.json as in compare)
    flowstate sweep                                DIR/sweep.json + DIR/points/*.json
        (one point per grid point, its seeds combined; no time series)

::

    from flowstate.report import folder_results

    doc = folder_results.results_for(Path("out/my-run"))   # a dict in results.json's shape
    folder_results.write(Path("out/my-run"))                # writes it (unless a reproduction's)

A results.json written here carries ``"source": "folder"`` (or ``"compare"``): it is
rebuilt from the folder each time, while a reproduction's results.json (no ``source``)
is read as it is.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from flowstate.output_files import (
    BROWSER_FILE,
    MANIFEST_FILE,
    RESULTS_FILE,
    SUMMARY_FILE,
    SWEEP_POINTS_DIR,
    SWEEP_SPEC_FILE,
    TESTBED_FILE,
    TIMESERIES_FILE,
    run_dir,
)
from flowstate.report import input_files
from flowstate.report.input_files import ReportError
from flowstate.report.report import check_results, check_summary
from flowstate.report.report import _point_dir as point_dir

SOURCE_FOLDER = "folder"
SOURCE_COMPARE = "compare"
TIME_KINDS = ("rate", "rtt", "queue")

# What made a folder, told by the files next to summary.json.
KINDS = {
    "run": "simulation (flowstate run)",
    "testbed": "testbed run (real time, real UDP)",
    "browser": "real run: Chromium / kernel TCP through the IP-level bottleneck",
    "sweep": "parameter sweep (flowstate sweep)",
}


def folder_kind(folder: Path) -> str:
    """``run``, ``testbed``, ``browser`` or ``sweep``: what wrote ``folder``."""
    if (folder / SWEEP_SPEC_FILE).is_file():
        return "sweep"
    if (folder / TESTBED_FILE).is_file():
        return "testbed"
    if (folder / BROWSER_FILE).is_file() or (folder / run_dir(1) / BROWSER_FILE).is_file():
        return "browser"
    return "run"


def _read_json(path: Path) -> Any:
    return input_files.read_json(path)


def _summary(path: Path) -> dict[str, Any]:
    summary = input_files.read_json(path)
    if not isinstance(summary, dict) or not isinstance(summary.get("flows"), list):
        raise ReportError(f"{path}: not a summary (no 'flows' list)")
    check_summary(summary, str(path))
    return summary


def _point(name: str, label: str, dir_: Optional[str], summary: dict[str, Any], grid: Optional[dict] = None) -> dict:
    point: dict[str, Any] = {
        "name": name, "variant": name, "label": label, "grid": grid or {}, "summary": summary, "derived": {},
    }
    if dir_ is not None:
        point["dir"] = dir_
    return point


def _flows(points: Sequence[Mapping[str, Any]]) -> list[str]:
    names: list[str] = []
    for point in points:
        for flow in point["summary"]["flows"]:
            if flow.get("name") not in names:
                names.append(str(flow.get("name")))
    return names


def _video_flows(points: Sequence[Mapping[str, Any]]) -> list[str]:
    """The flows with a receiver video-quality block (summary.json flows[].video) at some point."""
    names: list[str] = []
    for point in points:
        for flow in point["summary"]["flows"]:
            if flow.get("video") and flow.get("name") not in names:
                names.append(str(flow.get("name")))
    return names


def default_figures(points: Sequence[Mapping[str, Any]], *, overlay: bool, with_series: bool) -> list[dict[str, Any]]:
    """The figures of a folder's report: the time series (one panel per point, or per flow
    with ``overlay``), the RTT box plot, and with several points bars of every flow's
    throughput, share, RTT and queuing delay, of the video flows' frame rate, freezes and
    frame delay, and of the fairness indices."""
    figs: list[dict[str, Any]] = []
    if with_series:
        figs += [{"kind": kind, "overlay": True} if overlay else {"kind": kind} for kind in TIME_KINDS]
        figs.append({"kind": "rtt_box"})
    if len(points) > 1:
        flows = _flows(points)
        for field, title in (
            ("throughput_mbps", "Throughput per flow"),
            ("share", "Share of the total throughput per flow"),
            ("rtt_ms.mean", "Mean RTT per flow"),
            ("queuing_delay_ms.mean", "Mean queuing delay per flow"),
        ):
            figs.append({
                "kind": "bar", "metrics": [f"flows.{f}.{field}" for f in flows],
                "title": title,
            })
        videos = _video_flows(points)
        for field, title in (
            ("video.fps", "Frame rate per video flow"),
            ("video.freezes_per_min", "Freezes per minute per video flow"),
            ("video.frame_delay_ms.mean", "Mean frame delay per video flow"),
        ):
            if videos:
                figs.append({"kind": "bar", "metrics": [f"flows.{f}.{field}" for f in videos], "title": title})
        figs.append({
            "kind": "bar",
            "metrics": ["aggregate.throughput_mbps", "aggregate.utilization", "aggregate.jain_index",
                        "aggregate.weighted_jain_index"],
            "title": "Aggregate",
        })
    return figs


def _document(rid: str, title: str, reference: str, points: list[dict], source: str, **extra: Any) -> dict[str, Any]:
    first = points[0]["summary"] if points else {}
    return {
        "id": rid,
        "paper": "",
        "reference": reference,
        "title": title,
        "finding": "",
        "notes": "",
        "source": source,
        "runs": int(first.get("runs") or 1),
        "seed": first.get("seed", 1),
        "short": False,
        "elapsed_s": None,
        "axes": [],
        "points": points,
        "comparison": [],
        "claims": [],
        "figures": [],
        **extra,
    }


def _axis_order(spec: Mapping[str, Any], grid: Mapping[str, Any]) -> tuple[Any, ...]:
    """Where a sweep point sorts: by the index of its value on each axis of sweep.json,
    first axis slowest (as results.csv); a point of an older spec (a value not on an
    axis) after the others, by its values."""
    key: list[Any] = []
    for axis in spec.get("axes") or []:
        if not isinstance(axis, dict):
            continue
        values = [repr(v) for v in axis.get("values") or []]
        value = repr(grid.get(axis.get("name")))
        key.append(values.index(value) if value in values else len(values))
    return (*key, json.dumps(grid, sort_keys=True))


def _sweep_results(folder: Path) -> dict[str, Any]:
    from flowstate.simulation import combine_summaries

    spec_path = folder / SWEEP_SPEC_FILE
    document = _read_json(spec_path)
    spec = document.get("spec") if isinstance(document, dict) else None
    if not isinstance(spec, dict):
        raise ReportError(f"{spec_path}: not a sweep file (no 'spec' object)")
    if not isinstance(spec.get("axes") or [], list):
        raise ReportError(f"{spec_path}: spec.axes is not a list")
    by_point: dict[str, tuple[dict, list[dict]]] = {}
    for path in sorted((folder / SWEEP_POINTS_DIR).glob("*.json")):
        task = _read_json(path)
        if not isinstance(task, dict) or not isinstance(task.get("summary"), dict):
            raise ReportError(f"{path}: not a sweep task (no 'summary')")
        check_summary(task["summary"], f"{path}: summary")
        grid = task.get("point") if isinstance(task.get("point"), dict) else {}
        key = json.dumps(grid, sort_keys=True)
        by_point.setdefault(key, (grid, []))[1].append(task["summary"])
    if not by_point:
        raise ReportError(f"{folder}: a sweep folder without finished points ({folder / 'points'}/*.json)")
    points = []
    for grid, summaries in sorted(by_point.values(), key=lambda entry: _axis_order(spec, entry[0])):
        summaries.sort(key=lambda s: s.get("seed", 0))
        name = ", ".join(f"{k}={v}" for k, v in grid.items()) or "point"
        try:
            combined = combine_summaries(summaries)
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ReportError(f"{folder / SWEEP_POINTS_DIR}: the runs of point {name!r} cannot be combined "
                              f"({type(e).__name__}: {e})") from None
        points.append(_point(name, str(spec.get("name") or "sweep"), None, combined, grid))
    axes = [
        {"name": a.get("name"), "key": a.get("key", ""), "label": a.get("label") or a.get("name")}
        for a in spec.get("axes") or [] if isinstance(a, dict) and a.get("name")
    ]
    doc = _document(
        str(spec.get("name") or folder.name), f"sweep: {spec.get('name') or folder.name}", KINDS["sweep"],
        points, SOURCE_FOLDER, axes=axes,
    )
    doc["runs"] = max(int(p["summary"].get("runs") or 1) for p in points)
    figs = []
    if axes:
        for y in ["aggregate.throughput_mbps", "aggregate.utilization", "aggregate.jain_index",
                  "aggregate.weighted_jain_index"] + [f"flows.{f}.throughput_mbps" for f in _flows(points)]:
            figs.append({"kind": "sweep", "x": axes[0]["name"], "y": y})
    doc["figures"] = figs + default_figures(points, overlay=False, with_series=False)
    return doc


def results_for(folder: Path) -> dict[str, Any]:
    """The results.json document of an output folder (see the module's docstring); a
    reproduction's own results.json as it is. ReportError (one line) for a folder that
    is none of these."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ReportError(f"{folder}: not a folder")
    existing = folder / RESULTS_FILE
    if existing.is_file():
        doc = _read_json(existing)
        if isinstance(doc, dict) and doc.get("source") != SOURCE_FOLDER:
            return check_results(doc, existing)
    kind = folder_kind(folder)
    if kind == "sweep":
        return _sweep_results(folder)
    if (folder / SUMMARY_FILE).is_file():
        summary = _summary(folder / SUMMARY_FILE)
        name = str(summary.get("scenario") or folder.name)
        label = {"testbed": "testbed", "browser": "real"}.get(kind, name)
        points = [_point(kind if kind != "run" else name, label, ".", summary)]
    else:
        children = sorted(p.parent for p in folder.glob(f"*/{SUMMARY_FILE}"))
        if not children:
            raise ReportError(
                f"{folder / RESULTS_FILE}: not found, nor {SUMMARY_FILE} or */{SUMMARY_FILE} (not an output "
                "folder of flowstate run, reproduce, testbed, browser or sweep)"
            )
        labels = provenance_labels(children, [read_manifest(c) for c in children])
        points = [_point(c.name, label, c.name, _summary(c / SUMMARY_FILE)) for c, label in zip(children, labels)]
        name = folder.name
    with_series = all((folder / p["dir"] / TIMESERIES_FILE).exists() for p in points)
    doc = _document(name, f"{kind}: {name}" if kind != "run" else name, KINDS[kind], points, SOURCE_FOLDER)
    doc["figures"] = default_figures(points, overlay=False, with_series=with_series)
    return doc


def write(folder: Path) -> Path:
    """Writes ``folder``'s results.json (see :func:`results_for`) unless it is a
    reproduction's; returns its path."""
    folder = Path(folder)
    doc = results_for(folder)
    path = folder / RESULTS_FILE
    if doc.get("source") == SOURCE_FOLDER:
        path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def is_output_folder(folder: Path) -> bool:
    """Whether ``folder`` holds something :func:`results_for` reads."""
    folder = Path(folder)
    return folder.is_dir() and (
        (folder / RESULTS_FILE).is_file()
        or (folder / SUMMARY_FILE).is_file()
        or (folder / SWEEP_SPEC_FILE).is_file()
        or any(folder.glob(f"*/{SUMMARY_FILE}"))
    )


# ---------------------------------------------------------------- compare


def _labels(folders: Sequence[Path]) -> list[str]:
    """Short distinct names of the folders: their base names, or longer tails of their
    paths where base names repeat."""
    parts = [Path(os.path.abspath(f)).parts for f in folders]
    for depth in range(1, max(len(p) for p in parts) + 1):
        labels = ["/".join(p[-depth:]) for p in parts]
        if len(set(labels)) == len(labels):
            return labels
    return [f"{i + 1}: {label}" for i, label in enumerate(labels)]


def read_manifest(folder: Path) -> Optional[dict[str, Any]]:
    """``folder``'s manifest.json (what made it: its mechanism, ``--set`` values), None for
    a folder written before manifests; ReportError for a damaged one."""
    path = Path(folder) / MANIFEST_FILE
    if not path.exists():
        return None
    manifest = input_files.read_json(path)
    if not isinstance(manifest, dict):
        raise ReportError(f"{path}: expected a JSON object at the top level")
    sets = manifest.get("sets", [])
    if not isinstance(sets, list) or not all(isinstance(s, str) and "=" in s for s in sets):
        raise ReportError(f"{path}: field 'sets' is not a list of \"PATH=VALUE\" strings")
    coupling = manifest.get("coupling", {})
    if not isinstance(coupling, dict) or not isinstance(coupling.get("mechanism", ""), (str, type(None))):
        raise ReportError(f"{path}: field 'coupling' is not an object with a 'mechanism' string")
    return manifest


def _sets(manifest: Mapping[str, Any]) -> dict[str, str]:
    """The manifest's ``--set`` values by path (the last one given wins)."""
    out: dict[str, str] = {}
    for text in manifest.get("sets") or []:
        path, _, value = str(text).partition("=")
        out.pop(path.strip(), None)
        out[path.strip()] = value.strip()
    return out


MECHANISM_PATH = "coupling.mechanism"


def provenance_labels(folders: Sequence[Path], manifests: Sequence[Optional[Mapping[str, Any]]]) -> list[str]:
    """A label per folder from its manifest: its coupling mechanism and the ``--set``
    values that differ between the folders (``fsev2, link.capacity=4Mbps``); the folder's
    name (:func:`_labels`) where it has no manifest. Labels that would repeat get the
    folder's name in parentheses."""
    names = _labels(folders)
    sets = [_sets(m) if m is not None else {} for m in manifests]
    with_manifest = [s for s, m in zip(sets, manifests) if m is not None]
    paths = list(dict.fromkeys(p for s in with_manifest for p in s if p != MECHANISM_PATH))
    differing = [p for p in paths if len({s.get(p) for s in with_manifest}) > 1]
    labels = []
    for name, manifest, own in zip(names, manifests, sets):
        if manifest is None:
            labels.append(name)
            continue
        mechanism = (manifest.get("coupling") or {}).get("mechanism") or own.get(MECHANISM_PATH)
        parts = ([str(mechanism)] if mechanism else []) + [f"{p}={own[p]}" for p in differing if p in own]
        labels.append(", ".join(parts) or name)
    counts = {label: labels.count(label) for label in labels}
    return [
        label if counts[label] == 1 or label == name else f"{label} ({name})" for label, name in zip(labels, names)
    ]


def compare_out(folders: Sequence[Path]) -> Path:
    """``out/compare-A-vs-B...`` (the default output folder of ``flowstate compare``)."""
    text = "-vs-".join(Path(os.path.abspath(f)).name for f in folders)
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._")[:100] or "folders"
    return Path("out") / f"compare-{safe}"


def compare_results(folders: Sequence[Path], out: Path) -> dict[str, Any]:
    """The results.json of ``flowstate compare``: every point of every folder, named by
    its folder's provenance (:func:`provenance_labels`; and the point's own name when a
    folder has several), its ``dir`` relative to ``out``; time series overlaid (one panel
    per flow), bars of each flow's metrics."""
    if len(folders) < 2:
        raise ReportError("compare: give at least two output folders")
    docs = [results_for(Path(folder)) for folder in folders]
    labels = provenance_labels(folders, [read_manifest(Path(folder)) for folder in folders])
    points: list[dict[str, Any]] = []
    runs = 1
    for label, folder, doc in zip(labels, folders, docs):
        own = doc.get("points") or []
        for point in own:
            name = label if len(own) == 1 else f"{label}/{point.get('label') or point['name']}"
            copy = dict(point, name=name, variant=name, label=name, grid={})
            base = Path(folder) / point_dir(point)
            copy["dir"] = os.path.relpath(os.path.abspath(base), os.path.abspath(out))
            if not (base / TIMESERIES_FILE).exists():
                copy.pop("dir")
            points.append(copy)
            runs = max(runs, int(point["summary"].get("runs") or 1))
    doc = _document(
        "compare",
        " vs ".join(labels),
        "flowstate compare: " + ", ".join(str(f) for f in folders),
        points,
        SOURCE_COMPARE,
    )
    doc["runs"] = runs
    with_series = all("dir" in p for p in points)
    doc["figures"] = default_figures(points, overlay=True, with_series=with_series)
    return doc

