"""The figure kinds of the experiment catalogue (docs/CATALOGUE.md, "Figure kinds").

One function per kind, each returning a matplotlib ``Figure`` (drawn with the Agg
canvas, no pyplot, no global state); :func:`save` writes it as a PNG whose bytes
depend only on the inputs (no date or software version in the file)::

    from flowstate.report import figures

    panels = [figures.Panel("none", "uncoupled", frame, window=(10.0, 50.0))]
    figures.save(figures.rate(panels), Path("out/x/figures/1-rate.png"))

Time-series kinds (``rate``, ``rtt``, ``queue``, ``rtt_box``, ``frames``) take :class:`Panel` s: one
point's ``timeseries.csv`` as a pandas DataFrame. ``sweep`` and ``bar`` take the points
of results.json (dicts with ``name``, ``label``, ``variant``, ``grid``, ``summary``,
``derived``), read through :func:`metric_stats`.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Optional, Sequence

from flowstate.errors import FlowstateError
from flowstate import metric_paths

if TYPE_CHECKING:  # pragma: no cover
    import pandas
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

# Sizes in inches at DPI pixels per inch: a 1000 px wide image reads well in a browser.
DPI = 100
WIDTH_IN = 10.0
PANEL_HEIGHT_IN = 2.1
# The header above a figure's axes, one row under the other (never overlapping): the
# title (wrapped to the width), a note saying what the lines, bands or boxes are, the
# legend (as many rows as its entries need).
HEADER_PAD_IN = 0.08
TITLE_ROW_IN = 0.3
NOTE_ROW_IN = 0.24
LEGEND_ROW_IN = 0.27
MAX_LEGEND_COLUMNS = 6
# About how many characters fit an inch: the bold 12-point title, a 9-point legend entry.
TITLE_CHARS_PER_IN = 9.0
LEGEND_CHARS_PER_IN = 12.0
LEGEND_ENTRY_EXTRA_CHARS = 7  # the line sample and the gap before the next entry
BAR_PANEL_WIDTH_IN = 4.6
BAR_HEIGHT_IN = 3.8
BAR_TITLE = "Ours against the paper"
BAR_NOTE = "bar: mean over the runs, whiskers: min-max"
BAR_PAPER_NOTE = "; red line: the paper's value"
SWEEP_HEIGHT_IN = 4.2
MAX_BAR_COLUMNS = 2
MAX_SWEEP_TICKS = 12  # up to this many grid values, one x tick per value
SWEEP_GROUP_WIDTH = 0.8  # bars of one categorical grid value, in units of the distance between values
# rtt_box whiskers: this percentile range of the per-bin RTTs (outliers not drawn).
BOX_WHISKERS = (5.0, 95.0)
BOX_HEIGHT_IN = 3.8
BOX_TITLE = "RTT per bin in the measurement window"
BOX_NOTE = (f"all runs; box: quartiles, line: median, dot: mean, whiskers: {BOX_WHISKERS[0]:g}th-"
            f"{BOX_WHISKERS[1]:g}th percentile")
WINDOW_COLOUR = "#e8eef7"
CAPACITY_COLOUR = "#222222"
PAPER_COLOUR = "#d62728"
# Colour-blind friendly (Okabe-Ito), in flow/variant order.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
# Style applied to every figure (rcParams), so a user's matplotlibrc cannot change output.
STYLE: dict[str, Any] = {
    "font.family": "DejaVu Sans",
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "legend.fontsize": 9,
    "axes.grid": True,
    "grid.color": "#d0d0d0",
    "grid.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 1.4,
}

KINDS = ("rate", "rtt", "queue", "rtt_box", "frames", "sweep", "bar")


class FigureError(FlowstateError):
    """A figure that cannot be drawn from the data given (unknown metric, axis, flow)."""


@dataclass(frozen=True)
class Panel:
    """One point's time series: ``frame`` holds the rows of its timeseries.csv (columns
    ``run``, ``time_s``, ``flow``, ``throughput_mbps``, ``rtt_ms``, ``queuing_delay_ms``,
    ``capacity_mbps``, ...); ``window`` is the measurement window (s)."""

    name: str
    label: str
    frame: "pandas.DataFrame"
    window: Optional[tuple[float, float]] = None


# ---------------------------------------------------------------- metric paths


def check_metric_path(path: Any) -> str:
    """``path`` if it has the shape of a metric path, else FigureError."""
    parts = path.split(".") if isinstance(path, str) else []
    if not (
        (parts[:1] == ["derived"] and len(parts) == 2)
        or (parts[:1] == ["aggregate"] and len(parts) >= 2)
        or (parts[:1] == ["flows"] and len(parts) >= 3)
    ) or not all(parts):
        raise FigureError(f"bad metric path {path!r} (aggregate.<field>, flows.<flow>.<field> or derived.<name>)")
    return str(path)


def metric_stats(point: Mapping[str, Any], path: str) -> Optional[dict[str, float]]:
    """``{"mean", "std", "min", "max"}`` of metric ``path`` (docs/CATALOGUE.md, "Metric
    paths") at a results.json point; None when the point has no value for it; FigureError
    for a path of the wrong shape. A single run has std 0 and min = max = mean."""
    return metric_paths.metric_stats(point, check_metric_path(path))


def point_label(point: Mapping[str, Any]) -> str:
    """How a results.json point is shown: its label (default: its name), plus its grid
    values: ``FSEv2 [p_sctp=0.5]``."""
    label = str(point.get("label") or point["name"])
    grid = point.get("grid") or {}
    if grid:
        label += " [" + ", ".join(f"{k}={v}" for k, v in grid.items()) + "]"
    return label


# One mapping from metric path to label and unit, shared with the sweep's plots.
metric_label = metric_paths.metric_label


# ---------------------------------------------------------------- drawing helpers


def _new_figure(width: float, height: float) -> "Figure":
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _style() -> Any:
    import matplotlib

    return matplotlib.rc_context(rc=STYLE)


@dataclass(frozen=True)
class Header:
    """The header of a figure (see HEADER_PAD_IN): its title lines, its note, how the
    legend of ``labels`` is laid out."""

    title_lines: tuple[str, ...]
    note: Optional[str]
    labels: tuple[str, ...]
    legend_columns: int

    @staticmethod
    def plan(width_in: float, title: str, note: Optional[str], labels: Sequence[str]) -> "Header":
        import textwrap

        lines = tuple(textwrap.wrap(title, width=max(int(width_in * TITLE_CHARS_PER_IN), 10))) or ("",)
        longest = max((len(label) for label in labels), default=0) + LEGEND_ENTRY_EXTRA_CHARS
        fit = max(int(width_in * LEGEND_CHARS_PER_IN) // longest, 1)
        columns = max(min(len(labels), MAX_LEGEND_COLUMNS, fit), 1)
        return Header(lines, note, tuple(labels), columns)

    @property
    def legend_rows(self) -> int:
        return math.ceil(len(self.labels) / self.legend_columns) if self.labels else 0

    @property
    def height_in(self) -> float:
        return (
            HEADER_PAD_IN * 2 + TITLE_ROW_IN * len(self.title_lines) + (NOTE_ROW_IN if self.note else 0.0)
            + LEGEND_ROW_IN * self.legend_rows
        )


def _figure_with_header(width: float, body_height: float, header: Header) -> "Figure":
    """A figure ``body_height`` tall for its axes (constrained layout) under ``header``."""
    height = body_height + header.height_in
    fig = _new_figure(width, height)
    fig.get_layout_engine().set(rect=(0.0, 0.0, 1.0, 1.0 - header.height_in / height))  # type: ignore[union-attr]
    return fig


def _draw_header(fig: "Figure", header: Header, handles: Sequence[Any] = (), labels: Sequence[str] = ()) -> None:
    """Draws the title, the note and the legend of ``handles`` in the header's rows."""
    height = fig.get_figheight()
    y = HEADER_PAD_IN
    fig.text(0.01, 1.0 - y / height, "\n".join(header.title_lines), ha="left", va="top", fontsize=12,
             fontweight="bold", linespacing=1.25)
    y += TITLE_ROW_IN * len(header.title_lines)
    if header.note:
        fig.text(0.01, 1.0 - y / height, header.note, ha="left", va="top", fontsize=9, color="#444444")
        y += NOTE_ROW_IN
    if labels:
        fig.legend(list(handles), list(labels), loc="upper left", bbox_to_anchor=(0.0, 1.0 - y / height),
                   ncols=header.legend_columns, frameon=False, borderaxespad=0.0, borderpad=0.2)


def png_bytes(fig: "Figure") -> bytes:
    """``fig`` as PNG bytes; same figure, same bytes."""
    buffer = io.BytesIO()
    with _style():
        fig.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def save(fig: "Figure", path: Path) -> Path:
    """Writes ``fig`` as a PNG at ``path`` (folder created); same figure, same bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(png_bytes(fig))
    return path


def _flow_order(panels: Sequence[Panel], flows: Optional[Sequence[str]]) -> list[str]:
    """The flows to draw, in order of first appearance (or as asked)."""
    seen: list[str] = []
    for panel in panels:
        for name in panel.frame["flow"].astype(str):
            if name not in seen:
                seen.append(name)
    if flows is None:
        return seen
    unknown = [f for f in flows if f not in seen]
    if unknown:
        raise FigureError(f"flows: no flow named {unknown[0]!r} (flows: {', '.join(seen)})")
    return list(flows)


def _runs(frame: "pandas.DataFrame") -> int:
    """How many runs ``frame`` holds (its ``run`` column; 1 without)."""
    if "run" not in frame.columns or frame.empty:
        return 1
    return max(int(frame["run"].nunique()), 1)


def _over_runs(rows: "pandas.DataFrame", column: str) -> tuple[Any, Any, Any, Any]:
    """``(time, mean, min, max)`` of ``column`` per time bin over the runs in ``rows``
    (the rows of one flow; NaN bins, e.g. no RTT sample, are left out of the mean)."""
    grouped = rows.groupby("time_s", sort=True)[column]
    mean = grouped.mean()
    return mean.index.to_numpy(), mean.to_numpy(), grouped.min().to_numpy(), grouped.max().to_numpy()


def _draw_series(ax: "Axes", rows: "pandas.DataFrame", column: str, colour: str, label: str, band: bool) -> float:
    """One line: the mean over the runs, with a min-max band when there are several runs.
    Returns the largest value drawn (0 if none)."""
    if rows.empty:
        ax.plot([], [], color=colour, label=label)
        return 0.0
    t, mean, lo, hi = _over_runs(rows, column)
    if band:
        ax.fill_between(t, lo, hi, color=colour, alpha=0.2, linewidth=0)
    ax.plot(t, mean, color=colour, label=label)
    values = hi if band else mean
    finite = values[~_isnan(values)]
    return float(finite.max()) if finite.size else 0.0


def _isnan(values: Any) -> Any:
    import numpy

    return numpy.isnan(numpy.asarray(values, dtype=float))


def _runs_note(panels: Sequence[Panel]) -> Optional[str]:
    """What the lines are with several runs (None for one run: the line is the run)."""
    runs = max((_runs(p.frame) for p in panels), default=1)
    return f"mean over {runs} runs, band: min-max" if runs > 1 else None


def _shade_window(ax: "Axes", window: Optional[tuple[float, float]], label: bool) -> None:
    if window is not None:
        ax.axvspan(
            window[0], window[1], color=WINDOW_COLOUR, zorder=0, label="measurement window" if label else None
        )


def _capacity_series(frame: "pandas.DataFrame") -> Any:
    """The capacity per time bin (a pandas Series, empty without the column)."""
    import pandas

    if "capacity_mbps" not in frame.columns:
        return pandas.Series(dtype=float)
    return frame.groupby("time_s", sort=True)["capacity_mbps"].first().dropna()


def _capacity(ax: "Axes", frame: "pandas.DataFrame", colour: str = CAPACITY_COLOUR, label: str = "capacity") -> float:
    cap = _capacity_series(frame)
    if cap.empty:
        return 0.0
    ax.step(cap.index, cap.values, where="post", color=colour, linestyle="--", linewidth=1.1, label=label)
    return float(cap.max())


def _same_capacity(panels: Sequence[Panel]) -> bool:
    """Whether the points of an overlay share one capacity over time (one dashed line)."""
    series = [_capacity_series(p.frame) for p in panels]
    return all(s.equals(series[0]) for s in series[1:])


def _time_panels(
    panels: Sequence[Panel],
    column: str,
    ylabel: str,
    title: str,
    flows: Optional[Sequence[str]],
    capacity: bool = False,
) -> "Figure":
    """One panel per point, one line per flow: the mean over the point's runs per time
    bin, with a min-max band when there are several runs."""
    if not panels:
        raise FigureError("no points to draw")
    order = _flow_order(panels, flows)
    colours = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(_flow_order(panels, None))}
    with _style():
        header = Header.plan(WIDTH_IN, title, _runs_note(panels), _legend_labels(panels, order, capacity))
        fig = _figure_with_header(WIDTH_IN, PANEL_HEIGHT_IN * len(panels), header)
        axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
        ymax = 0.0
        for i, (ax, panel) in enumerate(zip(axes, panels)):
            frame = panel.frame
            band = _runs(frame) > 1
            _shade_window(ax, panel.window, label=i == 0)
            for name in order:
                rows = frame[frame["flow"].astype(str) == name]
                ymax = max(ymax, _draw_series(ax, rows, column, colours[name], name, band))
            if capacity:
                ymax = max(ymax, _capacity(ax, frame))
            ax.set_title(panel.label if panel.label == panel.name else f"{panel.label} ({panel.name})", loc="left")
            ax.set_ylabel(ylabel)
            ax.set_ylim(bottom=0)
        _finish_time_axes(fig, axes, ymax, header)
    return fig


def _legend_labels(panels: Sequence[Panel], lines: Sequence[str], capacity: bool) -> list[str]:
    """The legend a time-series figure can have: the window, its lines, the capacity."""
    window = ["measurement window"] if any(p.window is not None for p in panels) else []
    return window + list(lines) + (["capacity"] if capacity else [])


def _finish_time_axes(fig: "Figure", axes: Any, ymax: float, header: Header) -> None:
    if ymax > 0:
        for ax in axes:
            ax.set_ylim(0, ymax * 1.08)
    axes[-1].set_xlabel("time (s)")
    axes[0].set_xlim(left=0)
    handles, labels = axes[0].get_legend_handles_labels()
    _draw_header(fig, header, handles, labels)


def _overlay_panels(
    panels: Sequence[Panel],
    column: str,
    ylabel: str,
    title: str,
    flows: Optional[Sequence[str]],
    capacity: bool = False,
) -> "Figure":
    """One panel per flow, one line per point (``flowstate compare``): each point's mean
    over its runs, with a min-max band when it has several runs."""
    if not panels:
        raise FigureError("no points to draw")
    order = _flow_order(panels, flows)
    with _style():
        # Points of different capacities: a dashed capacity line per point, in its colour.
        shared = _same_capacity(panels) if capacity else True
        labels = _legend_labels(panels, [p.label for p in panels], capacity and shared)
        if not shared:
            labels += [f"capacity: {p.label}" for p in panels]
        header = Header.plan(WIDTH_IN, title, _runs_note(panels), labels)
        fig = _figure_with_header(WIDTH_IN, PANEL_HEIGHT_IN * max(len(order), 1), header)
        axes = fig.subplots(max(len(order), 1), 1, sharex=True, squeeze=False)[:, 0]
        ymax = 0.0
        for i, (ax, name) in enumerate(zip(axes, order)):
            window = next((p.window for p in panels if p.window is not None), None)
            _shade_window(ax, window, label=i == 0)
            for j, panel in enumerate(panels):
                frame = panel.frame
                rows = frame[frame["flow"].astype(str) == name]
                ymax = max(ymax, _draw_series(ax, rows, column, PALETTE[j % len(PALETTE)], panel.label, _runs(frame) > 1))
            if capacity and shared:
                ymax = max(ymax, _capacity(ax, panels[0].frame))
            elif capacity:
                for j, panel in enumerate(panels):
                    colour = PALETTE[j % len(PALETTE)]
                    ymax = max(ymax, _capacity(ax, panel.frame, colour, f"capacity: {panel.label}"))
            ax.set_title(f"flow {name}", loc="left")
            ax.set_ylabel(ylabel)
            ax.set_ylim(bottom=0)
        _finish_time_axes(fig, axes, ymax, header)
    return fig


# ---------------------------------------------------------------- the kinds


def _series_kind(
    panels: Sequence[Panel], column: str, ylabel: str, title: str, flows: Optional[Sequence[str]],
    overlay: bool, capacity: bool = False,
) -> "Figure":
    draw = _overlay_panels if overlay else _time_panels
    return draw(panels, column, ylabel, title, flows, capacity=capacity)


def _default_title(title: Optional[str], default: str, panels: Sequence[Panel]) -> str:
    """The title given, else the default (how many runs the lines are the mean of is in
    the header's note)."""
    return title or default


def rate(
    panels: Sequence[Panel], *, flows: Optional[Sequence[str]] = None, title: Optional[str] = None,
    overlay: bool = False,
) -> "Figure":
    """Throughput per flow over time (the mean over the runs, band: min-max), one panel
    per point, with the link capacity (dashed) and the measurement window (shaded);
    ``overlay``: one panel per flow, one line per point."""
    return _series_kind(
        panels, "throughput_mbps", "throughput (Mbit/s)", _default_title(title, "Throughput per flow", panels), flows, overlay,
        capacity=True,
    )


def rtt(
    panels: Sequence[Panel], *, flows: Optional[Sequence[str]] = None, title: Optional[str] = None,
    overlay: bool = False,
) -> "Figure":
    """RTT per flow over time (mean over the runs, band: min-max), one panel per point
    (``overlay``: per flow)."""
    return _series_kind(panels, "rtt_ms", "RTT (ms)", _default_title(title, "RTT per flow", panels), flows, overlay)


def queue(
    panels: Sequence[Panel], *, flows: Optional[Sequence[str]] = None, title: Optional[str] = None,
    overlay: bool = False,
) -> "Figure":
    """Queuing delay at the bottleneck as seen by each flow over time (mean over the
    runs, band: min-max), one panel per point (``overlay``: per flow)."""
    return _series_kind(panels, "queuing_delay_ms", "queuing delay (ms)", _default_title(title, "Queuing delay per flow", panels), flows, overlay)


# ``frames``: the receiver's view of each video flow (timeseries.csv columns ``fps``,
# ``frame_delay_ms`` and ``freezes``: the freezes, by the W3C webrtc-stats rule, that
# ended in the bin).
FRAMES_TITLE = "Frames rendered per second and frame delay per video flow"
FREEZE_COLOUR = "#d62728"
FREEZE_LABEL = "freeze (ended in the bin)"
FRAME_COLUMNS = ("fps", "frame_delay_ms", "freezes")


def video_flows(frame: "pandas.DataFrame") -> list[str]:
    """The flows of a timeseries.csv with frame figures (a video flow: some ``fps`` value),
    in order of first appearance; none when the file has no ``fps`` column."""
    if "fps" not in frame.columns:
        return []
    rows = frame[frame["fps"].notna()]
    return list(dict.fromkeys(rows["flow"].astype(str)))


def _freeze_times(rows: "pandas.DataFrame") -> tuple[Any, Any]:
    """``(time, freezes)`` of the bins where a freeze ended in any run (the sum over the
    runs)."""
    if "freezes" not in rows.columns or rows.empty:
        return [], []
    per_bin = rows.groupby("time_s", sort=True)["freezes"].sum()
    per_bin = per_bin[per_bin > 0]
    return per_bin.index.to_numpy(), per_bin.to_numpy()


def _mark_freezes(ax: "Axes", rows: "pandas.DataFrame", colour: str, label: bool) -> int:
    """Draws a tick at the foot of ``ax`` for every bin in which a freeze ended; returns
    how many freezes were drawn."""
    t, n = _freeze_times(rows)
    if len(t):
        ax.plot(t, [0.0] * len(t), linestyle="", marker="|", markersize=14, markeredgewidth=2.2, color=colour,
                clip_on=False, zorder=5, label=FREEZE_LABEL if label else None)
    return int(sum(n))


def frames(
    panels: Sequence[Panel], *, flows: Optional[Sequence[str]] = None, title: Optional[str] = None,
    overlay: bool = False,
) -> "Figure":
    """Per video flow: frames rendered per second (top) and the mean frame delay from
    capture to render (bottom) over time (mean over the runs, band: min-max), with a red
    tick at the foot of the frame-rate axis for each bin in which a freeze ended. One
    pair of axes per point, a line per video flow; ``overlay``: one pair per video flow,
    a line per point (ticks in the point's colour)."""
    if not panels:
        raise FigureError("no points to draw")
    for panel in panels:
        missing = [c for c in FRAME_COLUMNS if c not in panel.frame.columns]
        if missing:
            raise FigureError(f"point {panel.name!r}: its timeseries.csv has no {missing[0]!r} column "
                              "(no video flow, or written before frame metrics existed)")
    videos: list[str] = []
    for panel in panels:
        videos += [v for v in video_flows(panel.frame) if v not in videos]
    if flows is not None:
        unknown = [f for f in flows if f not in videos]
        if unknown:
            raise FigureError(f"flows: no video flow named {unknown[0]!r} (video flows: {', '.join(videos) or 'none'})")
        videos = list(flows)
    if not videos:
        raise FigureError("no video flow: the frames figure needs a flow with an fps series")
    groups = [(f"flow {v}", [(p, v, p.label) for p in panels]) for v in videos] if overlay else [
        (p.label if p.label == p.name else f"{p.label} ({p.name})", [(p, v, v) for v in videos]) for p in panels
    ]
    line_labels = [p.label for p in panels] if overlay else videos
    colours = {label: PALETTE[i % len(PALETTE)] for i, label in enumerate(line_labels)}
    with _style():
        labels = _legend_labels(panels, line_labels, False) + [FREEZE_LABEL]
        header = Header.plan(WIDTH_IN, title or FRAMES_TITLE, _runs_note(panels), labels)
        fig = _figure_with_header(WIDTH_IN, PANEL_HEIGHT_IN * 2 * len(groups), header)
        axes = fig.subplots(2 * len(groups), 1, sharex=True, squeeze=False)[:, 0]
        fps_max, delay_max = 0.0, 0.0
        freeze_label = True
        for g, (group_title, lines) in enumerate(groups):
            ax_fps, ax_delay = axes[2 * g], axes[2 * g + 1]
            window = next((p.window for p, _, _ in lines if p.window is not None), None)
            _shade_window(ax_fps, window, label=g == 0)
            _shade_window(ax_delay, window, label=False)
            for panel, video, line in lines:
                rows = panel.frame[panel.frame["flow"].astype(str) == video]
                band = _runs(panel.frame) > 1
                fps_max = max(fps_max, _draw_series(ax_fps, rows, "fps", colours[line], line, band))
                delay_max = max(delay_max, _draw_series(ax_delay, rows, "frame_delay_ms", colours[line], "_", band))
                colour = FREEZE_COLOUR if not overlay else colours[line]
                if _mark_freezes(ax_fps, rows, colour, freeze_label):
                    freeze_label = False
            if freeze_label and g == len(groups) - 1:
                ax_fps.plot([], [], linestyle="", marker="|", markersize=14, markeredgewidth=2.2, color=FREEZE_COLOUR,
                            label=FREEZE_LABEL)
            ax_fps.set_title(group_title, loc="left")
            ax_fps.set_ylabel("frames/s")
            ax_delay.set_ylabel("frame delay (ms)")
        for ax in axes[0::2]:
            ax.set_ylim(0, max(fps_max, 1.0) * 1.08)
        for ax in axes[1::2]:
            ax.set_ylim(0, max(delay_max, 1.0) * 1.08)
        axes[-1].set_xlabel("time (s)")
        axes[0].set_xlim(left=0)
        handles, names = [], []
        for ax in axes:
            for handle, name in zip(*ax.get_legend_handles_labels()):
                if name not in names and not name.startswith("_"):
                    handles.append(handle)
                    names.append(name)
        _draw_header(fig, header, handles, names)
    return fig


def _in_window(frame: "pandas.DataFrame", window: Optional[tuple[float, float]]) -> "pandas.DataFrame":
    if window is None:
        return frame
    return frame[(frame["time_s"] >= window[0]) & (frame["time_s"] < window[1])]


def rtt_box(
    panels: Sequence[Panel], *, flows: Optional[Sequence[str]] = None, title: Optional[str] = None
) -> "Figure":
    """Box plot of the per-bin RTT in the measurement window, all runs: one box per
    point and flow (whiskers: 5th-95th percentile, median line, mean as a dot)."""
    if not panels:
        raise FigureError("no points to draw")
    order = _flow_order(panels, flows)
    colours = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(_flow_order(panels, None))}
    width = 0.8 / max(len(order), 1)
    with _style():
        fig_width = max(WIDTH_IN * 0.75, 1.6 * len(panels) + 2.5)
        header = Header.plan(fig_width, title or BOX_TITLE, BOX_NOTE, order)
        fig = _figure_with_header(fig_width, BOX_HEIGHT_IN, header)
        ax = fig.subplots()
        for j, name in enumerate(order):
            data, positions = [], []
            for i, panel in enumerate(panels):
                rows = _in_window(panel.frame, panel.window)
                values = rows.loc[rows["flow"].astype(str) == name, "rtt_ms"].dropna().to_numpy()
                data.append(values if len(values) else [math.nan])
                positions.append(i + (j - (len(order) - 1) / 2) * width)
            box = ax.boxplot(
                data,
                positions=positions,
                widths=width * 0.85,
                whis=BOX_WHISKERS,
                showfliers=False,
                showmeans=True,
                patch_artist=True,
                manage_ticks=False,
                meanprops={"marker": "o", "markerfacecolor": "white", "markeredgecolor": "black", "markersize": 4},
                medianprops={"color": "black"},
            )
            for patch in box["boxes"]:
                patch.set_facecolor(colours[name])
                patch.set_alpha(0.75)
            ax.plot([], [], marker="s", linestyle="", color=colours[name], label=name, markersize=9)
        ax.set_xticks(range(len(panels)), [p.label for p in panels],
                      rotation=20 if len(panels) > 5 else 0, ha="right" if len(panels) > 5 else "center")
        ax.set_xlim(-0.6, len(panels) - 0.4)
        ax.set_ylabel("RTT per bin (ms)")
        ax.set_xlabel("point")
        ax.grid(axis="x", visible=False)
        handles, labels = ax.get_legend_handles_labels()
        _draw_header(fig, header, handles, labels)
    return fig


def _axis_values(points: Sequence[Mapping[str, Any]], axis: str) -> tuple[list[Any], bool]:
    values: list[Any] = []
    for point in points:
        value = (point.get("grid") or {}).get(axis)
        if value not in values:
            values.append(value)
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    return values, numeric


def sweep(
    points: Sequence[Mapping[str, Any]],
    *,
    x: str,
    y: str,
    axes: Sequence[Mapping[str, Any]] = (),
    paper: Sequence[Mapping[str, Any]] = (),
    title: Optional[str] = None,
) -> "Figure":
    """Metric ``y`` against grid axis ``x``: one line per variant (and value of the other
    axes), the mean with a min-max band over the runs; the paper's values (``paper``:
    comparison rows) as crosses. Against a categorical axis (strings, booleans), grouped
    bars instead: a group per value, a bar per variant with min-max whiskers."""
    axis = next((a for a in axes if a.get("name") == x), {"name": x})
    if not any(x in (p.get("grid") or {}) for p in points):
        raise FigureError(f"x: no grid axis named {x!r}")
    values, numeric = _axis_values(points, x)
    if numeric:
        values = sorted(values)
    position = {repr(v): (float(v) if numeric else float(i)) for i, v in enumerate(values)}
    lines: dict[str, list[tuple[float, dict[str, float], str]]] = {}
    for point in points:
        grid = point.get("grid") or {}
        if x not in grid:
            continue
        others = ", ".join(f"{k}={v}" for k, v in grid.items() if k != x)
        key = str(point.get("label") or point.get("variant") or point["name"]) + (f" ({others})" if others else "")
        stats = metric_stats(point, y)
        if stats is not None:
            lines.setdefault(key, []).append((position[repr(grid[x])], stats, str(point["name"])))
    paper_at = {str(r["point"]): float(r["paper"]) for r in paper if r.get("metric") == y and r.get("paper") is not None}
    any_paper = any(name in paper_at for rows in lines.values() for _, _, name in rows)
    with _style():
        header = Header.plan(
            WIDTH_IN * 0.8, title or f"{metric_label(y)} against {axis.get('label') or x}",
            f"mean over the runs, {'band' if numeric else 'whiskers'}: min-max",
            list(lines) + (["paper"] if any_paper else []),
        )
        fig = _figure_with_header(WIDTH_IN * 0.8, SWEEP_HEIGHT_IN, header)
        ax = fig.subplots()
        paper_drawn = False
        width = SWEEP_GROUP_WIDTH / max(len(lines), 1)
        for i, (key, rows) in enumerate(lines.items()):
            rows.sort(key=lambda r: r[0])
            colour = PALETTE[i % len(PALETTE)]
            if not numeric:  # a bar per variant in each value's group
                rows = [(px - SWEEP_GROUP_WIDTH / 2 + width * (i + 0.5), st, name) for px, st, name in rows]
                means = [r[1]["mean"] for r in rows]
                # max(0, ...): a mean of equal values can round past min or max.
                whiskers = [[max(0.0, r[1]["mean"] - r[1]["min"]) for r in rows],
                            [max(0.0, r[1]["max"] - r[1]["mean"]) for r in rows]]
                ax.bar([r[0] for r in rows], means, width=width * 0.9, color=colour, alpha=0.85, label=key,
                       yerr=whiskers, ecolor="black", capsize=3)
            else:
                xs = [r[0] for r in rows]
                ax.fill_between(xs, [r[1]["min"] for r in rows], [r[1]["max"] for r in rows], color=colour,
                                alpha=0.18, linewidth=0)
                ax.plot(xs, [r[1]["mean"] for r in rows], marker="o", color=colour, label=key)
            for px, _, name in rows:
                if name in paper_at:
                    ax.plot([px], [paper_at[name]], marker="x", markersize=9, markeredgewidth=2, color=colour,
                            linestyle="", label=None if paper_drawn else "paper")
                    paper_drawn = True
        if not numeric:
            ax.set_xticks(range(len(values)), [str(v) for v in values])
        elif len(values) <= MAX_SWEEP_TICKS:
            ax.set_xticks([float(v) for v in values], [f"{v:g}" for v in values])
        ax.set_xlabel(str(axis.get("label") or x))
        ax.set_ylabel(metric_label(y))
        handles, labels = ax.get_legend_handles_labels()
        _draw_header(fig, header, handles, labels)
    return fig


def bar(
    points: Sequence[Mapping[str, Any]],
    *,
    metrics: Sequence[str],
    paper: Sequence[Mapping[str, Any]] = (),
    title: Optional[str] = None,
) -> "Figure":
    """One panel per metric: a bar per point (the mean over the runs) with min-max
    whiskers and the paper's value (``paper``: comparison rows) as a red marker."""
    if not metrics:
        raise FigureError("metrics: a bar figure needs at least one metric path")
    labels = {str(r["metric"]): str(r["label"]) for r in paper if r.get("label")}
    ncols = min(len(metrics), MAX_BAR_COLUMNS)
    nrows = math.ceil(len(metrics) / ncols)
    names = {str(p["name"]) for p in points}
    any_paper = any(r.get("metric") in metrics and str(r.get("point")) in names and r.get("paper") is not None
                    for r in paper)
    with _style():
        fig_width = min(WIDTH_IN, max(BAR_PANEL_WIDTH_IN * ncols, 0.9 * len(points) * ncols + 1.5))
        header = Header.plan(
            fig_width, title or BAR_TITLE, BAR_NOTE + (BAR_PAPER_NOTE if any_paper else ""), ["paper"] if any_paper else []
        )
        fig = _figure_with_header(fig_width, BAR_HEIGHT_IN * nrows, header)
        grid = fig.subplots(nrows, ncols, squeeze=False)
        paper_drawn = False
        for k, path in enumerate(metrics):
            ax = grid[k // ncols][k % ncols]
            paper_at = {
                str(r["point"]): float(r["paper"])
                for r in paper
                if r.get("metric") == path and r.get("paper") is not None
            }
            for i, point in enumerate(points):
                stats = metric_stats(point, path)
                colour = PALETTE[i % len(PALETTE)]
                if stats is not None:
                    ax.bar(i, stats["mean"], width=0.65, color=colour, alpha=0.85)
                    ax.errorbar(
                        i, stats["mean"],
                        # max(0, ...): a mean of equal values can round past min or max.
                        yerr=[[max(0.0, stats["mean"] - stats["min"])], [max(0.0, stats["max"] - stats["mean"])]],
                        color="black", capsize=4, linewidth=1.1,
                    )
                else:
                    ax.text(i, 0, "n/a", ha="center", va="bottom", fontsize=9)
                if str(point["name"]) in paper_at:
                    ax.plot(
                        [i - 0.38, i + 0.38], [paper_at[str(point["name"])]] * 2, color=PAPER_COLOUR, linewidth=2.4,
                        label=None if paper_drawn else "paper",
                    )
                    paper_drawn = True
            ax.set_xticks(range(len(points)), [point_label(p) for p in points],
                          rotation=20 if len(points) * ncols > 4 else 0, ha="right" if len(points) * ncols > 4 else "center")
            ax.set_ylabel(metric_label(path))
            ax.set_title(labels.get(path, metric_label(path)), loc="left")
            ax.grid(axis="x", visible=False)
        for k in range(len(metrics), nrows * ncols):
            grid[k // ncols][k % ncols].set_visible(False)
        handles, labels = [], []
        for ax in fig.axes:
            for handle, label in zip(*ax.get_legend_handles_labels()):
                if label not in labels:
                    handles.append(handle)
                    labels.append(label)
        _draw_header(fig, header, handles, labels)
    return fig


def flows_option(spec: Mapping[str, Any]) -> Optional[list[str]]:
    """The ``flows`` key of a figure spec as a list of names (None: all flows)."""
    flows = spec.get("flows")
    if flows is None:
        return None
    if isinstance(flows, str):
        return [flows]
    if isinstance(flows, Iterable) and all(isinstance(f, str) for f in flows):
        return list(flows)
    raise FigureError("flows: expected a list of flow names")
