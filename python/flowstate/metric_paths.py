"""Metric paths (docs/CATALOGUE.md, "Metric paths"): ``aggregate.<field>``,
``flows.<flow>.<field>[.<sub>]``, ``links.<link>.<field>[.<sub>]`` and
``derived.<name>``; their readable labels with units (:func:`metric_label`, for every
figure) and their values at a results.json point (:func:`metric_stats`)."""

from __future__ import annotations

import math
from typing import Any, Mapping, Optional, Sequence


def _dig(node: Any, keys: Sequence[str]) -> Any:
    for key in keys:
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node


def metric_stats(point: Mapping[str, Any], path: str) -> Optional[dict[str, float]]:
    """``{"mean", "std", "min", "max"}`` of metric ``path`` at a results.json point
    (means over runs, spread from the summary's ``spread``); None when the point has no
    value for it. A single run has std 0 and min = max = mean."""
    parts = path.split(".")
    summary = point.get("summary") or {}
    mean: Any = None
    spread: Any = None
    if parts[0] == "derived":
        stats = _dig(point.get("derived") or {}, parts[1:])
        if isinstance(stats, Mapping):
            mean, spread = stats.get("mean"), stats
    elif parts[0] == "aggregate":
        aggregate = summary.get("aggregate") or {}
        mean, spread = _dig(aggregate, parts[1:]), _dig(aggregate.get("spread") or {}, parts[1:])
    elif parts[0] == "links" and len(parts) > 1:
        link = next((l for l in summary.get("links") or [] if l.get("name") == parts[1]), None)
        if link is not None:
            mean, spread = _dig(link, parts[2:]), _dig(link.get("spread") or {}, parts[2:])
    elif len(parts) > 1:
        flow = next((f for f in summary.get("flows") or [] if f.get("name") == parts[1]), None)
        if flow is not None:
            mean, spread = _dig(flow, parts[2:]), _dig(flow.get("spread") or {}, parts[2:])
    if isinstance(mean, bool) or not isinstance(mean, (int, float)) or not math.isfinite(mean):
        return None
    spread = spread if isinstance(spread, Mapping) else {}
    mean = float(mean)
    return {
        "mean": mean,
        "std": float(spread.get("std") or 0.0),
        "min": float(spread["min"]) if spread.get("min") is not None else mean,
        "max": float(spread["max"]) if spread.get("max") is not None else mean,
    }


_NAMES = {
    "throughput": "throughput",
    "goodput": "goodput",
    "send_rate": "send rate",
    "rtt": "RTT",
    "queuing_delay": "queuing delay",
    "one_way_delay": "one-way delay",
    "jitter": "jitter",
    "loss_ratio": "loss ratio",
    "jain_index": "Jain index",
    "weighted_jain_index": "priority-weighted Jain index",
    "utilization": "utilization",
    "share": "share",
}


def metric_label(path: str) -> str:
    """A readable axis label with the unit: ``flows.gcc.rtt_ms.mean`` -> ``gcc RTT mean
    (ms)``, ``flows.video.throughput_mbps`` -> ``video throughput (Mbit/s)``,
    ``aggregate.jain_index`` -> ``Jain index``, ``links.hop2.utilization`` -> ``hop2
    utilization``."""
    parts = path.split(".")
    owner = ""
    if parts[0] in ("flows", "links") and len(parts) >= 3:
        owner, parts = parts[1] + " ", parts[2:]
    elif parts[0] in ("aggregate", "derived") and len(parts) >= 2:
        parts = parts[1:]
    field, rest = parts[0], parts[1:]
    unit = ""
    for suffix, name in (("_mbps", "Mbit/s"), ("_ms", "ms"), ("_s", "s"), ("_bytes", "bytes")):
        if field.endswith(suffix):
            field, unit = field[: -len(suffix)], name
            break
    words = " ".join([_NAMES.get(field, field.replace("_", " ")), *rest])
    return f"{owner}{words}" + (f" ({unit})" if unit else "")
