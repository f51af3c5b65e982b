"""Figures of a sweep (optional: only when matplotlib is importable).

- ``OUT/plots/<metric>.png``: the metric's mean over seeds against the first axis, one
  line per combination of the other axes, with the min-max band over seeds.
- ``OUT/plots/heatmap-<objective>.png``: with exactly two numeric axes and an
  objective, its mean over the grid (paper 002 Fig. 8 style).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Optional, Sequence

from flowstate.output_files import SWEEP_PLOTS_DIR
from flowstate.sweep.spec import format_value
from flowstate.sweep.run import SweepResult

# More lines than this: no legend (it would cover the plot).
MAX_LEGEND = 10
# A numeric axis whose largest / smallest value is at least this is drawn in log scale.
LOG_RATIO = 100.0


def _numeric(values: Sequence[Any]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _log_axis(axis: Any) -> bool:
    vs = axis.values
    if axis.log:
        return True
    return _numeric(vs) and min(vs) > 0 and max(vs) / min(vs) >= LOG_RATIO


def _file_name(metric: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", metric)


def write_plots(result: SweepResult) -> list[Path]:
    """The PNG files written (none without matplotlib or without axes)."""
    spec = result.spec
    if not spec.axes:
        return []
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    folder = result.out / SWEEP_PLOTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    first, others = spec.axes[0], spec.axes[1:]
    numeric_x = _numeric(first.values)
    xpos = {v: (v if numeric_x else i) for i, v in enumerate(first.values)}
    groups: dict[tuple[Any, ...], list[Any]] = {}
    for entry in result.per_point:
        point = entry[0]
        groups.setdefault(tuple(point.values[a.name] for a in others), []).append(entry)
    files = []
    for metric in spec.metrics:
        fig, ax = plt.subplots(figsize=(6.4, 4.0))
        for combo, entries in groups.items():
            xs, mean, lo, hi = [], [], [], []
            for point, _runs, st in entries:
                s = st[metric]
                if s["mean"] is None:
                    continue
                xs.append(xpos[point.values[first.name]])
                mean.append(s["mean"])
                lo.append(s["min"])
                hi.append(s["max"])
            if not xs:
                continue
            label = ", ".join(f"{a.label} = {format_value(v)}" for a, v in zip(others, combo)) or None
            (line,) = ax.plot(xs, mean, marker="o", label=label)
            if len(spec.seeds) > 1:
                ax.fill_between(xs, lo, hi, alpha=0.15, color=line.get_color())
        if _log_axis(first):
            ax.set_xscale("log")
        if not numeric_x:
            ax.set_xticks(range(len(first.values)), [format_value(v) for v in first.values])
        ax.set_xlabel(first.label)
        ax.set_ylabel(metric)
        seeds = f"{len(spec.seeds)} seed{'s' if len(spec.seeds) > 1 else ''}"
        ax.set_title(f"{spec.name}: {metric} (mean over {seeds})", fontsize=9)
        if others and 1 < len(groups) <= MAX_LEGEND:
            ax.legend(fontsize=7)
        ax.grid(True, alpha=0.3)
        fig.tight_layout()
        path = folder / f"{_file_name(metric)}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        files.append(path)
    heat = _heatmap(result, plt, folder)
    if heat is not None:
        files.append(heat)
    return files


def _edges(axis: Any) -> list[float]:
    """Cell edges around sorted-or-not axis values: midpoints (geometric on a log axis),
    the outer edges mirrored."""
    vs = [float(v) for v in axis.values]
    if len(vs) == 1:
        return [vs[0] * 0.5, vs[0] * 1.5] if _log_axis(axis) else [vs[0] - 0.5, vs[0] + 0.5]
    log = _log_axis(axis)
    mids = [math.sqrt(a * b) if log else (a + b) / 2 for a, b in zip(vs, vs[1:])]
    first = vs[0] ** 2 / mids[0] if log else 2 * vs[0] - mids[0]
    last = vs[-1] ** 2 / mids[-1] if log else 2 * vs[-1] - mids[-1]
    return [first, *mids, last]


def _heatmap(result: SweepResult, plt: Any, folder: Path) -> Optional[Path]:
    spec = result.spec
    if spec.objective is None or len(spec.axes) != 2 or not all(_numeric(a.values) for a in spec.axes):
        return None
    ax_x, ax_y = spec.axes
    grid = [[float("nan")] * len(ax_x.values) for _ in ax_y.values]
    ix = {v: i for i, v in enumerate(ax_x.values)}
    iy = {v: i for i, v in enumerate(ax_y.values)}
    for point, _runs, st in result.per_point:
        mean = st[spec.objective]["mean"]
        if mean is not None:
            grid[iy[point.values[ax_y.name]]][ix[point.values[ax_x.name]]] = mean
    fig, ax = plt.subplots(figsize=(5.6, 4.6))
    image = ax.pcolormesh(_edges(ax_x), _edges(ax_y), grid, shading="flat")
    fig.colorbar(image, ax=ax, label=spec.objective)
    if _log_axis(ax_x):
        ax.set_xscale("log")
    if _log_axis(ax_y):
        ax.set_yscale("log")
    ax.set_xlabel(ax_x.label)
    ax.set_ylabel(ax_y.label)
    ax.set_title(f"{spec.name}: {spec.objective}", fontsize=9)
    fig.tight_layout()
    path = folder / f"heatmap-{_file_name(spec.objective)}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
