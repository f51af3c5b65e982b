"""flowstate.report.figures: metric paths, labels, every figure kind on synthetic data, and
byte-identical PNG output."""

import io

import pandas
import pytest

from flowstate.report import figures
from flowstate.report.figures import FigureError, Panel, metric_label, metric_stats

POINT = {
    "name": "fsev2[p=0.5]",
    "variant": "fsev2",
    "label": "FSEv2",
    "grid": {"p": 0.5},
    "summary": {
        "runs": 2,
        "flows": [
            {
                "name": "gcc",
                "throughput_mbps": 0.9,
                "rtt_ms": {"mean": 120.0, "p95": 150.0},
                "spread": {"throughput_mbps": {"std": 0.1, "min": 0.8, "max": 1.0},
                           "rtt_ms": {"mean": {"std": 2.0, "min": 118.0, "max": 122.0}}},
            },
            {"name": "sctp", "throughput_mbps": 1.0, "rtt_ms": {"mean": None}, "spread": {}},
        ],
        "aggregate": {"jain_index": 0.99, "spread": {"jain_index": {"std": 0.005, "min": 0.985, "max": 0.995}}},
    },
    "derived": {"fill": {"mean": 12.0, "std": 1.0, "min": 11.0, "max": 13.0, "values": [11.0, 13.0]}},
}


def test_metric_stats_reads_flows_aggregate_and_derived_with_their_spread():
    assert metric_stats(POINT, "flows.gcc.throughput_mbps") == {"mean": 0.9, "std": 0.1, "min": 0.8, "max": 1.0}
    assert metric_stats(POINT, "flows.gcc.rtt_ms.mean") == {"mean": 120.0, "std": 2.0, "min": 118.0, "max": 122.0}
    assert metric_stats(POINT, "aggregate.jain_index")["min"] == 0.985
    assert metric_stats(POINT, "derived.fill") == {"mean": 12.0, "std": 1.0, "min": 11.0, "max": 13.0}


def test_metric_stats_without_spread_is_a_single_value_and_null_is_none():
    assert metric_stats(POINT, "flows.gcc.rtt_ms.p95") == {"mean": 150.0, "std": 0.0, "min": 150.0, "max": 150.0}
    assert metric_stats(POINT, "flows.sctp.rtt_ms.mean") is None
    assert metric_stats(POINT, "flows.nosuch.throughput_mbps") is None
    assert metric_stats(POINT, "derived.nosuch") is None
    with pytest.raises(FigureError, match="bad metric path"):
        metric_stats(POINT, "throughput")


@pytest.mark.parametrize(
    "path, label",
    [
        ("flows.gcc.throughput_mbps", "gcc throughput (Mbit/s)"),
        ("flows.sctp.rtt_ms.p95", "sctp RTT p95 (ms)"),
        ("flows.gcc.queuing_delay_ms.mean", "gcc queuing delay mean (ms)"),
        ("aggregate.jain_index", "Jain index"),
        ("aggregate.utilization", "utilization"),
        ("derived.sctp_fill_time_s", "sctp fill time (s)"),
    ],
)
def test_metric_label_names_the_unit(path, label):
    assert metric_label(path) == label


def series(capacity=2.0, rtt=100.0, runs=2):
    rows = []
    for run in range(runs):
        for i in range(40):
            t = i * 0.5
            for flow, share in (("gcc", 0.4), ("sctp", 0.6)):
                rows.append({
                    "run": run, "seed": 1 + run, "time_s": t, "flow": flow,
                    "throughput_mbps": capacity * share, "rtt_ms": rtt + i + run, "queuing_delay_ms": float(i),
                    "capacity_mbps": capacity,
                })
    return pandas.DataFrame(rows)


PANELS = [Panel("none", "uncoupled", series(), (5.0, 20.0)), Panel("fsev2", "FSEv2", series(rtt=50.0), (5.0, 20.0))]


def texts(fig):
    out = [t.get_text() for t in fig.texts]
    for ax in fig.axes:
        out += [ax.get_title(loc="left"), ax.get_xlabel(), ax.get_ylabel()]
        out += [t.get_text() for t in ax.get_xticklabels()]
        if ax.get_legend():
            out += [t.get_text() for t in ax.get_legend().get_texts()]
    for legend in fig.legends:
        out += [t.get_text() for t in legend.get_texts()]
    return out


def test_rate_has_a_panel_per_point_with_flows_capacity_and_window():
    fig = figures.rate(PANELS)
    assert len(fig.axes) == 2
    for ax in fig.axes:
        labels = [line.get_label() for line in ax.get_lines()]
        assert labels == ["gcc", "sctp", "capacity"]
        assert len(ax.patches) == 1  # the shaded measurement window
        assert ax.patches[0].get_x() == 5.0 and ax.patches[0].get_width() == 15.0
    words = texts(fig)
    assert "throughput (Mbit/s)" in words and "time (s)" in words
    assert {"gcc", "sctp", "capacity", "measurement window"} <= set(words)
    assert "FSEv2 (fsev2)" in words
    assert fig.axes[0].get_ylim()[1] >= 2.0  # the capacity is visible


def test_time_series_draw_the_mean_of_all_runs_with_a_min_max_band():
    # series(): run r has RTT 100 + i + r, so two runs give a mean of 100.5 + i and a
    # band from 100 + i to 101 + i (it drew the first run only: 100 + i).
    fig = figures.rtt(PANELS[:1])
    ax = fig.axes[0]
    gcc = ax.get_lines()[0]
    assert len(gcc.get_xdata()) == 40
    assert list(gcc.get_ydata())[:3] == [100.5, 101.5, 102.5]
    bands = ax.collections
    assert len(bands) == 2  # one band per flow
    ys = bands[0].get_paths()[0].vertices[:, 1]
    assert ys.min() == 100.0 and ys.max() == 140.0
    assert any("mean over 2 runs, band: min-max" in t for t in texts(fig))
    # One run: no band, and the title does not speak of runs.
    one = figures.rtt([Panel("a", "a", series(runs=1))])
    assert not one.axes[0].collections and not any("runs" in t for t in texts(one))


def test_overlay_has_a_panel_per_flow_and_a_line_per_point():
    fig = figures.rate(PANELS, overlay=True)
    assert [ax.get_title(loc="left") for ax in fig.axes] == ["flow gcc", "flow sctp"]
    labels = [line.get_label() for line in fig.axes[0].get_lines()]
    assert labels == ["uncoupled", "FSEv2", "capacity"]
    fig = figures.rtt(PANELS, overlay=True, flows=["sctp"])
    lines = fig.axes[0].get_lines()
    assert list(lines[0].get_ydata())[:2] == [100.5, 101.5] and list(lines[1].get_ydata())[:2] == [50.5, 51.5]


def test_rtt_and_queue_plot_their_columns_and_can_select_flows():
    fig = figures.rtt(PANELS, flows=["gcc"])
    lines = fig.axes[1].get_lines()
    assert [line.get_label() for line in lines] == ["gcc"]
    assert list(lines[0].get_ydata())[:2] == [50.5, 51.5]  # mean of the two runs
    assert "RTT (ms)" in texts(fig)
    fig = figures.queue(PANELS, title="Queue")
    assert "queuing delay (ms)" in texts(fig) and "Queue" in texts(fig)
    with pytest.raises(FigureError, match="no flow named 'x'"):
        figures.rtt(PANELS, flows=["x"])


def test_rtt_box_has_one_box_per_point_and_flow_from_the_window_of_all_runs():
    fig = figures.rtt_box(PANELS)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["uncoupled", "FSEv2"]
    boxes = [p for p in ax.patches]
    assert len(boxes) == 4
    # the medians: bins 10..39 (t in [5, 20)) of both runs, rtt = 100 + i + run
    medians = sorted(
        line.get_ydata()[0]
        for line in ax.get_lines()
        if line.get_color() == "black" and len(line.get_ydata()) == 2 and line.get_ydata()[0] == line.get_ydata()[1]
    )
    assert 125.0 in medians and 75.0 in medians


def sweep_point(variant, p, share):
    return {
        "name": f"{variant}[p={p}]", "variant": variant, "label": variant.upper(), "grid": {"p": p},
        "summary": {"flows": [{"name": "sctp", "share": share,
                               "spread": {"share": {"std": 0.01, "min": share - 0.02, "max": share + 0.02}}}],
                    "aggregate": {}},
    }


def test_sweep_draws_a_line_per_variant_sorted_by_x_with_band_and_paper():
    points = [sweep_point(v, p, p / (1 + p)) for v in ("fsev2", "fse-ng") for p in (1.0, 0.25, 0.5)]
    paper = [{"point": "fsev2[p=0.5]", "metric": "flows.sctp.share", "paper": 0.3}]
    fig = figures.sweep(points, x="p", y="flows.sctp.share", axes=[{"name": "p", "label": "SCTP priority"}], paper=paper)
    ax = fig.axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert list(lines["FSEV2"].get_xdata()) == [0.25, 0.5, 1.0]
    assert lines["FSEV2"].get_ydata()[2] == pytest.approx(0.5)
    assert list(lines["paper"].get_ydata()) == [0.3]
    assert len(ax.collections) == 2  # one min-max band per line
    assert ax.get_xlabel() == "SCTP priority" and ax.get_ylabel() == "sctp share"
    with pytest.raises(FigureError, match="no grid axis named 'q'"):
        figures.sweep(points, x="q", y="flows.sctp.share")


def test_sweep_with_string_values_is_categorical():
    points = [sweep_point("fsev2", p, 0.5) for p in ("3Mbps", "1Mbps")]
    fig = figures.sweep(points, x="p", y="flows.sctp.share")
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["3Mbps", "1Mbps"]


def test_sweep_over_a_categorical_axis_draws_grouped_bars():
    from matplotlib.container import BarContainer

    points = [sweep_point(v, m, 0.4) for v in ("fsev2", "fse-ng") for m in ("none", "fse")]
    ax = figures.sweep(points, x="p", y="flows.sctp.share").axes[0]
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert [(c.get_label(), len(c)) for c in bars] == [("FSEV2", 2), ("FSE-NG", 2)]
    assert not [line for line in ax.get_lines() if line.get_marker() == "o"]  # no line across categories
    assert [t.get_text() for t in ax.get_xticklabels()] == ["none", "fse"]


def test_bar_has_a_panel_per_metric_whiskers_and_paper_markers():
    points = [POINT, {**POINT, "name": "other", "label": "Other"}]
    paper = [{"point": "other", "metric": "flows.gcc.throughput_mbps", "paper": 0.5, "label": "GCC (Mbit/s)"}]
    fig = figures.bar(points, metrics=["flows.gcc.throughput_mbps", "aggregate.jain_index"], paper=paper)
    assert len(fig.axes) == 2
    ax = fig.axes[0]
    bars = [p for p in ax.patches]
    assert [b.get_height() for b in bars] == [0.9, 0.9]
    assert ax.get_title(loc="left") == "GCC (Mbit/s)"
    assert "paper" in texts(fig)
    paper_line = [line for line in ax.get_lines() if line.get_label() == "paper"][0]
    assert list(paper_line.get_ydata()) == [0.5, 0.5]
    with pytest.raises(FigureError):
        figures.bar(points, metrics=[])


def test_bar_marks_a_missing_value():
    fig = figures.bar([POINT], metrics=["flows.sctp.rtt_ms.mean"])
    assert "n/a" in [t.get_text() for t in fig.axes[0].texts]


def png(fig):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


@pytest.mark.parametrize("kind", ["rate", "rtt", "queue", "rtt_box"])
def test_saved_png_is_byte_identical_and_carries_no_software_tag(kind, tmp_path):
    a = figures.save(getattr(figures, kind)(PANELS), tmp_path / "a.png").read_bytes()
    b = figures.save(getattr(figures, kind)(PANELS), tmp_path / "b.png").read_bytes()
    assert a == b
    assert a.startswith(b"\x89PNG") and b"matplotlib" not in a.lower()


def test_saved_png_has_the_documented_size(tmp_path):
    from matplotlib.image import imread

    image = imread(figures.save(figures.rate(PANELS), tmp_path / "r.png"))
    height, width = image.shape[:2]
    assert width == int(figures.WIDTH_IN * figures.DPI)
    header = figures.Header.plan(figures.WIDTH_IN, "Throughput per flow", "mean over 2 runs, band: min-max",
                                 ["measurement window", "gcc", "sctp", "capacity"])
    assert header.legend_rows == 1 and len(header.title_lines) == 1
    assert height == round((header.height_in + 2 * figures.PANEL_HEIGHT_IN) * figures.DPI)


def test_a_flow_without_rtt_samples_and_an_empty_series_still_draw(tmp_path):
    frame = series()
    frame.loc[frame["flow"] == "sctp", "rtt_ms"] = float("nan")
    fig = figures.rtt_box([Panel("x", "x", frame, (5.0, 20.0)), Panel("e", "empty", frame.iloc[0:0], None)])
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["x", "empty"]
    assert figures.save(fig, tmp_path / "box.png").stat().st_size > 0
    fig = figures.rate([Panel("e", "empty", frame.iloc[0:0], None)])
    assert fig.axes[0].get_lines() == []


def test_bar_of_runs_with_equal_values_draws():
    # Three equal values: their mean can round above the max (0.1 + 0.2 ...); the
    # whiskers are clamped at 0 (matplotlib rejects a negative error bar).
    v = 0.30000000000000004
    point = {"name": "p", "summary": {"flows": [{"name": "a", "throughput_mbps": v,
                                                 "spread": {"throughput_mbps": {"std": 0.0, "min": 0.3, "max": 0.3}}}]}}
    figures.bar([point], metrics=["flows.a.throughput_mbps"])


def _header_extents(fig):
    """The window extents of the figure's header texts (title, note) and legends, and of
    each axes with its labels, drawn."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    titles = list(dict.fromkeys([*fig.texts, *([fig._suptitle] if getattr(fig, "_suptitle", None) is not None else [])]))
    texts = [t.get_window_extent(renderer) for t in titles if t.get_text()]
    legends = [legend.get_window_extent(renderer) for legend in fig.legends]
    axes = [ax.get_tightbbox(renderer) for ax in fig.axes if ax.get_visible()]
    return texts, legends, axes, fig.bbox


LONG_TITLE = "A title a catalogue entry could give, long enough to need more than one line at this width, " * 2
MANY = [Panel(f"p{i}", f"a rather long label of point number {i}", series(), (5.0, 20.0)) for i in range(8)]
BAR_POINTS = [dict(POINT, name=f"p{i}", label=f"point {i}") for i in range(6)]
PAPER_ROWS = [{"point": "p0", "metric": "flows.gcc.throughput_mbps", "paper": 0.5}]


@pytest.mark.parametrize(
    "draw",
    [
        lambda: figures.rate(PANELS),
        lambda: figures.rtt(PANELS, title=LONG_TITLE),
        lambda: figures.queue(MANY, overlay=True),
        lambda: figures.rate(MANY, overlay=True, title=LONG_TITLE),
        lambda: figures.rtt_box(PANELS),
        lambda: figures.rtt_box(MANY, title=LONG_TITLE),
        lambda: figures.bar(BAR_POINTS, metrics=["flows.gcc.throughput_mbps", "aggregate.jain_index"],
                            paper=PAPER_ROWS),
        lambda: figures.bar([POINT], metrics=["flows.gcc.throughput_mbps"], title=LONG_TITLE),
        lambda: figures.sweep([POINT, dict(POINT, name="q", grid={"p": 1.0})], x="p", y="aggregate.jain_index"),
        lambda: figures.frames([Panel("a", "uncoupled", video_series(), (5.0, 20.0))]),
    ],
    ids=["rate", "rtt-long-title", "queue-overlay-8", "rate-overlay-8-long-title", "rtt_box", "rtt_box-8-long-title",
         "bar-paper", "bar-long-title", "sweep", "frames"],
)
def test_titles_notes_and_legends_do_not_overlap_each_other_or_the_axes_and_fit_the_figure(draw):
    fig = draw()
    texts, legends, axes, frame = _header_extents(fig)
    assert texts, "a title"
    header = texts + legends
    for i, a in enumerate(header):
        assert a.x0 >= frame.x0 - 1 and a.x1 <= frame.x1 + 1 and a.y0 >= frame.y0 - 1 and a.y1 <= frame.y1 + 1, (
            "cut off", a, frame)
        for b in header[i + 1:] + axes:
            assert not a.overlaps(b), (a, b)
    assert not any("±" in t.get_text() for t in fig.texts)


def test_a_single_run_gets_no_note_of_runs_and_several_runs_do():
    one = figures.rate([Panel("a", "a", series(runs=1))])
    assert [t.get_text() for t in one.texts] == ["Throughput per flow"]
    several = figures.rate([Panel("a", "a", series(runs=3))])
    assert [t.get_text() for t in several.texts] == ["Throughput per flow", "mean over 3 runs, band: min-max"]


def test_an_overlay_of_points_of_different_capacities_draws_each_capacity():
    same = figures.rate(PANELS, overlay=True)
    assert [line.get_label() for line in same.axes[0].get_lines()].count("capacity") == 1
    different = figures.rate([Panel("a", "2 Mbit/s", series(capacity=2.0)), Panel("b", "4 Mbit/s", series(capacity=4.0))],
                             overlay=True)
    lines = {line.get_label(): line for line in different.axes[0].get_lines()}
    assert max(lines["capacity: 2 Mbit/s"].get_ydata()) == 2.0
    assert max(lines["capacity: 4 Mbit/s"].get_ydata()) == 4.0
    assert different.axes[0].get_ylim()[1] >= 4.0


def video_series(runs=2, freeze_at=(6.0,)):
    """A gcc video flow (fps 30 with a dip, frame delay 80 ms + run) and an sctp data flow
    (no frame columns); a freeze ends at each time in ``freeze_at`` in run 0."""
    rows = []
    for run in range(runs):
        for i in range(40):
            t = i * 0.5
            rows.append({"run": run, "time_s": t, "flow": "gcc", "throughput_mbps": 1.0, "capacity_mbps": 2.0,
                         "fps": 10.0 if t in freeze_at else 30.0, "frame_delay_ms": 80.0 + run,
                         "freezes": 1.0 if (run == 0 and t in freeze_at) else 0.0})
            rows.append({"run": run, "time_s": t, "flow": "sctp", "throughput_mbps": 1.0, "capacity_mbps": 2.0,
                         "fps": float("nan"), "frame_delay_ms": float("nan"), "freezes": float("nan")})
    return pandas.DataFrame(rows)


def test_frames_draws_frame_rate_and_delay_per_video_flow_with_freezes_marked():
    fig = figures.frames([Panel("none", "uncoupled", video_series(), (5.0, 20.0))])
    ax_fps, ax_delay = fig.axes
    assert ax_fps.get_ylabel() == "frames/s" and ax_delay.get_ylabel() == "frame delay (ms)"
    fps = [line for line in ax_fps.get_lines() if line.get_label() == "gcc"][0]
    assert list(fps.get_ydata())[:3] == [30.0, 30.0, 30.0] and min(fps.get_ydata()) == 10.0
    assert list(ax_delay.get_lines()[0].get_ydata())[:2] == [80.5, 80.5]  # the mean of the two runs
    freezes = [line for line in ax_fps.get_lines() if line.get_label() == figures.FREEZE_LABEL]
    assert len(freezes) == 1 and list(freezes[0].get_xdata()) == [6.0]
    # only video flows are drawn: the data flow has no frames
    assert not any(line.get_label() == "sctp" for ax in fig.axes for line in ax.get_lines())
    assert figures.FREEZE_LABEL in texts(fig)


def test_frames_overlay_has_a_pair_of_axes_per_video_flow_and_a_line_per_point():
    fig = figures.frames([Panel("a", "uncoupled", video_series()), Panel("b", "FSE-NG", video_series(freeze_at=()))],
                         overlay=True)
    assert len(fig.axes) == 2 and fig.axes[0].get_title(loc="left") == "flow gcc"
    labels = [line.get_label() for line in fig.axes[0].get_lines()]
    assert labels[:1] == ["uncoupled"] and "FSE-NG" in labels


def test_frames_refuses_points_without_frame_columns_or_video_flows():
    with pytest.raises(FigureError, match="no 'fps' column"):
        figures.frames(PANELS)
    frame = video_series()
    frame["fps"] = float("nan")
    with pytest.raises(FigureError, match="no video flow"):
        figures.frames([Panel("a", "a", frame)])
    with pytest.raises(FigureError, match="no video flow named 'sctp'"):
        figures.frames([Panel("a", "a", video_series())], flows=["sctp"])


def test_frames_png_is_byte_identical(tmp_path):
    panels = [Panel("a", "a", video_series())]
    a = figures.save(figures.frames(panels), tmp_path / "a.png").read_bytes()
    assert a == figures.save(figures.frames(panels), tmp_path / "b.png").read_bytes()
