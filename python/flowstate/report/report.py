"""The report of a reproduction: figures (PNG) and one self-contained ``report.html``.

::

    from flowstate.report import report

    report.build(Path("out/p000-table5"))     # -> out/p000-table5/report.html
    report.build_index(Path("out"))           # -> out/index.html (after `reproduce --all`)

:func:`build` reads only ``results.json`` (docs/CATALOGUE.md) and the points'
``timeseries.csv``; it draws every ``figures[]`` entry into ``figures/<n>-<kind>.png``,
fills in ``figures[].file`` in results.json and writes ``report.html``: the paper's
finding, the set-up, the comparison with the paper's numbers, the claims, the figures
(embedded as data URIs: the file reads offline) and the per-point summaries. Same
inputs, same bytes. A missing or malformed input raises :class:`ReportError`, a
one-line message naming the file and the field.
"""

from __future__ import annotations

import base64
import html
import json
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Optional, Sequence

from flowstate.output_files import FIGURES_DIR, INDEX_FILE, REPORT_FILE, RESULTS_FILE, TIMESERIES_FILE
from flowstate.report import figures
from flowstate.report import input_files
from flowstate.report.input_files import ReportError
from flowstate.catalogue import claims as claims_mod
from flowstate.catalogue import references
from flowstate.errors import FlowstateError

if TYPE_CHECKING:  # pragma: no cover
    import pandas

# ---------------------------------------------------------------- reading


def check_results(results: Any, path: Path) -> dict[str, Any]:
    """``results`` (read from ``path``) checked for the fields the report reads; the
    optional lists default to empty."""
    if not isinstance(results, dict):
        raise ReportError(f"{path}: expected a JSON object at the top level")
    for key, kind in (("id", str), ("points", list)):
        if not isinstance(results.get(key), kind):
            raise ReportError(f"{path}: field '{key}' missing or not a {'string' if kind is str else 'list'}")
    for key in ("comparison", "claims", "figures", "axes"):
        if not isinstance(results.setdefault(key, []), list):
            raise ReportError(f"{path}: field '{key}' is not a list")
        for i, item in enumerate(results[key]):
            if not isinstance(item, dict):
                raise ReportError(f"{path}: {key}[{i}]: expected an object, got {type(item).__name__}")
    for key in ("runs", "seed"):
        if results.get(key) is not None and (not isinstance(results[key], int) or isinstance(results[key], bool)):
            raise ReportError(f"{path}: field '{key}' is not an integer")
    names = set()
    for i, point in enumerate(results["points"]):
        if not isinstance(point, dict) or not isinstance(point.get("name"), str):
            raise ReportError(f"{path}: points[{i}].name missing")
        where = f"{path}: points[{i}].summary"
        summary = point.get("summary")
        if not isinstance(summary, dict) or not isinstance(summary.get("flows"), list):
            raise ReportError(f"{where} missing or without 'flows'")
        check_summary(summary, where)
        names.add(point["name"])
    for i, claim in enumerate(results["claims"]):
        if not isinstance(claim.get("values", {}), dict):
            raise ReportError(f"{path}: claims[{i}].values is not an object")
    for i, spec in enumerate(results["figures"]):
        if spec.get("kind") not in figures.KINDS:
            raise ReportError(
                f"{path}: figures[{i}].kind: expected one of {', '.join(figures.KINDS)}, got {spec.get('kind')!r}"
            )
        shown = spec.get("points") or []
        if not isinstance(shown, list):
            raise ReportError(f"{path}: figures[{i}].points: expected a list of point names")
        unknown = [p for p in shown if p not in names]
        if unknown:
            raise ReportError(f"{path}: figures[{i}].points: no point named {unknown[0]!r}")
    return results


def check_summary(summary: Mapping[str, Any], where: str) -> None:
    """The parts of a summary.json the report reads: ``flows`` a list of objects, each
    with a name; ``aggregate`` an object; ``runs`` an integer (``where`` names it)."""
    flows = summary.get("flows")
    if not isinstance(flows, list):
        raise ReportError(f"{where}: field 'flows' missing or not a list")
    for i, flow in enumerate(flows):
        if not isinstance(flow, dict) or not isinstance(flow.get("name"), str) or not flow["name"]:
            raise ReportError(f"{where}: flows[{i}]: expected an object with a 'name'")
    if not isinstance(summary.get("aggregate", {}), dict):
        raise ReportError(f"{where}: field 'aggregate' is not an object")
    runs = summary.get("runs", 1)
    if runs is not None and (not isinstance(runs, int) or isinstance(runs, bool) or runs < 1):
        raise ReportError(f"{where}: field 'runs' is not a positive integer")
    window = summary.get("window_s")
    if window is not None and not (
        isinstance(window, list) and len(window) == 2
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in window)
    ):
        raise ReportError(f"{where}: field 'window_s' is not a pair of numbers")
    for key in ("warnings",):
        value = summary.get(key)
        if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise ReportError(f"{where}: field '{key}' is not a list of strings")
    coupling = summary.get("coupling")
    if coupling is not None and not isinstance(coupling, dict):
        raise ReportError(f"{where}: field 'coupling' is not an object")


def load_results(out_dir: Path) -> dict[str, Any]:
    """results.json of ``out_dir``, checked for the fields the report needs."""
    path = Path(out_dir) / RESULTS_FILE
    if not path.exists():
        raise ReportError(f"{path}: not found (run 'flowstate reproduce' first)")
    return check_results(input_files.read_json(path), path)


def _point_dir(point: Mapping[str, Any]) -> str:
    if isinstance(point.get("dir"), str):
        return str(point["dir"])
    return "".join("_" if c in "[],=" else c for c in str(point["name"]))


def _window(point: Mapping[str, Any]) -> Optional[tuple[float, float]]:
    window = (point.get("summary") or {}).get("window_s")
    if isinstance(window, (list, tuple)) and len(window) == 2 and all(isinstance(v, (int, float)) for v in window):
        return float(window[0]), float(window[1])
    return None


def _label(point: Mapping[str, Any]) -> str:
    return str(point.get("label") or point["name"])


_point_label = figures.point_label


# The timeseries.csv column each time-series figure kind draws.
SERIES_COLUMN = {
    "rate": "throughput_mbps", "rtt": "rtt_ms", "queue": "queuing_delay_ms", "rtt_box": "rtt_ms", "frames": "fps",
}


class _Series:
    """The points' timeseries.csv, read and checked once each. A point's ``dir`` is
    resolved lexically against ``out_dir`` (which need not exist yet)."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self.cache: dict[str, "pandas.DataFrame"] = {}

    def path(self, point: Mapping[str, Any]) -> Path:
        return Path(os.path.normpath(self.out_dir / _point_dir(point) / TIMESERIES_FILE))

    def panel(self, point: Mapping[str, Any], kind: str) -> figures.Panel:
        name = str(point["name"])
        path = self.path(point)
        if name not in self.cache:
            if not path.exists():
                raise ReportError(f"{path}: not found (point {name!r})")
            self.cache[name] = input_files.read_timeseries(path)
        input_files.require_columns(self.cache[name], path, [SERIES_COLUMN[kind]])
        return figures.Panel(name, _point_label(point), self.cache[name], _window(point))


# ---------------------------------------------------------------- figures


def _plan(spec: Mapping[str, Any], results: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments of the figure function for ``spec``, checked before anything is
    drawn (FigureError names the key)."""
    kind = spec["kind"]
    args: dict[str, Any] = {"title": spec.get("title")}
    if kind in ("rate", "rtt", "queue", "rtt_box", "frames"):
        args["flows"] = figures.flows_option(spec)
        if kind != "rtt_box" and spec.get("overlay"):
            args["overlay"] = True
    elif kind == "sweep":
        axes = results.get("axes") or []
        x = spec.get("x") or (axes[0].get("name") if len(axes) == 1 and isinstance(axes[0], dict) else None)
        if not x:
            raise figures.FigureError("x: a sweep needs the grid axis to plot against")
        if not any(x in (p.get("grid") or {}) for p in results["points"]):
            raise figures.FigureError(f"x: no grid axis named {x!r}")
        if not spec.get("y"):
            raise figures.FigureError("y: a sweep needs a metric path")
        args.update(x=x, y=figures.check_metric_path(spec["y"]), axes=axes, paper=results["comparison"])
    else:  # bar; default metrics: every metric the paper gives a number for
        metrics = spec.get("metrics")
        if metrics is None:
            metrics = list(dict.fromkeys(str(r["metric"]) for r in results["comparison"] if "metric" in r))
        if isinstance(metrics, str):
            metrics = [metrics]
        if not isinstance(metrics, list):
            raise figures.FigureError("metrics: expected a list of metric paths")
        args.update(metrics=[figures.check_metric_path(m) for m in metrics], paper=results["comparison"])
    return args


DELAY_FIGURE_TITLE = "RTT and queuing delay against the paper"


def add_paper_delay_figure(results: dict[str, Any]) -> None:
    """Adds a bar figure of the RTT and queuing-delay metrics the paper gives numbers for
    that no bar figure of the entry shows yet (the entries' bars were chosen for
    throughput and share), so that the comparison figures cover delay too. Idempotent."""
    shown: set[str] = set()
    for spec in results["figures"]:
        if isinstance(spec, dict) and spec.get("kind") == "bar":
            metrics = spec.get("metrics")
            if metrics is None:
                return  # a bar of every compared metric: delay is in it
            shown.update([metrics] if isinstance(metrics, str) else metrics)
    delay = [
        str(row["metric"])
        for row in results["comparison"]
        if row.get("paper") is not None and isinstance(row.get("metric"), str)
        and (".rtt_ms." in row["metric"] or "queuing_delay_ms" in row["metric"])
    ]
    missing = [m for m in dict.fromkeys(delay) if m not in shown]
    if missing:
        results["figures"].append({"kind": "bar", "metrics": missing, "title": DELAY_FIGURE_TITLE})


def has_video(point: Mapping[str, Any]) -> bool:
    """Whether a point's summary has the receiver's frame figures of a video flow."""
    return any(isinstance(flow.get("video"), Mapping) for flow in point["summary"].get("flows") or [])


def add_frames_figure(results: dict[str, Any]) -> None:
    """Adds the ``frames`` figure (frame rate and frame delay over time, freezes marked)
    of the points with a video flow, unless the figures have one, to a report that draws
    time series (a sweep's has none); overlaid like the other time-series figures
    (``flowstate compare``). Idempotent."""
    specs = [spec for spec in results["figures"] if isinstance(spec, dict)]
    if any(spec.get("kind") == "frames" for spec in specs):
        return
    if not any(spec.get("kind") in ("rate", "rtt", "queue", "rtt_box") for spec in specs):
        return
    points = [str(p["name"]) for p in results["points"] if has_video(p)]
    if not points:
        return
    overlay = any(spec.get("overlay") for spec in specs if spec.get("kind") in ("rate", "rtt", "queue"))
    spec: dict[str, Any] = {"kind": "frames", "points": points}
    if overlay:
        spec["overlay"] = True
    results["figures"].append(spec)


def draw_figures(out_dir: Path, results: dict[str, Any]) -> list[tuple[Mapping[str, Any], bytes]]:
    """Draws every figure of ``results`` as PNG bytes, named in ``figures[].file``
    (``figures/<n>-<kind>.png``, relative to out_dir); writes nothing. Every figure is
    checked before any is drawn."""
    by_name = {p["name"]: p for p in results["points"]}
    series = _Series(out_dir)

    def where(n: int, spec: Mapping[str, Any]) -> str:
        return f"{out_dir / RESULTS_FILE}: figures[{n}] ({spec['kind']})"

    plans = []
    for n, spec in enumerate(results["figures"]):
        try:
            plans.append(_plan(spec, results))
        except figures.FigureError as e:
            raise ReportError(f"{where(n, spec)}: {e}") from None
    for spec in results["figures"]:
        if spec["kind"] in SERIES_COLUMN:
            for name in spec.get("points") or by_name:
                series.panel(by_name[name], spec["kind"])
    drawn = []
    for n, (spec, args) in enumerate(zip(results["figures"], plans)):
        points = [by_name[name] for name in spec.get("points") or by_name]
        draw: Callable[..., Any] = getattr(figures, spec["kind"])
        try:
            if spec["kind"] in ("sweep", "bar"):
                fig = draw(points, **args)
            else:
                fig = draw([series.panel(p, spec["kind"]) for p in points], **args)
        except figures.FigureError as e:
            raise ReportError(f"{where(n, spec)}: {e}") from None
        spec["file"] = f"{FIGURES_DIR}/{n + 1}-{spec['kind']}.png"
        drawn.append((spec, figures.png_bytes(fig)))
    return drawn


def _remove_stale(folder: Path, keep: set[str]) -> None:
    """Deletes figures of an earlier build (``<n>-<kind>.png`` not drawn this time)."""
    if folder.is_dir():
        for path in folder.glob("*-*.png"):
            stem = path.stem.split("-", 1)
            if path.name not in keep and stem[0].isdigit() and stem[1] in figures.KINDS:
                path.unlink()


# ---------------------------------------------------------------- formatting


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _decimals(value: float) -> int:
    """Decimals for about 3 significant digits."""
    a = abs(value)
    return 0 if a >= 100 else 1 if a >= 10 else 2 if a >= 1 else 3


def fmt(value: Optional[float], like: Optional[float] = None) -> str:
    """A number with about 3 significant digits (or as many decimals as ``like``, so that
    a spread reads in the mean's precision); ``-`` for none."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    digits = _decimals(value if like is None else like)
    return f"{value:.{digits}f}"


def _stats_cell(mean: Optional[float], std: Optional[float], lo: Optional[float], hi: Optional[float], runs: int) -> str:
    if mean is None:
        return "-"
    text = _e(fmt(mean))
    if runs > 1 and std is not None:
        text += f" ± {_e(fmt(std, mean))}"
    if runs > 1 and lo is not None and hi is not None:
        text += f' <span class="range">[{_e(fmt(lo, mean))}..{_e(fmt(hi, mean))}]</span>'
    return text


def _signed(text: str) -> str:
    """``+1.2`` / ``-1.2``; a value that rounds to zero gets no sign."""
    if text.lstrip("-").strip("0.") == "":
        return text.lstrip("-")
    return text if text.startswith("-") else "+" + text


def _difference(ours: Optional[float], paper: Optional[float]) -> str:
    """ours - paper, in the paper's precision, and relative to the paper's value."""
    if ours is None or paper is None:
        return "-"
    diff = ours - paper
    text = _signed(fmt(diff, paper))
    if paper != 0:
        text += f" ({_signed(f'{diff / abs(paper) * 100:.0f}')} %)"
    return text


def _difference_cell(ours: Any, paper: Any) -> str:
    """:func:`_difference`, marked when ours is off the paper's by more than the claims'
    VALUE_OFF_THRESHOLD."""
    ours = ours if isinstance(ours, (int, float)) and not isinstance(ours, bool) else None
    paper = paper if isinstance(paper, (int, float)) and not isinstance(paper, bool) else None
    text = _e(_difference(ours, paper))
    relative = claims_mod.relative_difference(ours, paper)
    if relative is not None and abs(relative) > claims_mod.VALUE_OFF_THRESHOLD:
        return f'<span class="off">{text}</span>'
    return text


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]], css: str, numeric_from: int = 1) -> str:
    """An HTML table; cells are already escaped HTML."""
    head = "".join(
        f'<th scope="col"{" class=num" if i >= numeric_from else ""}>{_e(h)}</th>' for i, h in enumerate(headers)
    )
    body = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            cls = " class=num" if i >= numeric_from else ""
            cells.append(f"<td{cls}>{cell}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<div class="wide"><table class="{css}">\n<thead><tr>{head}</tr></thead>\n<tbody>\n'
        + "\n".join(body)
        + "\n</tbody>\n</table></div>"
    )


# ---------------------------------------------------------------- sections


def _setup_section(results: Mapping[str, Any]) -> str:
    points = results["points"]
    first = points[0]["summary"] if points else {}
    runs = results.get("runs") or first.get("runs") or 1
    seed = results.get("seed")
    seeds = first.get("seeds") or ([seed + i for i in range(runs)] if isinstance(seed, int) else [])
    variants = list(dict.fromkeys(_label(p) for p in points))
    grid = f" at {len(points) // max(len(variants), 1)} grid values" if results["axes"] else ""
    rows = [
        ("points", f"{len(points)} ({_e(', '.join(variants))}{grid})"),
        ("runs per point", _e(runs)),
        ("seeds", _e("-" if not seeds else str(seeds[0]) if seeds[0] == seeds[-1] else f"{seeds[0]}..{seeds[-1]}")),
        ("short (CI) version", "yes" if results.get("short") else "no"),
    ]
    if first.get("duration_s") is not None:
        rows.append(("duration", _e(f"{first['duration_s']:g} s")))
    window = _window(points[0]) if points else None
    if window:
        rows.append(("measurement window", _e(f"{window[0]:g}-{window[1]:g} s")))
    for axis in results["axes"]:
        values = list(dict.fromkeys(str((p.get("grid") or {}).get(axis.get("name"))) for p in points))
        text = f"{axis.get('label') or axis.get('name')}: {axis.get('key', '')} = {', '.join(values)}"
        rows.append((f"grid axis {_e(axis.get('name'))}", _e(text)))
    if results.get("elapsed_s") is not None:
        rows.append(("simulation time", _e(f"{results['elapsed_s']:.1f} s")))
    body = "".join(f'<tr><th scope="row">{k}</th><td>{v}</td></tr>' for k, v in rows)
    return f'<table class="setup">{body}</table>'


def _comparison_section(results: Mapping[str, Any]) -> str:
    labels = {p["name"]: _point_label(p) for p in results["points"]}
    rows = []
    for row in results["comparison"]:
        runs = int(results.get("runs") or 1)
        point = str(row.get("point", ""))
        metric = str(row.get("metric", ""))
        label = row.get("label") or figures.metric_label(metric)
        metric_cell = f'{_e(label)} <code class="path">{_e(metric)}</code>'
        rows.append(
            [
                f'{_e(labels.get(point, point))}',
                metric_cell,
                _e(fmt(row.get("paper"))),
                _stats_cell(row.get("ours"), row.get("std"), row.get("min"), row.get("max"), runs),
                _difference_cell(row.get("ours"), row.get("paper")),
            ]
        )
    if not rows:
        return "<p>The paper gives no numbers for this experiment.</p>"
    return _table(["point", "metric", "paper", "ours: mean ± std [min..max]", "difference"], rows, "comparison", 2)


def _value(value: Any) -> str:
    if value is None:
        return "missing"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return fmt(value)
    return str(value)


_STATUS = {"holds": "holds", "fails": "fails", "not evaluated": "na"}


def _paper_cell(claim: Mapping[str, Any]) -> str:
    """The claim's metrics the paper gives a number for: paper, ours, relative difference."""
    parts = []
    for row in claim.get("paper_values") or []:
        if not isinstance(row, Mapping):
            continue
        difference = row.get("relative_difference")
        off = isinstance(difference, (int, float)) and abs(difference) > claims_mod.VALUE_OFF_THRESHOLD
        text = (
            f"<code>{_e(row.get('ref', ''))}</code>: paper {_e(_value(row.get('paper')))}, "
            f"ours {_e(_value(row.get('ours')))}"
        )
        if isinstance(difference, (int, float)):
            text += f' (<span class="{"off" if off else "near"}">{_e(claims_mod.percent(difference))}</span>)'
        parts.append(text)
    return "<br>".join(parts) or "-"


def _claims_section(results: Mapping[str, Any]) -> str:
    rows = []
    for claim in results["claims"]:
        status = str(claim.get("status", "not evaluated"))
        values = claim.get("values") or {}
        value_cell = "<br>".join(f"<code>{_e(k)}</code> = {_e(_value(v))}" for k, v in values.items())
        flag = " off" if claim.get("value_off") else ""
        rows.append(
            [
                _e(claim.get("text", "")),
                f"<code>{_e(claim.get('check', ''))}</code>",
                value_cell or "-",
                _paper_cell(claim),
                f'<span class="status {_STATUS.get(status, "na")}{flag}">{_e(claims_mod.status_text(claim))}</span>',
            ]
        )
    if not rows:
        return "<p>No claims are checked for this experiment.</p>"
    counts = {s: sum(1 for c in results["claims"] if c.get("status") == s) for s in _STATUS}
    off = sum(1 for c in results["claims"] if c.get("status") == "holds" and c.get("value_off"))
    summary = (
        f'<p class="tally">{counts["holds"]} of {len(rows)} claims hold'
        + (f' (<span class="off">{off} with a value off the paper\'s by more than '
           f'{claims_mod.VALUE_OFF_THRESHOLD * 100:.0f} %</span>)' if off else "")
        + f', {counts["fails"]} fail, {counts["not evaluated"]} not evaluated.</p>'
    )
    return summary + _table(
        ["claim", "check", "values (our means)", "paper against ours (relative difference)", "status"],
        rows, "claims", 5,
    )


def _png_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


_KIND_TEXT = {
    "rate": "throughput per flow over time",
    "rtt": "RTT per flow over time",
    "queue": "queuing delay over time",
    "rtt_box": "RTT distribution per point and flow",
    "frames": "frame rate and frame delay per video flow over time, freezes marked",
    "sweep": "sweep over a grid axis",
    "bar": "ours against the paper",
}


def _figures_section(drawn: Sequence[tuple[Mapping[str, Any], bytes]]) -> str:
    if not drawn:
        return "<p>No figures for this experiment.</p>"
    parts = []
    for n, (spec, png) in enumerate(drawn, start=1):
        caption = spec.get("title") or _KIND_TEXT[spec["kind"]]
        alt = f"Figure {n}: {caption}"
        parts.append(
            f'<figure id="figure-{n}"><img src="{_png_uri(png)}" alt="{_e(alt)}">'
            f'<figcaption>Figure {n} ({_e(spec["kind"])}): {_e(caption)}. '
            f'File: <code>{_e(spec["file"])}</code></figcaption></figure>'
        )
    return "\n".join(parts)


def _flow_cell(flow: Mapping[str, Any], runs: int, *path: str, scale: float = 1.0) -> str:
    value: Any = flow
    spread: Any = flow.get("spread") or {}
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
        spread = spread.get(key) if isinstance(spread, Mapping) else None
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "-"
    spread = spread if isinstance(spread, Mapping) else {}
    std = spread.get("std")
    text = _e(fmt(value * scale))
    if runs > 1 and std is not None:
        text += f" ± {_e(fmt(std * scale, value * scale))}"
    return text


def _summary_section(results: Mapping[str, Any]) -> str:
    points = results["points"]
    # Columns of summary.json fields older folders lack: shown when any point has them.
    grouped = any("group" in flow for p in points for flow in p["summary"]["flows"])
    coupled = any(coupling_text(p["summary"]) != "-" for p in points)
    flow_rows, aggregate_rows = [], []
    for point in points:
        summary = point["summary"]
        runs = int(summary.get("runs") or 1)
        label = _e(_point_label(point))
        for flow in summary["flows"]:
            flow_rows.append(
                [
                    label,
                    f'<span class="flow">{_e(flow.get("name", ""))} '
                    f'<span class="kind">({_e(flow.get("kind", ""))})</span></span>',
                    *([_e(flow_group(flow))] if grouped else []),
                    _flow_cell(flow, runs, "throughput_mbps"),
                    _flow_cell(flow, runs, "share", scale=100),
                    _flow_cell(flow, runs, "rtt_ms", "mean"),
                    _flow_cell(flow, runs, "rtt_ms", "p95"),
                    _flow_cell(flow, runs, "queuing_delay_ms", "mean"),
                    _flow_cell(flow, runs, "queuing_delay_ms", "p95"),
                    _flow_cell(flow, runs, "one_way_delay_ms", "p95"),
                    _flow_cell(flow, runs, "jitter_ms"),
                    _flow_cell(flow, runs, "loss_ratio", scale=100),
                ]
            )
        aggregate = summary.get("aggregate") or {}
        aggregate_rows.append(
            [
                label,
                *([_e(coupling_text(summary))] if coupled else []),
                _flow_cell(aggregate, runs, "throughput_mbps"),
                _flow_cell(aggregate, runs, "utilization", scale=100),
                _flow_cell(aggregate, runs, "jain_index"),
                _flow_cell(aggregate, runs, "weighted_jain_index"),
                _e(runs),
            ]
        )
    flows = _table(
        ["point", "flow", *(["coupling group"] if grouped else []), "throughput (Mbit/s)", "share (%)",
         "RTT mean (ms)", "RTT p95 (ms)", "queuing mean (ms)", "queuing p95 (ms)", "one-way delay p95 (ms)",
         "jitter (ms)", "loss (%)"],
        flow_rows, "summary", 3 if grouped else 2,
    )
    aggregate_table = _table(
        ["point", *(["coupling"] if coupled else []), "throughput (Mbit/s)", "utilization (%)", "Jain index",
         "priority-weighted Jain index", "runs"],
        aggregate_rows, "aggregate", 2 if coupled else 1,
    )
    return (
        "<p>Means over the runs ± the sample standard deviation (a point of one run: its value), in the "
        "measurement window.</p>"
        f"<h3>Per flow</h3>\n{flows}\n<h3>Aggregate</h3>\n{aggregate_table}{_video_section(points)}"
    )


# The receiver's view of each video flow (summary.json ``video``): (column, path, count);
# a count that is a whole number (one run, or the same in every run) is shown as one.
VIDEO_COLUMNS = (
    ("frames/s", ("fps",), False),
    ("frame delay mean (ms)", ("frame_delay_ms", "mean"), False),
    ("frame delay p95 (ms)", ("frame_delay_ms", "p95"), False),
    ("freezes", ("freezes",), True),
    ("freezes per min", ("freezes_per_min",), False),
    ("frozen (s)", ("freeze_duration_s",), False),
    ("pauses", ("pauses",), True),
    ("frames lost", ("frames_lost",), True),
    ("frames late", ("frames_late",), True),
    ("dropped by the encoder", ("frames_dropped_encoder",), True),
)


def _video_cell(flow: Mapping[str, Any], runs: int, path: Sequence[str], count: bool) -> str:
    value: Any = flow.get("video")
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    if count and isinstance(value, (int, float)) and not isinstance(value, bool) and float(value).is_integer():
        spread: Any = (flow.get("spread") or {}).get("video") or {}
        for key in path:
            spread = spread.get(key) if isinstance(spread, Mapping) else None
        std = spread.get("std") if isinstance(spread, Mapping) else None
        if runs <= 1 or not std:
            return _e(int(value))
    return _flow_cell(flow, runs, "video", *path)


def _video_section(points: Sequence[Mapping[str, Any]]) -> str:
    """The per-point QoE table: each video flow's frames as its receiver renders them
    (freezes by the W3C webrtc-stats rule); empty when no point has a video flow."""
    rows = []
    for point in points:
        summary = point["summary"]
        runs = int(summary.get("runs") or 1)
        for flow in summary["flows"]:
            if not isinstance(flow.get("video"), Mapping):
                continue
            rows.append([
                _e(_point_label(point)),
                f'<span class="flow">{_e(flow.get("name", ""))} <span class="kind">({_e(flow.get("kind", ""))})</span></span>',
                *(_video_cell(flow, runs, path, count) for _, path, count in VIDEO_COLUMNS),
            ])
    if not rows:
        return ""
    table = _table(["point", "flow", *(c for c, _, _ in VIDEO_COLUMNS)], rows, "video", 2)
    return (
        "\n<h3>Video at the receiver</h3>\n<p>Frames as the receiver renders them: frame delay from capture to "
        "render; a freeze is an interval between two rendered frames of at least max(3 x m, m + 150 ms), m the "
        "mean of the 30 intervals before it (W3C webrtc-stats), a pause one of more than 5 s.</p>\n" + table
    )


CSS = """
:root { color-scheme: light; }
body { font: 15px/1.45 -apple-system, "Segoe UI", "DejaVu Sans", Helvetica, Arial, sans-serif; color: #1d1d1f;
       max-width: 1100px; margin: 0 auto; padding: 1.5em 1.5em 4em; background: #fff; }
h1 { font-size: 1.6em; margin: 0.2em 0 0.1em; }
h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 2px solid #e5e7eb; padding-bottom: 0.2em; }
h3 { font-size: 1.05em; margin-top: 1.4em; }
p.ref { color: #555; margin-top: 0; }
nav { font-size: 0.92em; margin: 0.8em 0 1.2em; }
nav a { margin-right: 1em; }
a { color: #0b5cad; }
blockquote { margin: 0.6em 0; padding: 0.6em 1em; background: #f6f8fa; border-left: 4px solid #0072B2; }
.notes { background: #fff8e6; border-left-color: #E69F00; }
table { border-collapse: collapse; margin: 0.6em 0 1em; font-size: 0.92em; }
th, td { border: 1px solid #d9dde3; padding: 0.3em 0.6em; vertical-align: top; text-align: left; }
thead th { background: #f1f3f6; }
tbody tr:nth-child(even) { background: #fafbfc; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num, .flow { white-space: nowrap; }
div.wide { overflow-x: auto; }
code.path { font-size: 0.78em; color: #555; }
table.setup th { background: #f1f3f6; font-weight: 600; }
.range, .kind { color: #666; font-size: 0.9em; }
code { font: 0.86em/1.3 "DejaVu Sans Mono", Menlo, Consolas, monospace; background: #f3f4f6; padding: 0 0.25em;
       border-radius: 3px; }
table.claims td:nth-child(2) code { white-space: pre-wrap; word-break: break-word; }
.status { display: inline-block; padding: 0.1em 0.6em; border-radius: 0.8em; font-weight: 600; white-space: nowrap; }
.status.holds { background: #d7f5dd; color: #11632a; }
.status.fails { background: #fde0dd; color: #9b1c12; }
.status.na { background: #eceff3; color: #4b5563; }
.status.off { background: #fff1c2; color: #7a4b00; }
span.off { color: #9b4a00; font-weight: 600; }
.warnings { background: #fff8e6; border: 1px solid #E69F00; border-left: 4px solid #E69F00; padding: 0.5em 1em;
            margin: 1em 0; }
.warnings ul { margin: 0.3em 0; padding-left: 1.3em; }
figure { margin: 1.2em 0 2em; }
figure img { max-width: 100%; height: auto; border: 1px solid #e5e7eb; }
figcaption { color: #444; font-size: 0.92em; margin-top: 0.3em; }
footer { margin-top: 3em; color: #777; font-size: 0.85em; }
"""

# Sets data-images-loaded on <body> to the number of images that decoded (a check for
# the browser test and for anyone opening the file: no network is needed).
SCRIPT = """
window.addEventListener("load", function () {
  var images = document.images, loaded = 0;
  for (var i = 0; i < images.length; i++) {
    if (images[i].complete && images[i].naturalWidth > 0) { loaded++; }
  }
  document.body.setAttribute("data-images-loaded", String(loaded));
  document.body.setAttribute("data-images-total", String(images.length));
});
"""


def _page(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="flowstate">\n'
        f"<title>{_e(title)}</title>\n<style>{CSS}</style>\n</head>\n"
        f'<body data-images-loaded="0">\n{body}\n<script>{SCRIPT}</script>\n</body>\n</html>\n'
    )


def has_paper(results: Mapping[str, Any]) -> bool:
    """Whether the report has the paper's columns: a catalogue entry's (a paper id, paper
    numbers or claims), not an output folder's or a comparison's."""
    return bool(results.get("paper") or results.get("comparison") or results.get("claims"))


def page_title(rid: str, title: str) -> str:
    """``id: title``, or the title alone when it already names the id (``mix-drop``, not
    ``mix-drop: mix-drop``)."""
    return title if rid in title else f"{rid}: {title}"


def _warnings(results: Mapping[str, Any]) -> list[str]:
    """The points' summary.json ``warnings`` (legal but suspicious values), each once,
    prefixed by the point when there are several."""
    several = len(results["points"]) > 1
    out: list[str] = []
    for point in results["points"]:
        for text in point["summary"].get("warnings") or []:
            line = f"{_point_label(point)}: {text}" if several else str(text)
            if line not in out:
                out.append(line)
    return out


def _warnings_box(results: Mapping[str, Any]) -> str:
    warnings = _warnings(results)
    if not warnings:
        return ""
    items = "".join(f"<li>{_e(w)}</li>" for w in warnings)
    return (
        f'<aside class="warnings" id="warnings" role="note"><strong>Warnings</strong> (legal but suspicious values '
        f"in the scenario or the results)<ul>{items}</ul></aside>"
    )


def render(results: Mapping[str, Any], drawn: Sequence[tuple[Mapping[str, Any], bytes]]) -> str:
    """The HTML text of the report: a reproduction's with the paper's finding, the
    comparison and the claims; any other folder's (``flowstate report DIR`` of a run,
    ``flowstate compare``) without them, with the points side by side."""
    rid = str(results["id"])
    title = str(results.get("title") or rid)
    paper = str(results.get("paper") or "")
    reference = ", ".join(
        part for part in (references.cite(paper) if paper else "", str(results.get("reference") or "")) if part
    )
    heading = page_title(rid, title)
    sections = [
        f"<header><h1>{_e(heading)}</h1>",
        f'<p class="ref">{_e(reference)}</p></header>' if reference else "</header>",
        _warnings_box(results),
    ]
    if has_paper(results):
        sections += [
            '<nav><a href="#finding">Finding</a><a href="#setup">Set-up</a><a href="#comparison">Comparison</a>'
            '<a href="#claims">Claims</a><a href="#figures">Figures</a><a href="#summary">Per-point summary</a></nav>',
            '<section id="finding"><h2>The paper\'s finding</h2>',
            f"<blockquote>{_e(results.get('finding') or 'not given')}</blockquote>",
        ]
        if results.get("notes"):
            sections.append(
                f'<h3>Notes: where ours differs</h3><blockquote class="notes">{_e(results["notes"])}</blockquote>'
            )
        sections += [
            "</section>",
            f'<section id="setup"><h2>Set-up</h2>\n{_setup_section(results)}\n</section>',
            f'<section id="comparison"><h2>Comparison with the paper</h2>\n{_comparison_section(results)}\n</section>',
            f'<section id="claims"><h2>The paper\'s claims, checked on our means</h2>\n{_claims_section(results)}\n'
            "</section>",
        ]
    else:
        several = len(results["points"]) > 1
        sections += [
            '<nav><a href="#setup">Set-up</a>' + ('<a href="#side-by-side">Side by side</a>' if several else "")
            + '<a href="#figures">Figures</a><a href="#summary">Per-point summary</a></nav>',
            f'<section id="setup"><h2>Set-up</h2>\n{_setup_section(results)}\n</section>',
        ]
        if several:
            sections.append(
                f'<section id="side-by-side"><h2>Side by side</h2>\n{side_by_side_section(results)}\n</section>'
            )
    sections += [
        f'<section id="figures"><h2>Figures</h2>\n{_figures_section(drawn)}\n</section>',
        f'<section id="summary"><h2>Per-point summary</h2>\n{_summary_section(results)}\n</section>',
        f"<footer>Generated by <code>flowstate report</code> from <code>{RESULTS_FILE}</code> "
        "and the points' <code>timeseries.csv</code>.</footer>",
    ]
    return _page(heading, "\n".join(s for s in sections if s))


# Rows of the side-by-side table: (label, metric path without the flow, scale).
SIDE_BY_SIDE_FLOW = (
    ("throughput (Mbit/s)", "throughput_mbps", 1.0),
    ("share (%)", "share", 100.0),
    ("priority share (%)", "priority_share", 100.0),
    ("RTT mean (ms)", "rtt_ms.mean", 1.0),
    ("RTT p95 (ms)", "rtt_ms.p95", 1.0),
    ("queuing delay mean (ms)", "queuing_delay_ms.mean", 1.0),
    ("queuing delay p95 (ms)", "queuing_delay_ms.p95", 1.0),
    ("one-way delay p95 (ms)", "one_way_delay_ms.p95", 1.0),
    ("jitter (ms)", "jitter_ms", 1.0),
    ("loss (%)", "loss_ratio", 100.0),
    # The receiver's video quality (summary.json flows[].video; video flows only).
    ("frame rate (fps)", "video.fps", 1.0),
    ("frame delay mean (ms)", "video.frame_delay_ms.mean", 1.0),
    ("frame delay p95 (ms)", "video.frame_delay_ms.p95", 1.0),
    ("freezes", "video.freezes", 1.0),
    ("freezes per min", "video.freezes_per_min", 1.0),
    ("freeze duration (s)", "video.freeze_duration_s", 1.0),
    ("pauses", "video.pauses", 1.0),
    ("frames lost", "video.frames_lost", 1.0),
    ("frames late", "video.frames_late", 1.0),
    ("frames dropped by the encoder", "video.frames_dropped_encoder", 1.0),
)
SIDE_BY_SIDE_AGGREGATE = (
    ("throughput (Mbit/s)", "throughput_mbps", 1.0),
    ("utilization (%)", "utilization", 100.0),
    ("Jain index", "jain_index", 1.0),
    ("priority-weighted Jain index", "weighted_jain_index", 1.0),
)


def flow_group(flow: Mapping[str, Any]) -> str:
    """The coupling group a summary's flow is in (summary.json ``flows[].group``): its
    name, ``not coupled`` for null, ``-`` for a summary without groups."""
    if "group" not in flow:
        return "-"
    return "not coupled" if flow["group"] is None else str(flow["group"])


def coupling_text(summary: Mapping[str, Any]) -> str:
    """The mechanism of a summary (summary.json ``coupling``): ``fsev2 (groups: static)``;
    ``-`` for a summary without it."""
    coupling = summary.get("coupling")
    if not isinstance(coupling, Mapping) or not coupling.get("mechanism"):
        return "-"
    mode = coupling.get("groups_mode")
    return str(coupling["mechanism"]) + (f" (groups: {mode})" if mode else "")


Cell = Optional[Any]  # stats {"mean", "std", "min", "max", "runs"}, a text, or None


def side_by_side_rows(results: Mapping[str, Any]) -> tuple[list[str], list[tuple[str, str, list[Cell]]]]:
    """The points' labels and one row per (flow or aggregate, metric): ``(owner, metric
    label, [cell per point])``, a cell the stats scaled for display with the point's
    ``runs``, or a text (a flow's coupling group, the mechanism); None where a point has
    no value."""
    points = results["points"]
    flows: list[str] = []
    for point in points:
        for flow in point["summary"]["flows"]:
            if flow.get("name") not in flows:
                flows.append(str(flow.get("name")))
    rows: list[tuple[str, str, list[Cell]]] = []
    for owner, prefix, fields in [(f, f"flows.{f}", SIDE_BY_SIDE_FLOW) for f in flows] + [
        ("aggregate", "aggregate", SIDE_BY_SIDE_AGGREGATE)
    ]:
        if prefix != "aggregate":
            groups: list[Cell] = []
            for point in points:
                flow = next((f for f in point["summary"]["flows"] if f.get("name") == owner), None)
                groups.append(None if flow is None else flow_group(flow))
            if any(g not in (None, "-") for g in groups):
                rows.append((owner, "coupling group", groups))
        else:
            mechanisms: list[Cell] = [coupling_text(p["summary"]) for p in points]
            if any(m != "-" for m in mechanisms):
                rows.append((owner, "coupling", mechanisms))
        for label, field, scale in fields:
            cells: list[Cell] = []
            for point in points:
                stats = figures.metric_stats(point, f"{prefix}.{field}")
                runs = int(point["summary"].get("runs") or 1)
                cells.append(None if stats is None else {**{k: v * scale for k, v in stats.items()}, "runs": runs})
            if any(c is not None for c in cells):
                rows.append((owner, label, cells))
    return [_point_label(p) for p in points], rows


def side_by_side_text(cell: Cell) -> str:
    """A side-by-side cell as plain text: ``1.02 ± 0.01`` (``± std`` only over several runs)."""
    if cell is None:
        return "-"
    if isinstance(cell, str):
        return cell
    text = fmt(cell["mean"])
    if cell.get("runs", 1) > 1 and cell.get("std") is not None:
        text += f" ± {fmt(cell['std'], cell['mean'])}"
    return text


def side_by_side_section(results: Mapping[str, Any]) -> str:
    labels, rows = side_by_side_rows(results)
    body = []
    for owner, label, cells in rows:
        body.append(
            [f'<span class="flow">{_e(owner)}</span>', _e(label)]
            + [
                _e(c) if isinstance(c, str)
                else _stats_cell(c["mean"], c["std"], c["min"], c["max"], int(c.get("runs", 1))) if c else "-"
                for c in cells
            ]
        )
    return (
        "<p>Means over each point's runs ± the sample standard deviation [min..max], in the measurement window "
        "(a point of one run: its value).</p>"
        + _table(["flow", "metric", *labels], body, "side", 2)
    )


# ---------------------------------------------------------------- entry points


@dataclass(frozen=True)
class Prepared:
    """A report checked, drawn and rendered in memory, ready to be written: results.json
    (with ``figures[].file``), the figures' PNG bytes by file, report.html's text."""

    out_dir: Path
    results: dict[str, Any]
    pngs: dict[str, bytes]
    page: str


def _check_targets(out_dir: Path) -> None:
    """The files a build writes must be files (or absent), figures/ a folder."""
    for name in (RESULTS_FILE, REPORT_FILE):
        path = out_dir / name
        if path.exists() and not path.is_file():
            raise ReportError(f"{path}: not a file, cannot write it (remove it)")
    figures_dir = out_dir / FIGURES_DIR
    if figures_dir.exists() and not figures_dir.is_dir():
        raise ReportError(f"{figures_dir}: not a folder, cannot write the figures into it (remove it)")
    if out_dir.exists() and not out_dir.is_dir():
        raise ReportError(f"{out_dir}: not a folder")


def prepare(out_dir: Path, results: Optional[dict[str, Any]] = None, *, source: Optional[str] = None) -> Prepared:
    """Reads and checks everything the report of ``out_dir`` needs (its results.json, or
    ``results`` given, whose origin ``source`` names in errors) and draws it; writes
    nothing. ReportError (one line) for any input it cannot use."""
    out_dir = Path(out_dir)
    where = source or str(out_dir / RESULTS_FILE)
    results = load_results(out_dir) if results is None else check_results(results, Path(where))
    _check_targets(out_dir)
    try:
        add_paper_delay_figure(results)
        add_frames_figure(results)
        claims_mod.annotate_claims(results["claims"], results["comparison"])
        drawn = draw_figures(out_dir, results)
        page = render(results, drawn)
    except FlowstateError:
        raise
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as e:
        raise ReportError(f"{where}: unexpected content ({type(e).__name__}: {e})") from None
    return Prepared(out_dir, results, {str(spec["file"]): png for spec, png in drawn}, page)


def _write_atomically(path: Path, data: bytes) -> None:
    """``path`` holds ``data`` or its earlier content, never a part of it."""
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write(prepared: Prepared) -> Path:
    """Writes a prepared report: the figures, results.json, report.html (each file whole);
    removes the figures of an earlier build that were not drawn again. Returns the
    report's path."""
    out_dir = prepared.out_dir
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        if prepared.pngs:
            (out_dir / FIGURES_DIR).mkdir(exist_ok=True)
        for file, png in prepared.pngs.items():
            _write_atomically(out_dir / file, png)
        _remove_stale(out_dir / FIGURES_DIR, {Path(file).name for file in prepared.pngs})
        text = json.dumps(prepared.results, indent=2, ensure_ascii=False) + "\n"
        _write_atomically(out_dir / RESULTS_FILE, text.encode("utf-8"))
        path = out_dir / REPORT_FILE
        _write_atomically(path, prepared.page.encode("utf-8"))
    except OSError as e:
        raise ReportError(f"{getattr(e, 'filename', None) or out_dir}: cannot write: {e.strerror or e}") from None
    return path


def build(out_dir: Path, results: Optional[dict[str, Any]] = None) -> Path:
    """Draws the figures and writes ``out_dir/report.html`` from ``out_dir/results.json``
    (or ``results``), whose ``figures[].file`` it fills in; every input is checked before
    anything is written. Returns the report's path."""
    return write(prepare(out_dir, results))


def build_index(out_root: Path) -> Path:
    """Writes ``out_root/index.html``: one row per reproduction under out_root (a folder
    with results.json), linking its report.html, with its claims tally."""
    out_root = Path(out_root)
    rows = []
    for results_path in sorted(out_root.glob(f"*/{RESULTS_FILE}")):
        folder = results_path.parent
        results = load_results(folder)
        claims = results["claims"]
        holds = sum(1 for c in claims if c.get("status") == "holds")
        fails = sum(1 for c in claims if c.get("status") == "fails")
        off = sum(1 for c in claims if c.get("status") == "holds" and c.get("value_off"))
        link = f"{folder.name}/{REPORT_FILE}"
        if (folder / REPORT_FILE).exists():
            report_cell = f'<a href="{_e(link)}">{_e(results["id"])}</a>'
        else:
            report_cell = _e(results["id"]) + " (no report)"
        status = "holds" if claims and holds == len(claims) else ("fails" if fails else "na")
        rows.append(
            [
                report_cell,
                _e(results.get("title") or ""),
                _e(", ".join(p for p in (references.short(str(results.get("paper"))) if results.get("paper") else "",
                                          str(results.get("reference") or "")) if p)),
                _e(len(results["points"])),
                f'<span class="status {status}">{holds} / {len(claims)} hold</span>' + (f", {fails} fail" if fails else "")
                + (f', <span class="off">{off} off the paper\'s values</span>' if off else ""),
            ]
        )
    if not rows:
        raise ReportError(f"{out_root}: no reproduction found (no */{RESULTS_FILE})")
    body = (
        "<header><h1>flowstate reproductions</h1>"
        f'<p class="ref">{len(rows)} experiments of the catalogue (docs/CATALOGUE.md)</p></header>\n'
        + _table(["experiment", "title", "paper", "points", "claims"], rows, "index", 3)
    )
    path = out_root / INDEX_FILE
    try:
        path.write_text(_page("flowstate reproductions", body), encoding="utf-8")
    except OSError as e:
        raise ReportError(f"{path}: cannot write: {e.strerror or e}") from None
    return path
