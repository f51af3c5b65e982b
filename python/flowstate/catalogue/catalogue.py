"""The experiment catalogue: loading and checking ``scenarios/*/experiment.toml`` and
expanding an entry into points (docs/CATALOGUE.md).

::

    from flowstate.catalogue import catalogue

    root = catalogue.find_root()                     # --catalogue, $FLOWSTATE_CATALOGUE, repo scenarios/
    exp = catalogue.load(root / "p000-table5")       # checked: raises CatalogueError
    for point in exp.points(short=False):
        point.name, point.dir, point.scenario        # the scenario dict, overrides applied

Every error is a :class:`CatalogueError` with one line naming the file and the key
(``scenarios/p000-fig5/experiment.toml: claims[2].check: unknown point 'fse'``). Loading
checks everything before anything runs: keys and types, unique names, that the
scenario files exist and parse, that every path applies, that every point's scenario
(normal and short) passes the simulator's own checks without running (its validator and
the run's construction: flows, presets, overrides, coupling mechanism and options), that every point and metric referenced by
``paper``, ``claims``, ``derived`` and ``figures`` exists.
"""

from __future__ import annotations

import itertools
import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence

from flowstate.errors import FlowstateError
from flowstate.input_file import NotReadable, read_bytes
from flowstate.catalogue import claims as claims_mod
from flowstate.catalogue import derived as derived_mod
from flowstate.sweep import metrics as sweep_metrics
from flowstate.overrides import PathError, load_toml, with_overrides
from flowstate.simulation import MAX_RUNS

EXPERIMENT_FILE = "experiment.toml"
ENV_CATALOGUE = "FLOWSTATE_CATALOGUE"
FIGURE_KINDS = ("rate", "rtt", "queue", "rtt_box", "frames", "sweep", "bar")
_NAME = re.compile(r"^[a-z0-9._-]+$")
_AXIS = re.compile(r"^[a-z0-9_]+$")
_ID = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_PAPER_ID = re.compile(r"^(?:p(\d{3})|(rfc\d+))-")
_TOP_KEYS = {
    "id", "paper", "paper_id", "reference", "title", "description", "finding", "notes", "runs",
    "short", "variants", "grid", "derived", "claims", "figures",
}  # fmt: skip


class CatalogueError(FlowstateError):
    """A catalogue entry that cannot be run; the message is one line naming file and key."""


def _display(path: Path) -> str:
    """``path`` relative to the working directory when it is below it."""
    try:
        return os.path.relpath(path) if not os.path.relpath(path).startswith("..") else str(path)
    except ValueError:  # another drive (Windows)
        return str(path)


# --- discovery ----------------------------------------------------------------------


def find_root(explicit: Optional[str | os.PathLike[str]] = None) -> Path:
    """The catalogue folder: ``explicit`` (``--catalogue``), else $FLOWSTATE_CATALOGUE,
    else ``scenarios/`` of the source tree this package lives in, else ``./scenarios``."""
    if explicit is not None:
        root = Path(explicit)
    elif os.environ.get(ENV_CATALOGUE):
        root = Path(os.environ[ENV_CATALOGUE])
    else:
        root = Path("scenarios")
        for parent in Path(__file__).resolve().parents:
            if (parent / "scenarios").is_dir() and (parent / "pyproject.toml").is_file():
                root = parent / "scenarios"
                break
    if not root.is_dir():
        raise CatalogueError(f"{_display(root)}: catalogue folder not found")
    return root


def entry_folders(root: Path) -> list[Path]:
    """The folders of ``root`` holding an experiment.toml, by name."""
    return sorted(p.parent for p in root.glob(f"*/{EXPERIMENT_FILE}"))


def ids(root: Path) -> list[str]:
    return [p.name for p in entry_folders(root)]


def load_all(root: Path) -> list["Experiment"]:
    """Every entry of the catalogue, checked."""
    return [load(folder) for folder in entry_folders(root)]


def load_id(root: Path, experiment_id: str) -> "Experiment":
    folder = root / experiment_id
    if not (folder / EXPERIMENT_FILE).is_file():
        known = ", ".join(ids(root)) or "none"
        raise CatalogueError(f"{_display(root)}: no experiment {experiment_id!r} (known: {known})")
    return load(folder)


# --- the entry ----------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    name: str
    label: str
    scenario: Path
    set: Mapping[str, Any]


@dataclass(frozen=True)
class Axis:
    name: str
    key: str
    values: tuple[Any, ...]
    label: str


@dataclass(frozen=True)
class PaperValue:
    point: str
    metric: str
    value: float
    label: Optional[str]


@dataclass(frozen=True)
class Claim:
    text: str
    check: claims_mod.Check


@dataclass
class Point:
    """One variant at one value of every grid axis."""

    name: str
    variant: str
    label: str
    grid: dict[str, Any]
    dir: str
    scenario: dict[str, Any]

    def flow_names(self) -> list[str]:
        return [str(f.get("name")) for f in self.scenario.get("flows", []) if isinstance(f, Mapping)]

    def link_names(self) -> list[str]:
        """The names of summary.json's ``links``: a parking lot's hops ``hop1`` .. and the
        ``[[links]]`` names, else the dumbbell's ``link`` and ``reverse_link``."""
        lot = self.scenario.get("parking_lot")
        links = self.scenario.get("links")
        if not lot and not links:
            return ["link", "reverse_link"]
        hops = int(lot.get("hops", 0)) if isinstance(lot, Mapping) else 0
        named = [str(l.get("name")) for l in links or [] if isinstance(l, Mapping)]
        return [f"hop{k}" for k in range(1, hops + 1)] + named


@dataclass
class Experiment:
    id: str
    folder: Path
    file: str  # as shown in messages
    paper: str
    reference: str
    title: str
    description: str
    finding: str
    notes: str
    runs: int
    short_runs: Optional[int]
    short_set: Mapping[str, Any]
    variants: list[Variant]
    grid: list[Axis]
    paper_values: list[PaperValue]
    derived: list[derived_mod.Spec]
    claims: list[Claim]
    figures: list[dict[str, Any]]
    _bases: dict[Path, dict[str, Any]] = field(default_factory=dict, repr=False)

    def point_names(self) -> list[str]:
        return [name for name, _, _ in self._combos()]

    def _combos(self) -> list[tuple[str, Variant, dict[str, Any]]]:
        out = []
        for v in self.variants:
            for values in itertools.product(*(a.values for a in self.grid)) if self.grid else [()]:
                grid = {a.name: val for a, val in zip(self.grid, values)}
                name = v.name
                if self.grid:
                    name += "[" + ",".join(f"{a.name}={_written(val)}" for a, val in zip(self.grid, values)) + "]"
                out.append((name, v, grid))
        return out

    def points(self, short: bool = False) -> list[Point]:
        """Every point with its scenario dict: the variant's base scenario, its ``set``,
        the grid values, then (``short``) the entry's ``[short] set``."""
        points = []
        for name, v, grid in self._combos():
            overrides: dict[str, Any] = dict(v.set)
            overrides.update({a.key: grid[a.name] for a in self.grid})
            scenario = with_overrides(self._bases[v.scenario], overrides)
            if short:
                scenario = with_overrides(scenario, self.short_set)
            points.append(Point(name, v.name, v.label, grid, point_dir(name), scenario))
        return points

    def run_count(self, short: bool = False) -> int:
        return (self.short_runs or self.runs) if short else self.runs


def _written(value: Any) -> str:
    """A grid value as it appears in a point name."""
    return value if isinstance(value, str) else repr(value)


def point_dir(name: str) -> str:
    """The output folder of a point: ``fsev2[p_sctp=0.5]`` -> ``fsev2_p_sctp_0.5_``."""
    return re.sub(r"[\[\],=]", "_", name)


# --- loading and checking -----------------------------------------------------------


class _Ctx:
    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, key: str, message: str) -> CatalogueError:
        return CatalogueError(f"{self.file}: {key}: {message}")

    def table(self, value: Any, key: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(key, f"expected a table, got {_kind(value)}")
        return value

    def tables(self, doc: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
        value = doc.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
            raise self.fail(key, f"expected an array of tables ([[{key}]]), got {_kind(value)}")
        return value

    def string(self, t: Mapping[str, Any], key: str, where: str, default: Optional[str] = None) -> str:
        value = t.get(key, default)
        if value is None:
            raise self.fail(_join(where, key), "required key is missing")
        if not isinstance(value, str):
            raise self.fail(_join(where, key), f"expected a string, got {_kind(value)}")
        return value

    def keys(self, t: Mapping[str, Any], allowed: Iterable[str], where: str) -> None:
        allowed = set(allowed)
        for key in t:
            if key not in allowed:
                raise self.fail(_join(where, key), f"unknown key (expected one of: {', '.join(sorted(allowed))})")


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _kind(value: Any) -> str:
    return {dict: "a table", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )


def load(folder: str | os.PathLike[str]) -> Experiment:
    """Loads and checks the entry in ``folder`` (or the experiment.toml path itself)."""
    folder = Path(folder)
    if folder.name == EXPERIMENT_FILE:
        folder = folder.parent
    path = folder / EXPERIMENT_FILE
    ctx = _Ctx(_display(path))
    try:
        doc = tomllib.loads(read_bytes(path, "an experiment file").decode("utf-8"))
    except NotReadable as e:
        raise CatalogueError(f"{ctx.file}: {e}") from None
    except OSError as e:
        raise CatalogueError(f"{ctx.file}: cannot read: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise CatalogueError(f"{ctx.file}: {e}") from None
    except UnicodeDecodeError:
        raise CatalogueError(f"{ctx.file}: not UTF-8 text") from None
    ctx.keys(doc, _TOP_KEYS, "")

    exp_id = ctx.string(doc, "id", "")
    if exp_id != folder.name:
        raise ctx.fail("id", f"must be the folder name {folder.name!r}, got {exp_id!r}")
    if not _ID.match(exp_id):
        raise ctx.fail("id", f"must match [a-z0-9._-]+, got {exp_id!r}")
    paper_id, paper_rows = _paper_fields(ctx, doc, exp_id)
    runs = doc.get("runs", 1)
    if not _is_run_count(runs):
        raise ctx.fail("runs", f"expected an integer in [1, {MAX_RUNS}], got {runs!r}")

    short = ctx.table(doc.get("short", {}), "short")
    ctx.keys(short, {"runs", "set"}, "short")
    short_runs = short.get("runs")
    if short_runs is not None and not _is_run_count(short_runs):
        raise ctx.fail("short.runs", f"expected an integer in [1, {MAX_RUNS}], got {short_runs!r}")
    short_set = ctx.table(short.get("set", {}), "short.set")

    variants = _variants(ctx, doc, folder)
    grid = _grid(ctx, doc)
    exp = Experiment(
        id=exp_id,
        folder=folder,
        file=ctx.file,
        paper=paper_id,
        reference=ctx.string(doc, "reference", "", ""),
        title=ctx.string(doc, "title", "", exp_id),
        description=ctx.string(doc, "description", "", ""),
        finding=ctx.string(doc, "finding", "", ""),
        notes=ctx.string(doc, "notes", "", ""),
        runs=runs,
        short_runs=short_runs,
        short_set=short_set,
        variants=variants,
        grid=grid,
        paper_values=[],
        derived=[],
        claims=[],
        figures=[],
    )
    for v in variants:
        if v.scenario not in exp._bases:
            try:
                exp._bases[v.scenario] = load_toml(v.scenario)
            except PathError as e:
                raise CatalogueError(f"{ctx.file}: variants: {e}") from None
    points = _checked_points(ctx, exp)
    by_name = {p.name: p for p in points}
    exp.derived = _derived(ctx, doc, points)
    derived_names = {d.name for d in exp.derived}
    exp.paper_values = _paper_values(ctx, paper_rows, by_name, derived_names)
    exp.claims = _claims(ctx, doc, by_name, derived_names)
    exp.figures = _figures(ctx, doc, exp, by_name, derived_names)
    return exp


def _is_run_count(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and 1 <= value <= MAX_RUNS


def _paper_fields(ctx: _Ctx, doc: Mapping[str, Any], exp_id: str) -> tuple[str, list[Mapping[str, Any]]]:
    """The paper id and the ``[[paper]]`` rows. TOML cannot hold both ``paper = "000"``
    and ``[[paper]]``; the id is ``paper_id``, or ``paper`` when it is a string, or
    taken from the experiment id (``p000-...`` -> ``000``, ``rfc8867-...``)."""
    raw = doc.get("paper")
    rows: list[Mapping[str, Any]] = []
    paper_id = doc.get("paper_id")
    if isinstance(raw, str):
        if paper_id is not None:
            raise ctx.fail("paper", "give the paper id once: as paper_id or as paper")
        paper_id = raw
    elif raw is not None:
        rows = ctx.tables(doc, "paper")
    if paper_id is None:
        m = _PAPER_ID.match(exp_id)
        paper_id = (m.group(1) or m.group(2)) if m else ""
    if not isinstance(paper_id, str):
        raise ctx.fail("paper_id", f"expected a string, got {_kind(paper_id)}")
    return paper_id, rows


def _variants(ctx: _Ctx, doc: Mapping[str, Any], folder: Path) -> list[Variant]:
    rows = ctx.tables(doc, "variants")
    if not rows:
        raise ctx.fail("variants", "at least one [[variants]] is required")
    out: list[Variant] = []
    for i, row in enumerate(rows):
        where = f"variants[{i}]"
        ctx.keys(row, {"name", "label", "scenario", "set"}, where)
        name = ctx.string(row, "name", where)
        if not _NAME.match(name):
            raise ctx.fail(f"{where}.name", f"must match [a-z0-9._-]+, got {name!r}")
        if any(v.name == name for v in out):
            raise ctx.fail(f"{where}.name", f"duplicate variant name {name!r}")
        scenario = folder / ctx.string(row, "scenario", where)
        if not scenario.is_file():
            raise ctx.fail(f"{where}.scenario", f"no such file {_display(scenario)}")
        out.append(
            Variant(name, ctx.string(row, "label", where, name), scenario, ctx.table(row.get("set", {}), f"{where}.set"))
        )
    return out


def _grid(ctx: _Ctx, doc: Mapping[str, Any]) -> list[Axis]:
    out: list[Axis] = []
    for i, row in enumerate(ctx.tables(doc, "grid")):
        where = f"grid[{i}]"
        ctx.keys(row, {"name", "key", "values", "label"}, where)
        name = ctx.string(row, "name", where)
        if not _AXIS.match(name):
            raise ctx.fail(f"{where}.name", f"must match [a-z0-9_]+, got {name!r}")
        if any(a.name == name for a in out):
            raise ctx.fail(f"{where}.name", f"duplicate axis name {name!r}")
        values = row.get("values")
        if (
            not isinstance(values, list)
            or not values
            or not all(isinstance(v, (int, float, str)) and not isinstance(v, bool) for v in values)
        ):
            raise ctx.fail(f"{where}.values", "expected a non-empty array of numbers or strings")
        if len({_written(v) for v in values}) != len(values):
            raise ctx.fail(f"{where}.values", "duplicate values")
        out.append(Axis(name, ctx.string(row, "key", where), tuple(values), ctx.string(row, "label", where, name)))
    return out


def _checked_points(ctx: _Ctx, exp: Experiment) -> list[Point]:
    """Expands the points (normal and short), applying every path, and runs each
    scenario through the simulator's validator."""
    for i, v in enumerate(exp.variants):
        for path, value in v.set.items():
            _apply(ctx, exp._bases[v.scenario], path, value, f"variants[{i}].set")
        for j, a in enumerate(exp.grid):
            for value in a.values:
                _apply(ctx, with_overrides(exp._bases[v.scenario], v.set), a.key, value, f"grid[{j}].key")
    points = exp.points(short=False)
    for p in points:
        for path, value in exp.short_set.items():
            _apply(ctx, p.scenario, path, value, "short.set")
    for short in (False, True):
        for p in exp.points(short=short) if short else points:
            _validate_scenario(ctx, exp, p, short)
    return points


def _apply(ctx: _Ctx, scenario: Mapping[str, Any], path: str, value: Any, where: str) -> None:
    try:
        with_overrides(scenario, {path: value})
    except PathError as e:
        raise ctx.fail(where, str(e)) from None


def _validate_scenario(ctx: _Ctx, exp: Experiment, point: Point, short: bool) -> None:
    """Runs the point's scenario through the simulator's own checks (parse, validation
    and the run's construction: flows, overrides, coupling mechanism and options;
    ``flowstate.check_scenario``) without running it. The error names the key of the
    entry that brought the bad value in (the variant's scenario, its ``set``, a grid
    axis or ``short.set``) and the point."""
    name = f"{point.name}{' (short)' if short else ''}"
    message = _scenario_error(point.scenario, name)
    if message is not None:
        raise ctx.fail(f"{_culprit(exp, point, short, name, message)}: point {name}", message)


def _scenario_error(scenario: Mapping[str, Any], name: str) -> Optional[str]:
    """The simulator's one-line error for ``scenario`` (without the leading name), or
    None when it can run."""
    from flowstate import _native

    try:
        _native.check_scenario(dict(scenario), name)
    except _native.ScenarioError as e:  # a simulator bug (RuntimeError) is not the entry's fault: raised as is
        message = str(e)
        for prefix in (name + ": ", "<dict>: "):
            if message.startswith(prefix):
                return message[len(prefix) :]
        return message
    return None


def _culprit(exp: Experiment, point: Point, short: bool, name: str, message: str) -> str:
    """The entry key whose value gives ``message``: the scenario with the point's
    changes applied one key at a time, the first that fails this way."""
    i, variant = next((i, v) for i, v in enumerate(exp.variants) if v.name == point.variant)
    scenario: Mapping[str, Any] = exp._bases[variant.scenario]
    stages: list[tuple[str, Mapping[str, Any]]] = [(f"variants[{i}].scenario", scenario)]
    if variant.set:
        scenario = with_overrides(scenario, variant.set)
        stages.append((f"variants[{i}].set", scenario))
    for j, axis in enumerate(exp.grid):
        scenario = with_overrides(scenario, {axis.key: point.grid[axis.name]})
        stages.append((f"grid[{j}].values", scenario))
    if short and exp.short_set:
        stages.append(("short.set", with_overrides(scenario, exp.short_set)))
    for key, stage in stages[:-1]:
        if _scenario_error(stage, name) == message:
            return key
    return stages[-1][0]


def _check_metric(
    ctx: _Ctx, key: str, metric: Any, points: Sequence[Point], derived_names: set[str]
) -> str:
    """Checks a metric path against the points it is read from."""
    if not isinstance(metric, str) or not metric:
        raise ctx.fail(key, f"expected a metric path, got {metric!r}")
    parts = metric.split(".")
    if parts[0] == "aggregate" and len(parts) >= 2 and all(parts[1:]):
        _check_summary_path(ctx, key, metric, points)
        return metric
    if parts[0] == "derived" and len(parts) == 2:
        if parts[1] not in derived_names:
            raise ctx.fail(key, f"unknown derived metric {parts[1]!r}")
        return metric
    if parts[0] == "flows" and len(parts) >= 3 and all(parts[2:]):
        for p in points:
            if parts[1] not in p.flow_names():
                raise ctx.fail(key, f"point {p.name!r} has no flow {parts[1]!r}")
        _check_summary_path(ctx, key, metric, points)
        return metric
    if parts[0] == "links" and len(parts) >= 3 and all(parts[2:]):
        for p in points:
            if parts[1] not in p.link_names():
                raise ctx.fail(key, f"point {p.name!r} has no link {parts[1]!r}")
        _check_summary_path(ctx, key, metric, points)
        return metric
    raise ctx.fail(
        key,
        f"bad metric path {metric!r} (aggregate.<field>, flows.<flow>.<field>[.<sub>], "
        "links.<link>.<field>[.<sub>] or derived.<name>)",
    )


def _check_summary_path(ctx: _Ctx, key: str, metric: str, points: Sequence[Point]) -> None:
    """Checks ``metric`` against the summary.json contract (the simulator's summary of
    each point's flows, with nothing measured): a misspelled field would otherwise show
    as "not evaluated" only after every run."""
    for p in points:
        try:
            sweep_metrics.check_summary_path(metric, p.flow_names())
        except sweep_metrics.MetricError as e:
            raise ctx.fail(key, str(e)) from None


def _point(ctx: _Ctx, key: str, name: Any, by_name: Mapping[str, Point]) -> Point:
    if not isinstance(name, str) or name not in by_name:
        raise ctx.fail(key, f"unknown point {name!r}")
    return by_name[name]


def _derived(ctx: _Ctx, doc: Mapping[str, Any], points: Sequence[Point]) -> list[derived_mod.Spec]:
    out: list[derived_mod.Spec] = []
    for i, row in enumerate(ctx.tables(doc, "derived")):
        where = f"derived[{i}]"
        ctx.keys(row, {"name", "fn", "args"}, where)
        name = ctx.string(row, "name", where)
        if not _AXIS.match(name):
            raise ctx.fail(f"{where}.name", f"must match [a-z0-9_]+, got {name!r}")
        if any(d.name == name for d in out):
            raise ctx.fail(f"{where}.name", f"duplicate derived metric {name!r}")
        try:
            spec = derived_mod.make_spec(name, row.get("fn"), row.get("args"))
        except derived_mod.DerivedError as e:
            raise ctx.fail(f"{where}.fn" if "unknown function" in str(e) else f"{where}.args", str(e)) from None
        for flow in spec.flows():
            for p in points:
                if flow not in p.flow_names():
                    raise ctx.fail(f"{where}.args", f"point {p.name!r} has no flow {flow!r}")
        out.append(spec)
    return out


def _paper_values(
    ctx: _Ctx, rows: Sequence[Mapping[str, Any]], by_name: Mapping[str, Point], derived_names: set[str]
) -> list[PaperValue]:
    out = []
    for i, row in enumerate(rows):
        where = f"paper[{i}]"
        ctx.keys(row, {"point", "metric", "value", "label"}, where)
        point = _point(ctx, f"{where}.point", row.get("point"), by_name)
        metric = _check_metric(ctx, f"{where}.metric", row.get("metric"), [point], derived_names)
        value = row.get("value")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ctx.fail(f"{where}.value", f"expected a finite number, got {value!r}")
        label = row.get("label")
        if label is not None and not isinstance(label, str):
            raise ctx.fail(f"{where}.label", f"expected a string, got {_kind(label)}")
        out.append(PaperValue(point.name, metric, float(value), label))
    return out


def _claims(
    ctx: _Ctx, doc: Mapping[str, Any], by_name: Mapping[str, Point], derived_names: set[str]
) -> list[Claim]:
    out = []
    for i, row in enumerate(ctx.tables(doc, "claims")):
        where = f"claims[{i}]"
        ctx.keys(row, {"text", "check"}, where)
        text = ctx.string(row, "text", where)
        try:
            check = claims_mod.parse(ctx.string(row, "check", where))
        except claims_mod.ClaimError as e:
            raise ctx.fail(f"{where}.check", str(e)) from None
        for point, metric in check.refs:
            p = _point(ctx, f"{where}.check", point, by_name)
            _check_metric(ctx, f"{where}.check", metric, [p], derived_names)
        out.append(Claim(text, check))
    return out


def _figures(
    ctx: _Ctx, doc: Mapping[str, Any], exp: Experiment, by_name: Mapping[str, Point], derived_names: set[str]
) -> list[dict[str, Any]]:
    out = []
    axes = {a.name for a in exp.grid}
    for i, row in enumerate(ctx.tables(doc, "figures")):
        where = f"figures[{i}]"
        ctx.keys(row, {"kind", "points", "title", "x", "y", "metrics", "flows"}, where)
        kind = ctx.string(row, "kind", where)
        if kind not in FIGURE_KINDS:
            raise ctx.fail(f"{where}.kind", f"unknown kind {kind!r} (one of: {', '.join(FIGURE_KINDS)})")
        names = row.get("points", list(by_name))
        if not isinstance(names, list) or not names:
            raise ctx.fail(f"{where}.points", "expected a non-empty array of point names")
        points = [_point(ctx, f"{where}.points", n, by_name) for n in names]
        figure: dict[str, Any] = {"kind": kind, "points": [p.name for p in points]}
        if "title" in row:
            figure["title"] = ctx.string(row, "title", where)
        if "flows" in row:
            flows = row["flows"]
            if not isinstance(flows, list) or not all(isinstance(f, str) for f in flows):
                raise ctx.fail(f"{where}.flows", "expected an array of flow names")
            for f in flows:
                if not any(f in p.flow_names() for p in points):
                    raise ctx.fail(f"{where}.flows", f"no point of the figure has a flow {f!r}")
            figure["flows"] = flows
        if kind == "sweep":
            x = ctx.string(row, "x", where)
            if x not in axes:
                raise ctx.fail(f"{where}.x", f"unknown grid axis {x!r}")
            figure["x"] = x
            figure["y"] = _check_metric(ctx, f"{where}.y", ctx.string(row, "y", where), points, derived_names)
        elif "x" in row or "y" in row:
            raise ctx.fail(f"{where}.x" if "x" in row else f"{where}.y", f"only for kind 'sweep', not {kind!r}")
        if kind == "bar":
            metrics = row.get("metrics")
            if not isinstance(metrics, list) or not metrics:
                raise ctx.fail(f"{where}.metrics", "expected a non-empty array of metric paths")
            figure["metrics"] = [
                _check_metric(ctx, f"{where}.metrics", m, points, derived_names) for m in metrics
            ]
        elif "metrics" in row:
            raise ctx.fail(f"{where}.metrics", f"only for kind 'bar', not {kind!r}")
        out.append(figure)
    return out
