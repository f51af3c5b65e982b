"""Metric values of one sweep task: metric paths of a run's summary and derived metrics.

Metric paths (docs/CATALOGUE.md): ``aggregate.<field>``, ``flows.<flow>.<field>``
(nested fields with dots: ``flows.gcc.rtt_ms.p95``) and ``derived.<name>``.

Derived metrics are computed by the catalogue's module :mod:`flowstate.derived`
(``make_spec`` + ``compute``) on the run's time series (the pandas DataFrame of
:attr:`flowstate.RunResult.timeseries`). Where that module is absent, the fallbacks below
are used (today: ``gcc_utility``, paper 002 Fig. 8, same arguments).
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable, Mapping, Optional, Sequence

_MISSING = object()


class MetricError(ValueError):
    """A metric path that addresses no field of the summary."""


def summary_value(summary: Mapping[str, Any], path: str) -> Any:
    """The value at ``path`` in one run's summary (None: the metric has no value, e.g. no
    RTT samples). Raises MetricError when the path addresses no field."""
    root, _, rest = path.partition(".")
    if root == "aggregate":
        node: Any = summary.get("aggregate", {})
        fields = rest
    elif root == "flows":
        flows = summary.get("flows", [])
        match = max(
            (f for f in flows if rest.startswith(str(f.get("name")) + ".")),
            key=lambda f: len(str(f.get("name"))),
            default=None,
        )
        if match is None:
            raise MetricError(f"{path}: no flow of the summary matches")
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
# With the catalogue's module flowstate.derived present, a derived metric is
# ``derived.compute(derived.make_spec(name, fn, args), timeseries)``: its functions,
# argument names and units. Without it, the fallbacks below take the same arguments.

_TIME = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(us|ms|s|min)?\s*$", re.IGNORECASE)
_TIME_SCALE = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}


def _seconds(value: Any, what: str) -> float:
    """``"30s"``, ``"500ms"``, or a bare number of seconds."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    m = _TIME.match(value) if isinstance(value, str) else None
    if m is None:
        raise MetricError(f"{what}: expected a time such as \"30s\", got {value!r}")
    return float(m.group(1)) * _TIME_SCALE[(m.group(2) or "s").lower()]


def _rows(series: Any) -> list[Mapping[str, Any]]:
    """Rows of one run's time series (pandas DataFrame or a list of dicts)."""
    if hasattr(series, "to_dict"):
        return list(series.to_dict("records"))
    return list(series)


def _mean(xs: list[float]) -> Optional[float]:
    return math.fsum(xs) / len(xs) if xs else None


def gcc_utility(
    series: Any,
    alpha: float = 2.0,
    beta: float = 1.0,
    delta: float = 0.15,
    start: float = 0.0,
    end: Optional[float] = None,
    flows: Optional[Sequence[str]] = None,
    min_delay_ms: float = 1.0,
) -> Optional[float]:
    """Paper 002 eq. (21), the Fig. 8 objective: ``sum_i U_alpha(x_i) - delta * U_beta(y_i)``
    with ``U_a(x) = x^(1-a) / (1-a)`` (``log x`` for ``a = 1``, eq. 20), ``x_i`` the mean
    throughput of flow i (Mbit/s) and ``y_i`` its mean queuing delay (ms, floored at
    ``min_delay_ms`` so that an empty queue gives a finite ``log``) over the bins whose
    start is in ``[start, end)``; ``flows``: the flows to sum over (default: all). Paper
    defaults alpha = 2, beta = 1, delta = 0.15. None when a flow has no throughput or no
    queuing-delay sample. The same definition as flowstate.derived.gcc_utility (the
    fallback for when that module is absent)."""

    def u(a: float, x: float) -> float:
        return math.log(x) if a == 1 else x ** (1 - a) / (1 - a)

    rows = [r for r in _rows(series) if r["time_s"] >= start and (end is None or r["time_s"] < end)]
    names = list(flows) if flows is not None else list(dict.fromkeys(str(r["flow"]) for r in rows))
    if not names:
        return None
    total = 0.0
    for name in names:
        mine = [r for r in rows if r["flow"] == name]
        x = _mean([float(r["throughput_mbps"]) for r in mine if _number(r["throughput_mbps"])])
        y = _mean([float(r["queuing_delay_ms"]) for r in mine if _number(r["queuing_delay_ms"])])
        if x is None or y is None or x <= 0:
            return None  # a starved flow: U_alpha -> -inf for alpha >= 1
        total += u(alpha, x) - delta * u(beta, max(y, min_delay_ms))
    return total


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _fallback_gcc_utility(args: Mapping[str, Any]) -> dict[str, Any]:
    """The catalogue's argument names and units -> gcc_utility keyword arguments."""
    kwargs: dict[str, Any] = {}
    for key, value in args.items():
        if key in ("alpha", "beta", "delta"):
            if not _number(value):
                raise MetricError(f"gcc_utility: {key}: expected a number, got {value!r}")
            kwargs[key] = float(value)
        elif key in ("from", "to"):
            kwargs["start" if key == "from" else "end"] = _seconds(value, f"gcc_utility: {key}")
        elif key == "flows":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise MetricError(f"gcc_utility: flows: expected a list of flow names, got {value!r}")
            kwargs["flows"] = value
        elif key == "min_delay":
            kwargs["min_delay_ms"] = _seconds(value, "gcc_utility: min_delay") * 1e3
        else:
            raise MetricError(
                f"gcc_utility: unknown argument {key!r} (one of: alpha, beta, delta, from, to, flows, min_delay)"
            )
    return kwargs


# name -> argument parser of the fallback function
FALLBACKS: dict[str, tuple[Callable[..., Optional[float]], Callable[[Mapping[str, Any]], dict[str, Any]]]] = {
    "gcc_utility": (gcc_utility, _fallback_gcc_utility),
}


def _catalogue_module() -> Any:
    try:
        from flowstate import derived  # type: ignore[attr-defined]
    except ImportError:
        return None
    if not (hasattr(derived, "make_spec") and hasattr(derived, "compute")):
        return None
    return derived


Evaluator = Callable[[Any], Optional[float]]


def derived_evaluator(d: Mapping[str, Any]) -> Evaluator:
    """A function of one run's time series for ``{"name", "fn", "args"}``; MetricError
    (one line, naming the function or argument) for an unknown function or bad args."""
    module = _catalogue_module()
    name, fn, args = d["name"], d["fn"], dict(d.get("args") or {})
    if module is not None:
        try:
            spec = module.make_spec(name, fn, args)
        except ValueError as e:
            raise MetricError(f"derived {name!r}: {e}") from None
        return lambda series: module.compute(spec, series)
    if fn not in FALLBACKS:
        raise MetricError(f"derived {name!r}: unknown function {fn!r} (one of: {', '.join(sorted(FALLBACKS))})")
    function, parse = FALLBACKS[fn]
    try:
        kwargs = parse(args)
    except MetricError as e:
        raise MetricError(f"derived {name!r}: {e}") from None
    return lambda series: function(series, **kwargs)


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
