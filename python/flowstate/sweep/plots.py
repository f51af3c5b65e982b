"""Figures of a sweep (optional: only when matplotlib is importable).

- ``OUT/plots/<metric>.png``: the metric's mean over seeds against the first axis, one
  line per combination of the other axes, with the min-max band over seeds; against a
  categorical first axis (strings such as the mechanism, booleans, tables), grouped
  bars (a group per value, a bar per combination of the other axes) with min-max
  whiskers. The y axis is the metric's name and unit (``video throughput (Mbit/s)``),
  the x axis the axis's label (default: its name).
- ``OUT/plots/heatmap-<objective>.png``: with exactly two numeric axes and an
  objective, its mean over the grid (paper 002 Fig. 8 style).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Optional, Sequence

from flowstate.metric_paths import metric_label
from flowstate.output_files import SWEEP_PLOTS_DIR
from flowstate.sweep.spec import format_value, is_numeric
from flowstate.sweep.run import SweepResult

# More lines than this: no legend (it would cover the plot).
MAX_LEGEND = 10
# A numeric axis whose largest / smallest value is at least this is drawn in log scale.
LOG_RATIO = 100.0
# Width of a group of bars (a categorical value), in units of the distance between groups.
GROUP_WIDTH = 0.8


def _numeric(values: Sequence[Any]) -> bool:
    return is_numeric(values)


def _log_axis(axis: Any) -> bool:
    vs = axis.values
    if axis.log:
        return True
    return _numeric(vs) and min(vs) > 0 and max(vs) / min(vs) >= LOG_RATIO


def _file_name(metric: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", metric)


def _pyplot() -> Any:
    """matplotlib.pyplot on the Agg canvas, or None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def metric_figure(result: SweepResult, metric: str, plt: Any) -> Any:
    """The figure of one metric (see the module's docstring); the caller closes it."""
    spec = result.spec
    varied, fixed = varied_axes(spec.axes)
    first, others = varied[0], varied[1:]
    numeric_x = first.numeric
    xpos = {repr(v): (v if numeric_x else i) for i, v in enumerate(first.values)}
    groups: dict[str, tuple[tuple[Any, ...], list[Any]]] = {}
    for entry in result.per_point:
        combo = tuple(entry[0].values[a.name] for a in others)
        groups.setdefault(repr(combo), (combo, []))[1].append(entry)
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    if numeric_x:
        _lines(ax, list(groups.values()), metric, first, others, xpos, len(spec.seeds) > 1)
    else:
        _bars(ax, list(groups.values()), metric, first, others, len(spec.seeds) > 1)
    if _log_axis(first):
        ax.set_xscale("log")
    if not numeric_x:
        ax.set_xticks(range(len(first.values)), [format_value(v) for v in first.values])
    ax.set_xlabel(first.label)
    ax.set_ylabel(metric_label(metric))
    seeds = f"{len(spec.seeds)} seed{'s' if len(spec.seeds) > 1 else ''}"
    held = "".join(f", {a.label} = {format_value(a.values[0])}" for a in fixed)
    ax.set_title(f"{spec.name}: {metric_label(metric)} (mean over {seeds}{held})", fontsize=9)
    if others and 1 < len(groups) <= MAX_LEGEND:
        # Beside the axes, never over the data or the title.
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


def varied_axes(axes: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """The axes with several values (the figure's x axis is the first of them, the others
    its series) and those with one (held fixed: named in the title). With no axis of
    several values, the first axis is the x axis."""
    varied = [a for a in axes if len(a.values) > 1]
    fixed = [a for a in axes if len(a.values) <= 1]
    if not varied:
        varied, fixed = [axes[0]], list(axes[1:])
    return varied, fixed


def write_plots(result: SweepResult) -> list[Path]:
    """The PNG files written (none without matplotlib or without axes)."""
    spec = result.spec
    if not spec.axes:
        return []
    plt = _pyplot()
    if plt is None:
        return []
    folder = result.out / SWEEP_PLOTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for metric in spec.metrics:
        fig = metric_figure(result, metric, plt)
        path = folder / f"{_file_name(metric)}.png"
        fig.savefig(path, dpi=110, bbox_inches="tight")
        plt.close(fig)
        files.append(path)
    heat = _heatmap(result, plt, folder)
    if heat is not None:
        files.append(heat)
    return files


def _legend_label(others: Sequence[Any], combo: tuple[Any, ...]) -> Optional[str]:
    return ", ".join(f"{a.label} = {format_value(v)}" for a, v in zip(others, combo)) or None


Groups = Sequence[tuple[tuple[Any, ...], Sequence[Any]]]  # (other axes' values, per-point entries)


def _lines(
    ax: Any, groups: Groups, metric: str, first: Any, others: Sequence[Any], xpos: dict[str, Any], band: bool
) -> None:
    """One line per combination of the other axes: the mean at each value of a numeric
    first axis, the min-max band over seeds (``band``)."""
    for combo, entries in groups:
        xs, mean, lo, hi = [], [], [], []
        for point, _runs, st in entries:
            s = st[metric]
            if s["mean"] is None:
                continue
            xs.append(xpos[repr(point.values[first.name])])
            mean.append(s["mean"])
            lo.append(s["min"])
            hi.append(s["max"])
        if not xs:
            continue
        (line,) = ax.plot(xs, mean, marker="o", label=_legend_label(others, combo))
        if band:
            ax.fill_between(xs, lo, hi, alpha=0.15, color=line.get_color())


def _bars(ax: Any, groups: Groups, metric: str, first: Any, others: Sequence[Any], whiskers: bool) -> None:
    """Grouped bars for a categorical first axis: a group per value (in axis order), in
    it a bar per combination of the other axes, the mean with min-max whiskers over
    seeds (``whiskers``)."""
    index = {repr(v): i for i, v in enumerate(first.values)}
    width = GROUP_WIDTH / max(len(groups), 1)
    for k, (combo, entries) in enumerate(groups):
        xs, mean, err_lo, err_hi = [], [], [], []
        for point, _runs, st in entries:
            s = st[metric]
            if s["mean"] is None:
                continue
            xs.append(index[repr(point.values[first.name])] - GROUP_WIDTH / 2 + width * (k + 0.5))
            mean.append(s["mean"])
            # max(0, ...): a mean of equal values can round past min or max.
            err_lo.append(max(0.0, s["mean"] - s["min"]))
            err_hi.append(max(0.0, s["max"] - s["mean"]))
        if not xs:
            continue
        ax.bar(
            xs, mean, width=width * 0.9, label=_legend_label(others, combo),
            yerr=[err_lo, err_hi] if whiskers else None, capsize=3 if whiskers else 0,
        )


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
    varied, _fixed = varied_axes(spec.axes)
    if spec.objective is None or len(varied) != 2 or not all(_numeric(a.values) for a in varied):
        return None
    ax_x, ax_y = varied
    grid = [[float("nan")] * len(ax_x.values) for _ in ax_y.values]
    ix = {v: i for i, v in enumerate(ax_x.values)}
    iy = {v: i for i, v in enumerate(ax_y.values)}
    for point, _runs, st in result.per_point:
        mean = st[spec.objective]["mean"]
        if mean is not None:
            grid[iy[point.values[ax_y.name]]][ix[point.values[ax_x.name]]] = mean
    fig, ax = plt.subplots(figsize=(5.6, 4.6))
    image = ax.pcolormesh(_edges(ax_x), _edges(ax_y), grid, shading="flat")
    fig.colorbar(image, ax=ax, label=metric_label(spec.objective))
    if _log_axis(ax_x):
        ax.set_xscale("log")
    if _log_axis(ax_y):
        ax.set_yscale("log")
    ax.set_xlabel(ax_x.label)
    ax.set_ylabel(ax_y.label)
    ax.set_title(f"{spec.name}: {metric_label(spec.objective)}", fontsize=9)
    fig.tight_layout()
    path = folder / f"heatmap-{_file_name(spec.objective)}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
