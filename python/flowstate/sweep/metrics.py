"""Metric values of one sweep task: metric paths of a run's summary and derived metrics.

Metric paths (docs/CATALOGUE.md): ``aggregate.<field>``, ``flows.<flow>.<field>``
(nested fields with dots: ``flows.gcc.rtt_ms.p95``), ``links.<link>.<field>``
(``links.hop2.utilization``) and ``derived.<name>``.

Derived metrics are computed by the catalogue's module :mod:`flowstate.catalogue.derived`
(``make_spec`` + ``compute``) on the run's time series (the pandas DataFrame of
:attr:`flowstate.RunResult.timeseries`).
"""

from __future__ import annotations

import functools
import json
import math
from typing import Any, Callable, Mapping, Optional, Sequence

from flowstate.errors import FlowstateError
from flowstate.catalogue import derived as derived_functions


class MetricError(FlowstateError):
    """A metric path that addresses no field of the summary."""


def summary_value(summary: Mapping[str, Any], path: str) -> Any:
    """The value at ``path`` in one run's summary (None: the metric has no value, e.g. no
    RTT samples). Raises MetricError when the path addresses no field."""
    root, _, rest = path.partition(".")
    if root == "aggregate":
        node: Any = summary.get("aggregate", {})
        fields = rest
    elif root in ("flows", "links"):
        items = summary.get(root, [])
        match = max(
            (f for f in items if rest.startswith(str(f.get("name")) + ".")),
            key=lambda f: len(str(f.get("name"))),
            default=None,
        )
        if match is None:
            raise MetricError(f"{path}: no {root[:-1]} of the summary matches")
        node, fields = match, rest[len(str(match["name"])) + 1 :]
    else:
        raise MetricError(f"{path}: not a summary path")
    for key in fields.split("."):
        if not isinstance(node, Mapping) or key not in node:
            known = ", ".join(k for k in node if k != "spread") if isinstance(node, Mapping) else ""
            raise MetricError(f"{path}: no field {key!r} (fields: {known})")
        node = node[key]
    if isinstance(node, Mapping):
        raise MetricError(f"{path}: a table, not a number (fields: {', '.join(node)})")
    return node


@functools.lru_cache(maxsize=256)
def _template(flows: tuple[str, ...]) -> Mapping[str, Any]:
    from flowstate import _native

    return json.loads(_native.summary_template(list(flows)))


def summary_template(flows: Sequence[str]) -> Mapping[str, Any]:
    """A summary of the summary.json contract with flows named ``flows`` and nothing
    measured (numbers 0, optional ones null), written by the simulator's own summary
    code: the schema metric paths are checked against before any run."""
    return _template(tuple(str(f) for f in flows))


def check_summary_path(path: str, flows: Sequence[str]) -> None:
    """Raises MetricError (one line naming the path, the field and the known fields)
    when ``path`` (``aggregate.<field>`` or ``flows.<flow>.<field>[.<sub>]``) addresses
    no number of a run's summary with flows named ``flows``."""
    template = summary_template(flows)
    if path.startswith("links."):
        # Link names come from the scenario's links, which the template does not know:
        # check the field against any link's fields.
        field = path.split(".", 2)[2] if path.count(".") >= 2 else ""
        link = dict(template["links"][0], name="_")
        value = summary_value({"links": [link]}, f"links._.{field}")
    else:
        value = summary_value(template, path)
    if isinstance(value, (str, bool)):
        raise MetricError(f"{path}: not a number (a {type(value).__name__})")


def metric_value(summary: Mapping[str, Any], derived: Mapping[str, Any], path: str) -> Optional[float]:
    """A number (or None) for a metric path of one task result."""
    if path.startswith("derived."):
        name = path[len("derived.") :]
        entry = derived.get(name)
        value = entry.get("value") if isinstance(entry, Mapping) else None
    else:
        value = summary_value(summary, path)
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None  # no value, or not a number (a name, a kind)
    value = float(value)
    return value if math.isfinite(value) else None


# ------------------------------------------------------------ derived metrics
#
# A derived metric is ``derived.compute(derived.make_spec(name, fn, args), timeseries)``
# with the catalogue's functions, argument names and units (flowstate.catalogue.derived).

Evaluator = Callable[[Any], Optional[float]]


def derived_evaluator(d: Mapping[str, Any]) -> Evaluator:
    """A function of one run's time series for ``{"name", "fn", "args"}``; MetricError
    (one line, naming the function or argument) for an unknown function or bad args."""
    name, fn, args = d["name"], d["fn"], dict(d.get("args") or {})
    try:
        spec = derived_functions.make_spec(name, fn, args)
    except derived_functions.DerivedError as e:
        raise MetricError(f"derived {name!r}: {e}") from None
    return lambda series: derived_functions.compute(spec, series)


def compute_derived(result: Any, derived: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``{name: {"fn", "args", "value"}}`` for every ``{"name", "fn", "args"}`` of
    ``derived`` on the time series of ``result`` (a one-run RunResult)."""
    out: dict[str, Any] = {}
    for d in derived:
        value = derived_evaluator(d)(result.timeseries)
        if value is not None:
            value = float(value)
            if not math.isfinite(value):
                value = None
        out[d["name"]] = {"fn": d["fn"], "args": dict(d.get("args") or {}), "value": value}
    return out


def check_derived(derived: Sequence[Mapping[str, Any]]) -> None:
    """Fails early (before any run) on an unknown function or bad arguments."""
    for d in derived:
        derived_evaluator(d)
