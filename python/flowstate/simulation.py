"""Running scenarios on the deterministic packet-level simulator.

::

    import flowstate

    result = flowstate.run("scenarios/half-load.toml", seed=1, runs=3)
    result.summary["aggregate"]["utilization"]   # mean over the 3 runs
    result.summary["aggregate"]["spread"]        # {"utilization": {"std", "min", "max"}, ...}
    result.timeseries                            # pandas DataFrame, one row per run, flow and bin
    result.flows                                 # pandas DataFrame, one row per run and flow

A scenario is a path to a TOML file (schema: docs/SCENARIOS.md), a dict of the same
shape (``None`` values are left out), or TOML text given by keyword::

    flowstate.run(toml='name = "x"\nduration = "10s"\n...')

A string passed positionally is always a path (never guessed to be TOML text).
``set=`` and ``unset=`` change the scenario before it runs, as ``--set`` / ``--unset``
do on the command line::

    flowstate.run("scenarios/half-load.toml", set={"link.capacity": "4Mbps"}, unset=["seed"])

Each run is a pure function of (scenario, seed):
the runs of a batch use the seeds ``seed, seed + 1, ..., seed + runs - 1`` and give the
same results whatever the number of threads they run on.

pandas is imported only when ``timeseries`` or ``flows`` is first read.
"""

from __future__ import annotations

import csv
import json
import math
import os
import tomllib
from functools import cached_property
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional, Sequence, Union

from flowstate import _native
from flowstate._native import FlowstateError, ScenarioError
from flowstate.input_file import NotReadable, read_bytes
from flowstate.json_text import dumps_indent2
from flowstate.output_files import LINKS_TIMESERIES_FILE, SUMMARY_FILE, TIMESERIES_FILE

if TYPE_CHECKING:  # pragma: no cover
    import pandas

ScenarioSource = Union[str, "os.PathLike[str]", Mapping[str, Any]]
Progress = Callable[[int, int], Any]

# What ``set=`` may put into a scenario: what TOML can write.
_TOML_VALUES = (str, int, float, bool, list, dict)

MAX_SEED = 2**64 - 1
# Most runs of one batch: every run's result stays in memory, and the native batch
# allocates per run up front (10**11 runs aborted the process on a failed allocation).
MAX_RUNS = 100_000

# Per-flow fields that describe the set-up, not a measurement: no spread for them.
_CONSTANT_FIELDS = frozenset({"name", "kind", "priority", "priority_share"})


def _check_int(name: str, value: Any, minimum: int, maximum: int = MAX_SEED) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if not minimum <= value <= maximum:
        raise FlowstateError(f"{name} must be in [{minimum}, {maximum}], got {value}")
    return value


TOML_TEXT = "<toml>"


def _looks_like_toml(text: str) -> bool:
    """Text no one would name a file: several lines, or ``key = value``. Used only to
    word the error of a path that cannot be read, never to pick a reading."""
    return "\n" in text or ("=" in text and not Path(text).suffix)


def load_scenario(scenario: Optional[ScenarioSource] = None, *, toml: Optional[str] = None) -> tuple[str, str]:
    """The TOML text of ``scenario`` (a path or a dict) or of ``toml`` (TOML text), and
    the name errors call it by (the path as given, ``<dict>`` or ``<toml>``). Exactly one
    of the two must be given. A file that cannot be read raises ScenarioError."""
    if toml is not None:
        if scenario is not None:
            raise TypeError("give a scenario (a path or a dict) or toml= (TOML text), not both")
        if not isinstance(toml, str):
            raise TypeError(f"toml must be TOML text (a str), got {type(toml).__name__}")
        return toml, TOML_TEXT
    if scenario is None:
        raise TypeError("a scenario is required: a path, a dict, or TOML text as toml=...")
    if isinstance(scenario, Mapping):
        return _native.scenario_toml(dict(scenario)), "<dict>"
    if isinstance(scenario, (str, os.PathLike)):
        file = os.fspath(scenario)
        if isinstance(file, str) and not file.strip():
            raise ScenarioError(f"scenario file: empty path {file!r}")
        try:
            return read_bytes(file, "a scenario").decode("utf-8"), file
        except NotReadable as e:
            raise ScenarioError(f"{file}: {e}") from None
        except OSError as e:
            if isinstance(file, str) and _looks_like_toml(file):
                first = file.strip().splitlines()[0][:40]
                raise ScenarioError(
                    f"scenario: a path was expected, got what looks like TOML text ({first!r}...): "
                    "pass TOML text as toml=..."
                ) from None
            raise ScenarioError(f"{file}: cannot read: {e.strerror or e}") from None
        except UnicodeDecodeError:
            raise ScenarioError(f"{file}: not UTF-8 text") from None
    raise TypeError(f"scenario must be a path or a dict, got {type(scenario).__name__}")


def scenario_folder(scenario: Optional[ScenarioSource], toml: Optional[str]) -> Optional[str]:
    """The folder of a scenario given as a path (where its ``python`` / ``onnx`` flows'
    relative controller files are read from, as trace files); None for a dict or TOML
    text (the current folder)."""
    if toml is None and isinstance(scenario, (str, os.PathLike)):
        return os.fspath(Path(os.fspath(scenario)).parent)
    return None


def check_out_folder(out: Union[str, "os.PathLike[str]"]) -> Path:
    """``out`` as a Path, if it can be an output folder: not empty, and neither it nor
    an existing parent a file (checked before any work, not when writing the results).
    FlowstateError with a one-line message otherwise."""
    if not isinstance(out, (str, os.PathLike)):
        raise TypeError(f"out must be a path, got {type(out).__name__}")
    text = os.fspath(out)
    if not str(text).strip():
        raise FlowstateError(f"expected an output folder, got an empty path {str(text)!r}")
    path = Path(text)
    for folder in (path, *path.parents):
        try:
            present = folder.exists() or folder.is_symlink()
        except OSError as e:  # e.g. a name longer than the file system allows
            raise FlowstateError(f"'{text}' cannot be an output folder: {e.strerror}") from None
        if present:
            if not folder.is_dir():
                what = "is" if folder == path else f"is below {str(folder)!r}, which is"
                raise FlowstateError(f"'{text}' {what} not a folder")
            break
    return path


def _check_changes(sets: Optional[Mapping[str, Any]], unsets: Optional[Sequence[str]]) -> None:
    """TypeError for ``set=`` / ``unset=`` arguments of the wrong shape."""
    if sets is not None:
        if not isinstance(sets, Mapping):
            raise TypeError(f"set must be a dict of path -> value, got {type(sets).__name__}")
        for path, value in sets.items():
            if not isinstance(path, str):
                raise TypeError(f"set: paths must be str, got {type(path).__name__}")
            if value is None or not isinstance(value, _TOML_VALUES):
                raise TypeError(
                    f"set: {path}: expected a str, number, bool, list or dict, got {type(value).__name__}"
                    + (" (to remove a key: unset=[path])" if value is None else "")
                )
    if unsets is not None:
        if isinstance(unsets, (str, bytes)) or not isinstance(unsets, Sequence):
            raise TypeError(f"unset must be a list of paths, got {type(unsets).__name__}")
        for path in unsets:
            if not isinstance(path, str):
                raise TypeError(f"unset: paths must be str, got {type(path).__name__}")


def load_changed_scenario(
    scenario: Optional[ScenarioSource],
    toml: Optional[str],
    sets: Optional[Mapping[str, Any]],
    unsets: Optional[Sequence[str]],
) -> tuple[str, str]:
    """:func:`load_scenario`, with the paths of ``unsets`` removed and then every
    ``path = value`` of ``sets`` set (docs/CATALOGUE.md "Paths"). A relative trace file
    written in a scenario file is read from the file's folder; one given in ``sets``
    (or in a dict or TOML text) from the current folder. A path that addresses nothing
    raises ScenarioError naming the scenario and the path."""
    _check_changes(sets, unsets)
    if not sets and not unsets:
        return load_scenario(scenario, toml=toml)
    from flowstate.overrides import PathError, load_toml, with_changes

    text, file = load_scenario(scenario, toml=toml)  # read errors first, as without changes
    try:
        if isinstance(scenario, Mapping):
            document = dict(scenario)
        elif toml is not None:
            document = tomllib.loads(text)
        else:
            document = load_toml(file)  # the file's own trace files from its folder
    except (tomllib.TOMLDecodeError, PathError) as e:
        _native.validate_scenario(text, file)  # the simulator's own message for bad TOML
        raise ScenarioError(f"{file}: {e}") from None
    try:
        changed = with_changes(document, sets or {}, list(unsets or ()))
    except PathError as e:
        raise ScenarioError(f"{file}: {e}") from None
    return _native.scenario_toml(changed), file


def check_scenario(
    scenario: Optional[ScenarioSource] = None,
    name: Optional[str] = None,
    *,
    toml: Optional[str] = None,
    set: Optional[Mapping[str, Any]] = None,  # noqa: A002 - the name of --set
    unset: Optional[Sequence[str]] = None,
) -> None:
    """Checks ``scenario`` (a path or a dict; or TOML text as ``toml=``) as a run would, without running it: the
    simulator's parser and validator, then the run's construction (flows, presets,
    overrides, coupling mechanism and options). Raises ScenarioError with the one-line
    message the run would give; ``name`` replaces the file name in it (a dict is
    otherwise called ``<dict>``). ``set`` and ``unset`` change the scenario first, as
    in :func:`run`."""
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a str or None, got {type(name).__name__}")
    text, file = load_changed_scenario(scenario, toml, set, unset)
    _native.validate_scenario(text, name if name is not None else file, base_dir=scenario_folder(scenario, toml))


def _mean_spread(values: list[Any]) -> tuple[Optional[float], Optional[dict[str, float]]]:
    """Mean and spread (sample standard deviation, min, max) of the non-null values."""
    xs = [float(v) for v in values if v is not None]
    if not xs:
        return None, None
    mean = math.fsum(xs) / len(xs)
    std = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0
    return mean, {"std": std, "min": min(xs), "max": max(xs)}


def _combine(items: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Field-wise means of same-shaped dicts, and the spread of each numeric field."""
    means: dict[str, Any] = {}
    spread: dict[str, Any] = {}
    for key, first in items[0].items():
        values = [item.get(key) for item in items]
        if isinstance(first, dict):
            means[key], sub = _combine([v or {} for v in values])
            if sub:
                spread[key] = sub
        elif first is None or (isinstance(first, (int, float)) and not isinstance(first, bool)):
            means[key], s = _mean_spread(values)
            if s is not None and key not in _CONSTANT_FIELDS:
                spread[key] = s
        else:  # names, kinds: the same in every run
            means[key] = first
    return means, spread


def combine_summaries(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The summary of a batch: one run's summary as is (plus ``seeds`` and ``runs``);
    for several runs, every metric is the mean over the runs and each flow and the
    aggregate get a ``spread`` dict holding, per metric, ``std`` (sample standard
    deviation), ``min`` and ``max``. Null metrics (e.g. no RTT samples) are left out
    of the means."""
    first = runs[0]
    seeds = [r["seed"] for r in runs]
    if len(runs) == 1:
        return {**first, "seeds": seeds, "runs": 1}
    flows = []
    for i, flow in enumerate(first["flows"]):
        means, spread = _combine([r["flows"][i] for r in runs])
        flows.append({**means, "spread": spread})
    aggregate, aggregate_spread = _combine([r["aggregate"] for r in runs])
    links = []
    for i, _link in enumerate(first.get("links") or []):
        means, spread = _combine([(r.get("links") or [{}] * (i + 1))[i] for r in runs])
        links.append({**means, "spread": spread})
    events, _ = _mean_spread([r.get("events") for r in runs])
    return {
        "scenario": first["scenario"],
        "seed": seeds[0],
        "seeds": seeds,
        "runs": len(runs),
        "duration_s": first["duration_s"],
        "window_s": first["window_s"],
        "flows": flows,
        "aggregate": {**aggregate, "spread": aggregate_spread},
        **({"links": links} if "links" in first else {}),
        "events": events,
        # Shared bottleneck detection's verdicts over time: the first run's (per-run
        # timelines are in ``runs``).
        **({"sbd": first["sbd"]} if "sbd" in first else {}),
        # What produced it: the same scenario in every run.
        **({"coupling": first["coupling"]} if "coupling" in first else {}),
        "warnings": list(first.get("warnings") or []),
    }


def _flatten_flow(flow: dict[str, Any]) -> dict[str, Any]:
    """One flow summary as a flat row: ``rtt_ms: {mean, p95}`` -> ``rtt_mean_ms``, ...;
    a video flow's ``video`` object -> ``video_fps``, ``video_frame_delay_p95_ms``, ..."""
    row: dict[str, Any] = {}
    for key, value in flow.items():
        if key == "name":
            row["flow"] = value
        elif key == "video":
            for sub, v in (value or {}).items():
                if isinstance(v, dict):
                    row.update({f"video_{sub[:-3]}_{k}_ms": x for k, x in v.items()})
                else:
                    row[f"video_{sub}"] = v
        elif isinstance(value, dict):
            stem, unit = (key[:-3], "_ms") if key.endswith("_ms") else (key, "")
            for sub, v in value.items():
                row[f"{stem}_{sub}{unit}"] = v
        else:
            row[key] = value
    return row


def _numeric_nulls_to_nan(frame: "pandas.DataFrame") -> "pandas.DataFrame":
    """Columns holding only numbers and nulls (e.g. RTT of a flow without feedback)
    become float columns with NaN, not object columns with None."""
    for name in frame.columns:
        col = frame[name]
        if col.dtype == object and all(
            v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in col
        ):
            frame[name] = col.astype("float64")
    return frame


def without_trace_hash(scenario: Mapping[str, Any]) -> dict[str, Any]:
    """``scenario`` (a dict) with ``[measure] trace_hash = false``: the same run without
    its fingerprint, which is 10-25 % of a run's work (docs/BENCHMARKS.md), for runs
    whose outputs are their summaries and series (the catalogue's, a sweep's)."""
    measure = dict(scenario.get("measure") or {})
    measure["trace_hash"] = False
    return {**scenario, "measure": measure}


def as_pooled_run(scenario: Mapping[str, Any]) -> dict[str, Any]:
    """``scenario`` (a dict) as one run of a pool that keeps every core busy (the
    catalogue's, a sweep's), whose outputs are its summary and series: without its
    fingerprint (:func:`without_trace_hash`) and, unless the scenario asks for it,
    without the recorder thread (``[measure] recorder_thread = "off"``): the helper
    thread a run of 256 flows or more would start competes with the pool's other runs
    (docs/investigations/2026-11-scaling-passes.md, "a recorder thread"). The results are the same."""
    pooled = without_trace_hash(scenario)
    if pooled["measure"].get("recorder_thread", "auto") == "auto":
        pooled["measure"]["recorder_thread"] = "off"
    return pooled


def _rows_text(runs: list[dict[str, list[Any]]]) -> Optional[list[str]]:
    """Each run's rows (the cells after ``run,seed``) rendered by the simulator's writer
    (``_native.csv_rows_text``: csv.writer's text for the same cells), or None when a
    run has a cell it leaves to csv.writer (then the caller writes them all with it)."""
    try:
        return [_native.csv_rows_text(list(series.values())) if series else "" for series in runs]
    except TypeError:
        return None


def _write_run_rows(f: Any, seeds: list[int], bodies: list[str]) -> None:
    """Writes each run's CSV rows (``bodies``, as ``simulate(series_text=True)`` renders
    them: every row ends in a newline, no ``run,seed`` cells) with ``run,seed,`` in
    front of each row: what ``csv.writer`` writes for the same rows, with one string
    operation per run instead of Python code per cell."""
    for i, (seed, body) in enumerate(zip(seeds, bodies)):
        if body:
            prefix = f"{i},{seed},"
            f.write(prefix + body[:-1].replace("\n", "\n" + prefix) + "\n")


class RunResult:
    """The outcome of :func:`run`: ``summary`` (dict, the summary.json contract),
    ``runs`` (per-run summaries in seed order), ``seeds``, ``timeseries`` and ``flows``
    (pandas DataFrames with ``run`` and ``seed`` columns) and ``trace_hashes`` (one
    fingerprint of every packet event per run; None where the scenario's ``[measure]
    trace_hash = false`` turned it off)."""

    def __init__(self, raw: list[dict[str, Any]]) -> None:
        self.runs: list[dict[str, Any]] = [json.loads(r["summary_json"]) for r in raw]
        self.seeds: list[int] = [r["seed"] for r in raw]
        self.trace_hashes: list[Optional[int]] = [r["trace_hash"] for r in raw]
        self._series: list[dict[str, list[Any]]] = [r["series"] for r in raw]
        self._link_series: list[dict[str, list[Any]]] = [r.get("link_series") or {} for r in raw]
        # The CSV rows the simulator rendered on its workers (``simulate(series_text=True)``),
        # when every run has them: written as they are, without a Python object per cell.
        texts = [(r.get("series_text"), r.get("link_series_text")) for r in raw]
        self._series_text: Optional[list[tuple[str, str]]] = (
            texts if all(isinstance(a, str) and isinstance(b, str) for a, b in texts) else None
        )
        self.summary: dict[str, Any] = combine_summaries(self.runs)

    @property
    def scenario(self) -> str:
        """The scenario's name."""
        return str(self.summary["scenario"])

    @cached_property
    def timeseries(self) -> "pandas.DataFrame":
        """One row per run, flow and bin: ``run``, ``seed``, ``time_s``, ``flow``,
        ``send_rate_mbps``, ``throughput_mbps``, ``goodput_mbps``, ``queuing_delay_ms``,
        ``rtt_ms``, ``sent_packets``, ``lost_packets``, ``capacity_mbps``, ``target_mbps``
        (the flow's rate controller's value at the bin's end; NaN for window flows),
        ``group`` (the flow's coupling group; None: not coupled), ``fps``,
        ``frame_delay_ms``, ``freezes`` (a video flow's frames rendered per second, their
        mean capture-to-screen delay, freezes ended in the bin; NaN for other flows)
        (NaN: no sample)."""
        import pandas

        frames = []
        for i, (seed, series) in enumerate(zip(self.seeds, self._series)):
            frame = pandas.DataFrame(series)
            frame.insert(0, "seed", seed)
            frame.insert(0, "run", i)
            frames.append(frame)
        return _numeric_nulls_to_nan(pandas.concat(frames, ignore_index=True))

    @cached_property
    def flows(self) -> "pandas.DataFrame":
        """One row per run and flow: ``run``, ``seed``, ``flow``, ``kind``, ``priority``,
        ``throughput_mbps``, ``send_rate_mbps``, ``goodput_mbps``, ``rtt_{mean,p50,p95}_ms``,
        ``queuing_delay_{mean,p50,p95}_ms``, ``one_way_delay_{mean,p50,p95}_ms``,
        ``jitter_ms``, ``loss_ratio``, ``sent_packets``,
        ``lost_packets``, ``share``, ``priority_share``; with ECN-capable flows (scenario
        ``ecn``) also ``ce_marks`` and ``ecn_responses`` (NaN for the other flows); with
        video flows their frame figures, ``video_`` and summary.json's ``video`` keys
        (``video_fps``, ``video_freezes``, ``video_frame_delay_p95_ms``, ...; NaN for
        the other flows)."""
        import pandas

        rows = [
            {"run": i, "seed": seed, **_flatten_flow(flow)}
            for i, (seed, run) in enumerate(zip(self.seeds, self.runs))
            for flow in run["flows"]
        ]
        return _numeric_nulls_to_nan(pandas.DataFrame(rows))

    @cached_property
    def link_timeseries(self) -> "pandas.DataFrame":
        """One row per run, link and bin (a simulated run): ``run``, ``seed``, ``time_s``,
        ``link``, ``throughput_mbps``, ``capacity_mbps``, ``utilization``,
        ``queuing_delay_ms``, ``max_queue_bytes``, ``arrived_packets``,
        ``dropped_packets``, ``lost_packets`` (NaN: no sample; empty without links)."""
        import pandas

        frames = []
        for i, (seed, series) in enumerate(zip(self.seeds, self._link_series)):
            frame = pandas.DataFrame(series)
            frame.insert(0, "seed", seed)
            frame.insert(0, "run", i)
            frames.append(frame)
        return _numeric_nulls_to_nan(pandas.concat(frames, ignore_index=True))

    def _write_csv(
        self, path: Path, header: list[str], runs: list[dict[str, list[Any]]], texts: Optional[list[str]]
    ) -> None:
        """Writes ``header`` and each run's rows (``run``, ``seed``, then its columns) to
        ``path``: the rows the simulator rendered (``texts``), else rendered from the
        columns by ``_native.csv_rows_text``, else by ``csv.writer`` (the same text)."""
        with path.open("w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(header)
            bodies = texts if texts is not None else _rows_text(runs)
            if bodies is not None:
                _write_run_rows(f, self.seeds, bodies)
                return
            for i, (seed, series) in enumerate(zip(self.seeds, runs)):
                if series:  # csv writes None as the empty cell
                    writer.writerows(zip(repeat(i), repeat(seed), *series.values()))

    def write(self, out: Union[str, "os.PathLike[str]"]) -> tuple[Path, Path]:
        """Writes ``summary.json`` (the summary; with several runs also ``per_run``, the
        runs' own summaries) and ``timeseries.csv`` (the rows of ``timeseries``; empty
        cell: no sample) into the folder ``out`` (created if needed), and ``links.csv`` (the
        rows of ``link_timeseries``) when the runs have one. Returns the first two paths."""
        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        summary_path, series_path = folder / SUMMARY_FILE, folder / TIMESERIES_FILE
        document = dict(self.summary)
        if len(self.runs) > 1:
            document["per_run"] = self.runs
        summary_path.write_text(dumps_indent2(document) + "\n", encoding="utf-8")
        texts = self._series_text
        self._write_csv(
            series_path,
            ["run", "seed", *self._series[0].keys()],
            self._series,
            None if texts is None else [series for series, _ in texts],
        )
        if any(s.get("time_s") for s in self._link_series):
            self._write_csv(
                folder / LINKS_TIMESERIES_FILE,
                ["run", "seed", *next(s for s in self._link_series if s).keys()],
                self._link_series,
                None if texts is None else [links for _, links in texts],
            )
        return summary_path, series_path

    def __repr__(self) -> str:
        return f"RunResult(scenario={self.scenario!r}, seeds={self.seeds})"


def run(
    scenario: Optional[ScenarioSource] = None,
    seed: Optional[int] = None,
    runs: int = 1,
    out: Union[str, "os.PathLike[str]", None] = None,
    *,
    toml: Optional[str] = None,
    name: Optional[str] = None,
    threads: Optional[int] = None,
    progress: Optional[Progress] = None,
    set: Optional[Mapping[str, Any]] = None,  # noqa: A002 - the name of --set
    unset: Optional[Sequence[str]] = None,
) -> RunResult:
    """Simulates ``scenario`` (a TOML path or a dict; or TOML text as ``toml=``) ``runs`` times, with the seeds
    ``seed .. seed + runs - 1`` (``seed`` None: the scenario's ``seed``, else 1), on
    ``threads`` threads (None: one per core). ``progress(done, total)`` is called after
    each finished run. With ``out``, writes summary.json and timeseries.csv there (a
    path that cannot be a folder is an error before the run). ``name`` replaces the
    file name in error messages.

    ``unset`` (a list of paths) removes keys from the scenario, then ``set`` (a dict
    path -> value, e.g. ``{"link.capacity": "4Mbps", "flows.video.priority": 2}``) sets
    values, as ``--unset`` / ``--set`` on the command line (paths: docs/CATALOGUE.md
    "Paths"). A relative trace file given in ``set`` is read from the current folder.

    Raises ScenarioError (a ValueError) for a scenario that cannot be read, parsed,
    validated or built; its message is one line naming the file and the field.
    """
    if seed is not None:
        _check_int("seed", seed, 0)
    _check_int("runs", runs, 1, MAX_RUNS)
    if threads is not None:
        _check_int("threads", threads, 1, 1024)
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a function progress(done, total) or None, got {type(progress).__name__}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a str or None, got {type(name).__name__}")
    if out is not None:
        check_out_folder(out)
    text, file = load_changed_scenario(scenario, toml, set, unset)
    file = name if name is not None else file
    raw = _native.simulate(
        text,
        file,
        seed=seed,
        runs=runs,
        threads=threads,
        progress=progress,
        series_text=out is not None,
        base_dir=scenario_folder(scenario, toml),
    )
    result = RunResult(raw)
    if out is not None:
        result.write(out)
    return result
