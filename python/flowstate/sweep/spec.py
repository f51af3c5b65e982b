"""Parameter sweeps over a scenario: the sweep spec and its expansion into tasks
(docs/SWEEPS.md).

::

    from flowstate.sweep.spec import load_sweep_file, expand

    spec = load_sweep_file("scenarios/sweeps/p002-fig8-ku-kd.toml")
    points = expand(spec)               # one Point per combination of axis values
    tasks = spec.tasks(points)          # one Task per (point, seed)

A sweep is a base scenario (plus fixed ``set`` overrides), axes (a path of
docs/CATALOGUE.md "Paths" and its values), seeds, metric paths and optional derived
metrics. Every point is the product of one value per axis; every task is one point at
one seed, a pure function of (scenario dict, seed). Running them: :mod:`flowstate.sweep.run`.
"""

from __future__ import annotations

import copy
import itertools
import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from flowstate.errors import FlowstateError
from flowstate.overrides import PathError, load_toml, parse_path, resolve_trace_files, set_path, with_changes
from flowstate.simulation import MAX_SEED, ScenarioError, check_scenario

# A sweep of more tasks than this is almost certainly a typo (e.g. seeds "1-1000000").
MAX_TASKS = 1_000_000
# Significant digits of generated range values: 0.01, not 0.010000000000000002.
RANGE_DIGITS = 12
AXIS_NAME = re.compile(r"^[A-Za-z0-9_.\-]+$")
# The NAME of ``--set NAME:PATH=V1,V2``: an identifier.
FLAG_AXIS_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
DEFAULT_METRICS = ("aggregate.throughput_mbps", "aggregate.utilization", "aggregate.jain_index")
SWEEP_FILE_KEYS = frozenset(
    {"name", "scenario", "seeds", "unset", "set", "axes", "metrics", "derived", "objective", "goal"}
)
AXIS_KEYS = frozenset({"name", "key", "values", "range", "label"})
RANGE_KEYS = frozenset({"from", "to", "num", "log", "unit"})
DERIVED_KEYS = frozenset({"name", "fn", "args"})


class SweepError(FlowstateError):
    """Bad sweep input (file, flag, path, metric); the message is one line naming it."""


@dataclass(frozen=True)
class Axis:
    """One swept path: ``key`` takes every one of ``values`` (numbers ascending, other
    values in the order given)."""

    name: str
    key: str
    values: tuple[Any, ...]
    label: str = ""
    log: bool = False  # a log range: plots use a log x axis
    named: bool = False  # the name was given (not the default, the path's last key)
    # The folder a relative trace file among the values is read from: the sweep file's
    # for its [[axes]], the current folder ("") for a --set flag.
    folder: str = ""

    @property
    def numeric(self) -> bool:
        """Every value a number (not a boolean): a line in the plots, else bars."""
        return is_numeric(self.values)


@dataclass(frozen=True)
class Derived:
    """A derived metric (docs/CATALOGUE.md ``[[derived]]``): ``fn(**args)`` of each run."""

    name: str
    fn: str
    args: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "fn": self.fn, "args": dict(self.args)}


@dataclass(frozen=True)
class Point:
    """One combination of axis values and the scenario it gives."""

    index: int
    values: Mapping[str, Any]  # axis name -> value, in axis order
    scenario: Mapping[str, Any]

    @property
    def label(self) -> str:
        """``k_u=0.01,k_d=0.00018`` (values as written; ``base`` without axes)."""
        return ",".join(f"{k}={format_value(v)}" for k, v in self.values.items()) or "base"


@dataclass(frozen=True)
class Task:
    """One point at one seed."""

    point: Point
    seed: int


@dataclass
class SweepSpec:
    """A whole sweep. ``source`` names it in error messages (the sweep file, or the
    scenario file when given by flags)."""

    source: str
    scenario_file: str
    scenario: dict[str, Any]  # the base scenario with ``set`` applied
    axes: list[Axis]
    seeds: list[int]
    metrics: list[str] = field(default_factory=lambda: list(DEFAULT_METRICS))
    derived: list[Derived] = field(default_factory=list)
    objective: Optional[str] = None
    goal: str = "max"
    name: str = ""

    def tasks(self, points: Sequence[Point]) -> list[Task]:
        """Every (point, seed), point-major."""
        return [Task(p, s) for p in points for s in self.seeds]

    def as_dict(self) -> dict[str, Any]:
        """The spec as written to OUT/sweep.json."""
        return {
            "name": self.name,
            "scenario_file": self.scenario_file,
            "scenario": self.scenario,
            "axes": [
                {"name": a.name, "key": a.key, "values": list(a.values), "label": a.label, "log": a.log}
                for a in self.axes
            ],
            "seeds": self.seeds,
            "metrics": self.metrics,
            "derived": [d.as_dict() for d in self.derived],
            "objective": self.objective,
            "goal": self.goal,
        }


def is_numeric(values: Sequence[Any]) -> bool:
    """Every value an int or a float, not a boolean."""
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def format_value(value: Any) -> str:
    """An axis value as a short label: ``0.00018``, ``1e-05``, ``2Mbps``, ``true``,
    ``[{at=0s,rate=1Mbps}]``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{k}={format_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(format_value(v) for v in value) + "]"
    return str(value)


# ---------------------------------------------------------------- seeds


def parse_seeds(value: Any, where: str) -> list[int]:
    """Seeds from ``5``, ``[1, 2, 3]``, ``"1-10"`` or ``"1-3,7,9-10"``; no duplicates."""
    seeds: list[int] = []
    if isinstance(value, bool):
        raise SweepError(f"{where}: expected seeds like 1, [1, 2] or \"1-10\", got {value!r}")
    if isinstance(value, int):
        seeds = [value]
    elif isinstance(value, list):
        for v in value:
            if isinstance(v, bool) or not isinstance(v, int):
                raise SweepError(f"{where}: seeds must be integers, got {v!r}")
            seeds.append(v)
    elif isinstance(value, str):
        for part in value.split(","):
            part = part.strip()
            m = re.fullmatch(r"(\d+)(?:\s*-\s*(\d+))?", part)
            if m is None:
                raise SweepError(f"{where}: expected seeds like \"1-10\" or \"1,3,5-7\", got {value!r}")
            lo = int(m.group(1))
            hi = int(m.group(2)) if m.group(2) is not None else lo
            if hi < lo:
                raise SweepError(f"{where}: seed range {part!r} runs backwards")
            if hi - lo >= MAX_TASKS:
                raise SweepError(f"{where}: seed range {part!r} has more than {MAX_TASKS} seeds")
            seeds.extend(range(lo, hi + 1))
    else:
        raise SweepError(f"{where}: expected seeds like 1, [1, 2] or \"1-10\", got {value!r}")
    if not seeds:
        raise SweepError(f"{where}: no seeds")
    for s in seeds:
        if not 0 <= s <= MAX_SEED:
            raise SweepError(f"{where}: seed {s} is outside [0, 2^64 - 1]")
    if len(set(seeds)) != len(seeds):
        raise SweepError(f"{where}: seed {_first_duplicate(seeds)} is listed twice")
    return seeds


def _first_duplicate(items: Sequence[Any]) -> Any:
    seen: set[Any] = set()
    for x in items:
        if x in seen:
            return x
        seen.add(x)
    return None  # pragma: no cover


# ---------------------------------------------------------------- axes


def range_values(spec: Any, where: str) -> tuple[tuple[Any, ...], bool]:
    """``{from, to, num, log = false, unit = ""}`` -> the values (and whether log).
    Linear: evenly spaced; log: evenly spaced in log scale (paper 002 Fig. 8 grids)."""
    if not isinstance(spec, Mapping):
        raise SweepError(f"{where}: expected a table {{from, to, num, log}}, got {spec!r}")
    unknown = set(spec) - RANGE_KEYS
    if unknown:
        raise SweepError(f"{where}: unknown key {sorted(unknown)[0]!r} (expected from, to, num, log, unit)")
    for k in ("from", "to", "num"):
        if k not in spec:
            raise SweepError(f"{where}.{k}: required")
    lo, hi, num = spec["from"], spec["to"], spec["num"]
    log, unit = spec.get("log", False), spec.get("unit", "")
    for k, v in (("from", lo), ("to", hi)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise SweepError(f"{where}.{k}: expected a number, got {v!r}")
    if isinstance(num, bool) or not isinstance(num, int) or not 1 <= num <= MAX_TASKS:
        raise SweepError(f"{where}.num: expected an integer in [1, {MAX_TASKS}], got {num!r}")
    if not isinstance(log, bool):
        raise SweepError(f"{where}.log: expected true or false, got {log!r}")
    if not isinstance(unit, str):
        raise SweepError(f"{where}.unit: expected a unit string such as \"ms\", got {unit!r}")
    if log and (lo <= 0 or hi <= 0):
        raise SweepError(f"{where}: a log range needs from > 0 and to > 0, got {lo} .. {hi}")
    if num == 1:
        xs = [float(lo)]
    elif log:  # in log space: hi / lo may underflow to 0 (1e-308 / 1e308)
        a, b = math.log(lo), math.log(hi)
        xs = [math.exp(a + (b - a) * i / (num - 1)) for i in range(num)]
    else:
        xs = [lo + (hi - lo) * i / (num - 1) for i in range(num)]
    xs = [float(f"{x:.{RANGE_DIGITS}g}") for x in xs]
    values: tuple[Any, ...] = tuple(f"{x:g}{unit}" for x in xs) if unit else tuple(xs)
    return values, log


def _axis_name(key: str) -> str:
    """Default axis name: the last key of the path (``flows.gcc.overrides.k_u`` -> ``k_u``)."""
    last = parse_path(key)[-1]
    return str(last) if isinstance(last, str) else key


def make_axis(
    key: Any, values: Any, where: str, *, name: Any = None, label: Any = None, log: bool = False, folder: str = ""
) -> Axis:
    """An axis, checked; numeric values sorted ascending (the order of the points, the
    tables and the plots), others kept in the order given."""
    if not isinstance(key, str):
        raise SweepError(f"{where}.key: expected a path string, got {key!r}")
    try:
        parse_path(key)
    except PathError as e:
        raise SweepError(f"{where}.key: {e}") from None
    named = name is not None
    if name is None:
        name = _axis_name(key)
    if not isinstance(name, str) or not AXIS_NAME.match(name):
        raise SweepError(f"{where}.name: expected letters, digits, '_', '.', '-', got {name!r}")
    if label is not None and not isinstance(label, str):
        raise SweepError(f"{where}.label: expected a string, got {label!r}")
    if not isinstance(values, (list, tuple)) or not values:
        raise SweepError(f"{where}.values: expected a non-empty list, got {values!r}")
    for v in values:
        if not isinstance(v, (str, int, float, bool, dict, list)):
            raise SweepError(f"{where}.values: expected numbers, strings, booleans, arrays or tables, got {v!r}")
        if isinstance(v, float) and not math.isfinite(v):
            raise SweepError(f"{where}.values: {v!r} is not a finite number")
    if len(set(map(repr, values))) != len(values):
        raise SweepError(f"{where}.values: {_first_duplicate(list(map(repr, values)))} is listed twice")
    ordered = tuple(sorted(values)) if is_numeric(values) else tuple(values)
    return Axis(
        name=name, key=key, values=ordered, label=label or name, log=log, named=named, folder=folder
    )


def _axis_from_table(table: Any, where: str, folder: str) -> Axis:
    if not isinstance(table, Mapping):
        raise SweepError(f"{where}: expected a table with key and values (or range)")
    unknown = set(table) - AXIS_KEYS
    if unknown:
        raise SweepError(f"{where}: unknown key {sorted(unknown)[0]!r} (expected key, values, range, name, label)")
    if "key" not in table:
        raise SweepError(f"{where}.key: required")
    if ("values" in table) == ("range" in table):
        raise SweepError(f"{where}: give exactly one of values and range")
    log = False
    if "range" in table:
        values, log = range_values(table["range"], f"{where}.range")
    else:
        values = table["values"]
    return make_axis(
        table["key"], values, where, name=table.get("name"), label=table.get("label"), log=log, folder=folder
    )


# ------------------------------------------------------------ --set flags

_FUNC = re.compile(r"^\s*(linspace|logspace)\(\s*([^,()]+),\s*([^,()]+),\s*([^,()]+)\)\s*(\S*)\s*$")


_OPENERS = {"[": "]", "{": "}"}


def split_values(text: str) -> list[str]:
    """The comma-separated values of a ``--set`` flag; a comma inside quotes, an array
    (``[...]``) or an inline table (``{...}``) does not separate."""
    parts: list[str] = []
    closers: list[str] = []
    quote = ""
    start = 0
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in _OPENERS:
            closers.append(_OPENERS[c])
        elif closers and c == closers[-1]:
            closers.pop()
        elif c == "," and not closers:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def parse_flag_value(text: str, where: str = "--set") -> Any:
    """One value of a ``--set`` flag, read as TOML: a number, boolean, quoted string,
    array (``[{at="0s",rate="1Mbps"}]``) or inline table (``{min_media_rate="50kbps"}``);
    other text is a string (``10ms``, ``2Mbps``, ``fsev2``). Text that starts like an
    array or a table but is not valid TOML is a SweepError naming ``where``."""
    text = text.strip()
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError as e:
        if text[:1] in _OPENERS:
            what = "array" if text[0] == "[" else "inline table"
            raise SweepError(f"{where}: {text!r} is not a TOML {what} ({e}); quote strings inside it") from None
        return text
    if isinstance(value, float) and not math.isfinite(value):
        return text  # inf/nan: keep the text
    if isinstance(value, (str, int, float, bool, list, dict)):
        return value
    return text  # dates and times: keep the text


def split_set_flag(text: str) -> tuple[Optional[str], str, str]:
    """``[NAME:]PATH=VALUES`` -> (NAME or None, PATH, VALUES); SweepError naming the
    flag for a malformed one."""
    where = f"--set {text}"
    key, sep, rhs = text.partition("=")
    key = key.strip()
    if not sep or not key or not rhs.strip():
        raise SweepError(f"{where}: expected KEY=V1,V2,..., NAME:KEY=V1,V2,... or KEY=logspace(FROM,TO,NUM)")
    name: Optional[str] = None
    if ":" in key:
        name, _, key = (part.strip() for part in key.partition(":"))
        if not FLAG_AXIS_NAME.match(name):
            raise SweepError(
                f"{where}: axis name {name!r} is not an identifier (letters, digits, '_'; "
                "e.g. --set video_prio:flows.video.priority=1,2)"
            )
        if not key:
            raise SweepError(f"{where}: expected NAME:PATH=V1,V2,... (no path after {name + ':'!r})")
    return name, key, rhs


def parse_set_flag(text: str) -> Axis:
    """``[NAME:]PATH=V1,V2,...`` or ``[NAME:]PATH=logspace(FROM,TO,NUM)[UNIT]`` /
    ``linspace(...)``: an axis (named NAME, by default the path's last key)."""
    where = f"--set {text}"
    name, key, rhs = split_set_flag(text)
    m = _FUNC.match(rhs)
    if m is None and re.match(r"^\s*(linspace|logspace)\s*\(", rhs):
        raise SweepError(f"{where}: expected linspace(FROM,TO,NUM) or logspace(FROM,TO,NUM), optionally followed by a unit")
    if m:
        try:
            lo, hi = float(m.group(2)), float(m.group(3))
            num = int(m.group(4))
        except ValueError:
            raise SweepError(f"{where}: {m.group(1)} takes (FROM, TO, NUM) numbers") from None
        spec = {"from": lo, "to": hi, "num": num, "log": m.group(1) == "logspace", "unit": m.group(5)}
        values, log = range_values(spec, where)
        return make_axis(key, values, where, name=name, log=log)
    values = [parse_flag_value(v, where) for v in split_values(rhs)]
    if any(v == "" for v in values):
        raise SweepError(f"{where}: empty value")
    return make_axis(key, values, where, name=name)


# ---------------------------------------------------------------- metrics

METRIC_ROOTS = ("aggregate", "flows", "derived")


def flow_names(scenario: Mapping[str, Any]) -> list[str]:
    flows = scenario.get("flows")
    if not isinstance(flows, list):
        return []
    return [str(f.get("name")) for f in flows if isinstance(f, Mapping) and "name" in f]


def check_metric(path: Any, where: str, scenario: Mapping[str, Any], derived: Sequence[Derived]) -> str:
    """A metric path of docs/CATALOGUE.md: ``aggregate.<field>``, ``flows.<flow>.<field>``
    or ``derived.<name>``. The flow and the derived name must exist; fields are checked
    against the first result."""
    if not isinstance(path, str) or "." not in path or path.split(".", 1)[0] not in METRIC_ROOTS:
        raise SweepError(
            f"{where}: expected a metric path aggregate.<field>, flows.<flow>.<field> or derived.<name>, got {path!r}"
        )
    root, rest = path.split(".", 1)
    if root == "flows":
        names = flow_names(scenario)
        if not any(rest.startswith(n + ".") and len(rest) > len(n) + 1 for n in names):
            raise SweepError(f"{where}: {path!r}: no flow of the scenario matches (flows: {', '.join(names)})")
    elif root == "derived" and rest not in {d.name for d in derived}:
        raise SweepError(f"{where}: {path!r}: no [[derived]] named {rest!r}")
    return path


def resolve_objective(objective: Any, where: str, metrics: list[str], derived: Sequence[Derived]) -> str:
    """The objective as a metric path (a bare derived name means ``derived.<name>``)."""
    if not isinstance(objective, str) or not objective:
        raise SweepError(f"{where}: expected a metric path or a derived name, got {objective!r}")
    if objective in {d.name for d in derived}:
        objective = f"derived.{objective}"
    return objective


# ---------------------------------------------------------------- the file


def _load_scenario(file: Path, where: str) -> dict[str, Any]:
    try:
        scenario = load_toml(file)
    except PathError as e:
        raise SweepError(f"{where}: {e}") from None
    if not isinstance(scenario.get("flows"), list):
        raise SweepError(f"{where}: {file} is not a scenario (no [[flows]])")
    return scenario


def is_sweep_file(document: Mapping[str, Any]) -> bool:
    """A sweep file names its scenario; a scenario file has flows."""
    return isinstance(document.get("scenario"), str) and "flows" not in document


def load_sweep_file(file: str | Path) -> SweepSpec:
    """Reads a sweep file (TOML; docs/SWEEPS.md). Errors name the file and the field."""
    src = str(file)
    try:
        document = load_toml(file)
    except PathError as e:
        raise SweepError(str(e)) from None
    return spec_from_document(document, src, Path(file).parent)


def spec_from_document(document: Mapping[str, Any], src: str, base_dir: Path) -> SweepSpec:
    unknown = set(document) - SWEEP_FILE_KEYS
    if unknown:
        raise SweepError(f"{src}: unknown key {sorted(unknown)[0]!r} (expected {', '.join(sorted(SWEEP_FILE_KEYS))})")
    if not isinstance(document.get("scenario"), str):
        raise SweepError(f"{src}: scenario: required, the scenario file (relative to the sweep file)")
    scenario_path = base_dir / document["scenario"]
    scenario = _load_scenario(scenario_path, f"{src}: scenario")
    unset = document.get("unset", [])
    if not isinstance(unset, list) or not all(isinstance(p, str) for p in unset):
        raise SweepError(f"{src}: unset: expected a list of paths, e.g. [\"link.capacity\"]")
    fixed = document.get("set", {})
    if not isinstance(fixed, Mapping):
        raise SweepError(f"{src}: set: expected a table of path = value")
    try:  # paths written in the sweep file: trace files relative to its folder
        scenario = with_changes(scenario, {}, unset, base_dir)
    except PathError as e:
        raise SweepError(f"{src}: unset: {e}") from None
    try:
        scenario = with_changes(scenario, fixed, (), base_dir)
    except PathError as e:
        raise SweepError(f"{src}: set: {e}") from None
    axes_doc = document.get("axes", [])
    if not isinstance(axes_doc, list):
        raise SweepError(f"{src}: axes: expected [[axes]] tables")
    folder = os.path.abspath(base_dir)
    axes = [_axis_from_table(t, f"{src}: axes[{i}]", folder) for i, t in enumerate(axes_doc)]
    derived = _derived_list(document.get("derived", []), f"{src}: derived")
    seeds = parse_seeds(document["seeds"], f"{src}: seeds") if "seeds" in document else default_seeds(scenario)
    name = document.get("name", Path(src).stem)
    if not isinstance(name, str) or not name:
        raise SweepError(f"{src}: name: expected a non-empty string")
    goal = document.get("goal", "max")
    spec = SweepSpec(
        source=src,
        scenario_file=str(scenario_path),
        scenario=scenario,
        axes=axes,
        seeds=seeds,
        derived=derived,
        goal=goal,
        name=name,
    )
    if "metrics" in document:
        metrics = document["metrics"]
        if not isinstance(metrics, list) or not metrics:
            raise SweepError(f"{src}: metrics: expected a non-empty list of metric paths")
        spec.metrics = list(metrics)
    if "objective" in document:
        spec.objective = document["objective"]
    return finish(spec)


def _derived_list(items: Any, where: str) -> list[Derived]:
    if not isinstance(items, list):
        raise SweepError(f"{where}: expected [[derived]] tables")
    out: list[Derived] = []
    for i, t in enumerate(items):
        w = f"{where}[{i}]"
        if not isinstance(t, Mapping):
            raise SweepError(f"{w}: expected a table with name, fn, args")
        unknown = set(t) - DERIVED_KEYS
        if unknown:
            raise SweepError(f"{w}: unknown key {sorted(unknown)[0]!r} (expected name, fn, args)")
        name, fn, args = t.get("name"), t.get("fn"), t.get("args", {})
        if not isinstance(name, str) or not re.fullmatch(r"[a-z0-9_]+", name):
            raise SweepError(f"{w}.name: expected [a-z0-9_]+, got {name!r}")
        if not isinstance(fn, str) or not fn:
            raise SweepError(f"{w}.fn: expected a function name of flowstate.catalogue.derived, got {fn!r}")
        if not isinstance(args, Mapping):
            raise SweepError(f"{w}.args: expected a table")
        out.append(Derived(name, fn, dict(args)))
    names = [d.name for d in out]
    if len(set(names)) != len(names):
        raise SweepError(f"{where}: {_first_duplicate(names)!r} is defined twice")
    return out


def default_seeds(scenario: Mapping[str, Any]) -> list[int]:
    """The scenario's ``seed``, else 1 (as ``flowstate run``)."""
    seed = scenario.get("seed", 1)
    return [seed] if isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed <= MAX_SEED else [1]


def spec_from_scenario(file: str | Path) -> SweepSpec:
    """A sweep of one scenario file, axes to be added from ``--set`` flags."""
    src = str(file)
    scenario = _load_scenario(Path(file), src)
    name = scenario.get("name") if isinstance(scenario.get("name"), str) else Path(src).stem
    return SweepSpec(
        source=src, scenario_file=src, scenario=scenario, axes=[], seeds=default_seeds(scenario), name=name
    )


def load_any(file: str | Path) -> SweepSpec:
    """A sweep file, or a scenario file (a sweep without axes yet)."""
    try:
        document = load_toml(file)
    except PathError as e:
        raise SweepError(str(e)) from None
    if is_sweep_file(document):
        return spec_from_document(document, str(file), Path(file).parent)
    if "flows" not in document:
        raise SweepError(f"{file}: neither a sweep file (scenario = ...) nor a scenario file ([[flows]])")
    return spec_from_scenario(file)


def finish(spec: SweepSpec) -> SweepSpec:
    """Checks the cross-field rules: unique axis names, metric paths, the objective,
    the goal, the task count. Returns ``spec`` (objective added to the metrics)."""
    keys = [a.key for a in spec.axes]
    if len(set(keys)) != len(keys):
        raise SweepError(f"{spec.source}: the path {_first_duplicate(keys)!r} is swept twice")
    names = [a.name for a in spec.axes]
    if len(set(names)) != len(names):
        dup = _first_duplicate(names)
        paths = [a.key for a in spec.axes if a.name == dup]
        raise SweepError(
            f"{spec.source}: two axes are named {dup!r} ({paths[0]}, {paths[1]}): name them, "
            f"e.g. --set {_suggested_name(paths[1])}:{paths[1]}=... (or name = \"...\" in its [[axes]] table)"
        )
    if spec.goal not in ("max", "min"):
        raise SweepError(f"{spec.source}: goal: expected \"max\" or \"min\", got {spec.goal!r}")
    spec.metrics = [check_metric(m, f"{spec.source}: metrics", spec.scenario, spec.derived) for m in spec.metrics]
    if len(set(spec.metrics)) != len(spec.metrics):
        spec.metrics = list(dict.fromkeys(spec.metrics))
    if spec.objective is not None:
        spec.objective = resolve_objective(spec.objective, f"{spec.source}: objective", spec.metrics, spec.derived)
        check_metric(spec.objective, f"{spec.source}: objective", spec.scenario, spec.derived)
        if spec.objective not in spec.metrics:
            spec.metrics.append(spec.objective)
    n = math.prod(len(a.values) for a in spec.axes) * len(spec.seeds)
    if n > MAX_TASKS:
        raise SweepError(f"{spec.source}: {n} tasks is more than the limit of {MAX_TASKS}")
    return spec


def _suggested_name(path: str) -> str:
    """An axis name for ``path`` that tells it from a namesake: ``flows.video.priority``
    -> ``video_priority``."""
    words: list[str] = []
    steps = parse_path(path)
    for prev, step in zip([None, *steps], steps):
        if isinstance(step, int) and prev in ("flows", "links"):
            words.append(f"{str(prev)[:-1]}{step}")  # flows[1] -> flow1
        elif isinstance(step, str) and step not in ("flows", "links", "overrides"):
            words.append(step)
    name = "_".join(words[-2:])
    return name if FLAG_AXIS_NAME.match(name) else "NAME"


def point_scenario(spec: SweepSpec, combo: Sequence[Any]) -> dict[str, Any]:
    """The base scenario with each axis's value set, in axis order; a relative trace
    file among them read from the axis's folder (the sweep file's, or the current
    folder for a --set flag)."""
    scenario = copy.deepcopy(spec.scenario)
    for axis, value in zip(spec.axes, combo):
        set_path(scenario, axis.key, copy.deepcopy(value))
        resolve_trace_files(scenario, axis.folder or os.getcwd())
    return scenario


def expand(spec: SweepSpec) -> list[Point]:
    """The points of the grid (product of the axes, first axis slowest), each with its
    scenario (base + axis values). A path that addresses nothing is an error naming it;
    so is a point the simulator would refuse to build (checked here, before any task
    runs, with the run's own one-line message)."""
    points = []
    combos = itertools.product(*(a.values for a in spec.axes)) if spec.axes else [()]
    for index, combo in enumerate(combos):
        values = {a.name: v for a, v in zip(spec.axes, combo)}
        try:
            scenario = point_scenario(spec, combo)
        except PathError as e:
            raise SweepError(f"{spec.source}: {e}") from None
        point = Point(index, values, scenario)
        try:
            check_scenario(scenario, name=f"{spec.source}: point {point.label}")
        except ScenarioError as e:
            raise SweepError(str(e)) from None
        points.append(point)
    return points
