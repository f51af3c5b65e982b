"""Metric values of one sweep task: metric paths of a run's summary and derived metrics.

Metric paths (docs/CATALOGUE.md): ``aggregate.<field>``, ``flows.<flow>.<field>``
(nested fields with dots: ``flows.gcc.rtt_ms.p95``) and ``derived.<name>``.

Derived metrics call the function ``fn`` of :mod:`flowstate.derived` (the catalogue's
module) as ``fn(timeseries, **args)`` on the run's time series (pandas DataFrame of
:attr:`flowstate.RunResult.timeseries`). Where that module, or the function, is absent,
the built-in fallbacks below are used (today: ``gcc_utility``, paper 002 Fig. 8).
"""

from __future__ import annotations

import math
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


def gcc_utility(
    summary: Mapping[str, Any],
    alpha: float = 2.0,
    beta: float = 1.0,
    delta: float = 0.15,
    flows: Optional[Sequence[str]] = None,
    min_delay_ms: float = 1.0,
) -> Optional[float]:
    """Paper 002 eq. (21), the Fig. 8 objective: ``sum_i U_alpha(x_i) - delta * U_beta(y_i)``
    with ``U_a(x) = x^(1-a) / (1-a)`` (``log x`` for ``a = 1``), ``x_i`` the mean
    throughput of flow i (Mbit/s) and ``y_i`` its mean queuing delay (ms, floored at
    ``min_delay_ms`` so that an empty queue gives a finite ``log``) over the measurement
    window; ``flows``: the flow names to sum over (default: every flow). Paper defaults
    alpha = 2, beta = 1, delta = 0.15. Fallback for flowstate.derived.gcc_utility, from
    the summary (means over the window) rather than the time series."""

    def u(a: float, x: float) -> float:
        return math.log(x) if a == 1 else x ** (1 - a) / (1 - a)

    total = 0.0
    chosen = [f for f in summary.get("flows", []) if flows is None or f.get("name") in flows]
    if not chosen:
        return None
    for f in chosen:
        x = f.get("throughput_mbps")
        y = (f.get("queuing_delay_ms") or {}).get("mean")
        if x is None or x <= 0:
            return None  # a starved flow: U_alpha -> -inf for alpha >= 1
        y = max(float(y if y is not None else 0.0), min_delay_ms)
        total += u(alpha, float(x)) - delta * u(beta, y)
    return total


# name -> function of (summary, **args), used when flowstate.derived has no such function
FALLBACKS: dict[str, Callable[..., Optional[float]]] = {"gcc_utility": gcc_utility}


def _catalogue_module() -> Any:
    try:
        from flowstate import derived  # type: ignore[attr-defined]
    except ImportError:
        return None
    return derived


def derived_function(fn: str) -> Callable[[Any, Mapping[str, Any], Mapping[str, Any]], Optional[float]]:
    """``f(result, summary, args)`` for a derived function name; MetricError if unknown."""
    module = _catalogue_module()
    target = getattr(module, fn, None) if module is not None and not fn.startswith("_") else None
    if callable(target):
        return lambda result, summary, args: target(result.timeseries, **args)
    if fn in FALLBACKS:
        fallback = FALLBACKS[fn]
        return lambda result, summary, args: fallback(summary, **args)
    known = sorted(set(FALLBACKS) | ({n for n in dir(module) if not n.startswith("_")} if module else set()))
    raise MetricError(f"unknown derived function {fn!r} (known: {', '.join(known)})")


def compute_derived(result: Any, summary: Mapping[str, Any], derived: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``{name: {"fn", "args", "value"}}`` for every ``{"name", "fn", "args"}`` of ``derived``."""
    out: dict[str, Any] = {}
    for d in derived:
        f = derived_function(d["fn"])
        try:
            value = f(result, summary, dict(d.get("args", {})))
        except TypeError as e:
            raise MetricError(f"derived {d['name']!r}: bad args for {d['fn']}: {e}") from None
        if value is not None:
            value = float(value)
            if not math.isfinite(value):
                value = None
        out[d["name"]] = {"fn": d["fn"], "args": dict(d.get("args", {})), "value": value}
    return out


def check_derived_names(derived: Sequence[Mapping[str, Any]]) -> None:
    """Fails early (before any run) on an unknown derived function name."""
    for d in derived:
        derived_function(d["fn"])
