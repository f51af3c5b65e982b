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
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Optional, Sequence

from flowstate.errors import FlowstateError
from flowstate.output_files import FIGURES_DIR, INDEX_FILE, REPORT_FILE, RESULTS_FILE, TIMESERIES_FILE
from flowstate.report import figures
from flowstate.catalogue import references

if TYPE_CHECKING:  # pragma: no cover
    import pandas



class ReportError(FlowstateError):
    """An output folder the report cannot be built from (one-line message)."""


# ---------------------------------------------------------------- reading


def load_results(out_dir: Path) -> dict[str, Any]:
    """results.json of ``out_dir``, checked for the fields the report needs."""
    path = Path(out_dir) / RESULTS_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReportError(f"{path}: not found (run 'flowstate reproduce' first)") from None
    except OSError as e:
        raise ReportError(f"{path}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ReportError(f"{path}: not UTF-8 text") from None
    try:
        results = json.loads(text)
    except json.JSONDecodeError as e:
        raise ReportError(f"{path}: not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    if not isinstance(results, dict):
        raise ReportError(f"{path}: expected a JSON object at the top level")
    for key, kind in (("id", str), ("points", list)):
        if not isinstance(results.get(key), kind):
            raise ReportError(f"{path}: field '{key}' missing or not a {'string' if kind is str else 'list'}")
    for key in ("comparison", "claims", "figures", "axes"):
        if not isinstance(results.setdefault(key, []), list):
            raise ReportError(f"{path}: field '{key}' is not a list")
    names = set()
    for i, point in enumerate(results["points"]):
        if not isinstance(point, dict) or not isinstance(point.get("name"), str):
            raise ReportError(f"{path}: points[{i}].name missing")
        if not isinstance(point.get("summary"), dict) or not isinstance(point["summary"].get("flows"), list):
            raise ReportError(f"{path}: points[{i}].summary missing or without 'flows'")
        names.add(point["name"])
    for i, spec in enumerate(results["figures"]):
        if not isinstance(spec, dict) or spec.get("kind") not in figures.KINDS:
            kind = spec.get("kind") if isinstance(spec, dict) else spec
            raise ReportError(f"{path}: figures[{i}].kind: expected one of {', '.join(figures.KINDS)}, got {kind!r}")
        unknown = [p for p in spec.get("points") or [] if p not in names]
        if unknown:
            raise ReportError(f"{path}: figures[{i}].points: no point named {unknown[0]!r}")
    return results


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


class _Series:
    """The points' timeseries.csv, read once each."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self.cache: dict[str, "pandas.DataFrame"] = {}

    def panel(self, point: Mapping[str, Any]) -> figures.Panel:
        import pandas

        name = str(point["name"])
        if name not in self.cache:
            path = self.out_dir / _point_dir(point) / TIMESERIES_FILE
            try:
                frame = pandas.read_csv(path)
            except FileNotFoundError:
                raise ReportError(f"{path}: not found (point {name!r})") from None
            except (OSError, ValueError, pandas.errors.ParserError) as e:
                raise ReportError(f"{path}: cannot read: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
            missing = {"time_s", "flow"} - set(frame.columns)
            if missing:
                raise ReportError(f"{path}: column '{sorted(missing)[0]}' missing")
            self.cache[name] = frame
        return figures.Panel(name, _point_label(point), self.cache[name], _window(point))


# ---------------------------------------------------------------- figures


def _plan(spec: Mapping[str, Any], results: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments of the figure function for ``spec``, checked before anything is
    drawn (FigureError names the key)."""
    kind = spec["kind"]
    args: dict[str, Any] = {"title": spec.get("title")}
    if kind in ("rate", "rtt", "queue", "rtt_box"):
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


DELAY_FIGURE_TITLE = "RTT and queuing delay against the paper (bar: mean, whiskers: min-max)"


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


def draw_figures(out_dir: Path, results: dict[str, Any]) -> list[tuple[Mapping[str, Any], Path]]:
    """Draws every figure of ``results`` into out_dir/figures/<n>-<kind>.png and fills
    in ``figures[].file`` (relative to out_dir). Every figure is checked first."""
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
    drawn = []
    for n, (spec, args) in enumerate(zip(results["figures"], plans)):
        points = [by_name[name] for name in spec.get("points") or by_name]
        draw: Callable[..., Any] = getattr(figures, spec["kind"])
        try:
            if spec["kind"] in ("sweep", "bar"):
                fig = draw(points, **args)
            else:
                fig = draw([series.panel(p) for p in points], **args)
        except figures.FigureError as e:
            raise ReportError(f"{where(n, spec)}: {e}") from None
        file = f"{FIGURES_DIR}/{n + 1}-{spec['kind']}.png"
        figures.save(fig, out_dir / file)
        spec["file"] = file
        drawn.append((spec, out_dir / file))
    _remove_stale(out_dir / FIGURES_DIR, {path.name for _, path in drawn})
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
        ("seeds", _e(f"{seeds[0]}..{seeds[-1]}" if seeds else "-")),
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
                _e(_difference(row.get("ours"), row.get("paper"))),
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


def _claims_section(results: Mapping[str, Any]) -> str:
    rows = []
    for claim in results["claims"]:
        status = str(claim.get("status", "not evaluated"))
        values = claim.get("values") or {}
        value_cell = "<br>".join(f"<code>{_e(k)}</code> = {_e(_value(v))}" for k, v in values.items())
        rows.append(
            [
                _e(claim.get("text", "")),
                f"<code>{_e(claim.get('check', ''))}</code>",
                value_cell or "-",
                f'<span class="status {_STATUS.get(status, "na")}">{_e(status)}</span>',
            ]
        )
    if not rows:
        return "<p>No claims are checked for this experiment.</p>"
    counts = {s: sum(1 for c in results["claims"] if c.get("status") == s) for s in _STATUS}
    summary = (
        f'<p class="tally">{counts["holds"]} of {len(rows)} claims hold, {counts["fails"]} fail, '
        f'{counts["not evaluated"]} not evaluated.</p>'
    )
    return summary + _table(["claim", "check", "values (our means)", "status"], rows, "claims", 4)


def _png_uri(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


_KIND_TEXT = {
    "rate": "throughput per flow over time",
    "rtt": "RTT per flow over time",
    "queue": "queuing delay over time",
    "rtt_box": "RTT distribution per point and flow",
    "sweep": "sweep over a grid axis",
    "bar": "ours against the paper",
}


def _figures_section(drawn: Sequence[tuple[Mapping[str, Any], Path]]) -> str:
    if not drawn:
        return "<p>No figures for this experiment.</p>"
    parts = []
    for n, (spec, path) in enumerate(drawn, start=1):
        caption = spec.get("title") or _KIND_TEXT[spec["kind"]]
        alt = f"Figure {n}: {caption}"
        parts.append(
            f'<figure id="figure-{n}"><img src="{_png_uri(path)}" alt="{_e(alt)}">'
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
    flow_rows, aggregate_rows = [], []
    for point in results["points"]:
        summary = point["summary"]
        runs = int(summary.get("runs") or 1)
        label = _e(_point_label(point))
        for flow in summary["flows"]:
            flow_rows.append(
                [
                    label,
                    f'<span class="flow">{_e(flow.get("name", ""))} '
                    f'<span class="kind">({_e(flow.get("kind", ""))})</span></span>',
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
                _flow_cell(aggregate, runs, "throughput_mbps"),
                _flow_cell(aggregate, runs, "utilization", scale=100),
                _flow_cell(aggregate, runs, "jain_index"),
                _flow_cell(aggregate, runs, "weighted_jain_index"),
                _e(runs),
            ]
        )
    flows = _table(
        ["point", "flow", "throughput (Mbit/s)", "share (%)", "RTT mean (ms)", "RTT p95 (ms)",
         "queuing mean (ms)", "queuing p95 (ms)", "one-way delay p95 (ms)", "jitter (ms)", "loss (%)"],
        flow_rows, "summary", 2,
    )
    aggregate_table = _table(
        ["point", "throughput (Mbit/s)", "utilization (%)", "Jain index", "priority-weighted Jain index", "runs"],
        aggregate_rows, "aggregate", 1
    )
    return (
        "<p>Means over the runs ± the sample standard deviation, in the measurement window.</p>"
        f"<h3>Per flow</h3>\n{flows}\n<h3>Aggregate</h3>\n{aggregate_table}"
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


def render(results: Mapping[str, Any], drawn: Sequence[tuple[Mapping[str, Any], Path]]) -> str:
    """The HTML text of the report: a reproduction's with the paper's finding, the
    comparison and the claims; any other folder's (``flowstate report DIR`` of a run,
    ``flowstate compare``) without them, with the points side by side."""
    rid = str(results["id"])
    title = str(results.get("title") or rid)
    paper = str(results.get("paper") or "")
    reference = ", ".join(
        part for part in (references.cite(paper) if paper else "", str(results.get("reference") or "")) if part
    )
    sections = [
        f"<header><h1>{_e(rid)}: {_e(title)}</h1>",
        f'<p class="ref">{_e(reference)}</p></header>' if reference else "</header>",
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
    return _page(f"{rid}: {title}", "\n".join(sections))


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
)
SIDE_BY_SIDE_AGGREGATE = (
    ("throughput (Mbit/s)", "throughput_mbps", 1.0),
    ("utilization (%)", "utilization", 100.0),
    ("Jain index", "jain_index", 1.0),
    ("priority-weighted Jain index", "weighted_jain_index", 1.0),
)


def side_by_side_rows(results: Mapping[str, Any]) -> tuple[list[str], list[tuple[str, str, list[Optional[dict[str, float]]]]]]:
    """The points' labels and one row per (flow or aggregate, metric): ``(owner, metric
    label, [stats per point])`` (None where a point has no value), scaled for display."""
    points = results["points"]
    flows: list[str] = []
    for point in points:
        for flow in point["summary"]["flows"]:
            if flow.get("name") not in flows:
                flows.append(str(flow.get("name")))
    rows = []
    for owner, prefix, fields in [(f, f"flows.{f}", SIDE_BY_SIDE_FLOW) for f in flows] + [
        ("aggregate", "aggregate", SIDE_BY_SIDE_AGGREGATE)
    ]:
        for label, field, scale in fields:
            cells = []
            for point in points:
                stats = figures.metric_stats(point, f"{prefix}.{field}")
                cells.append(None if stats is None else {k: v * scale for k, v in stats.items()})
            if any(c is not None for c in cells):
                rows.append((owner, label, cells))
    return [_point_label(p) for p in points], rows


def side_by_side_section(results: Mapping[str, Any]) -> str:
    labels, rows = side_by_side_rows(results)
    runs = int(results.get("runs") or 1)
    body = []
    for owner, label, cells in rows:
        body.append(
            [f'<span class="flow">{_e(owner)}</span>', _e(label)]
            + [_stats_cell(c["mean"], c["std"], c["min"], c["max"], runs) if c else "-" for c in cells]
        )
    return (
        "<p>Means over each point's runs ± the sample standard deviation [min..max], in the measurement window.</p>"
        + _table(["flow", "metric", *labels], body, "side", 2)
    )


# ---------------------------------------------------------------- entry points


def _write_json(path: Path, document: Any) -> None:
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def build(out_dir: Path) -> Path:
    """Draws the figures and writes ``out_dir/report.html`` from ``out_dir/results.json``
    (whose ``figures[].file`` it fills in). Returns the report's path."""
    out_dir = Path(out_dir)
    results = load_results(out_dir)
    add_paper_delay_figure(results)
    try:
        drawn = draw_figures(out_dir, results)
        _write_json(out_dir / RESULTS_FILE, results)
        page = render(results, drawn)
        path = out_dir / REPORT_FILE
        path.write_text(page, encoding="utf-8")
    except OSError as e:
        raise ReportError(f"{getattr(e, 'filename', None) or out_dir}: cannot write: {e.strerror or e}") from None
    except (KeyError, TypeError, AttributeError) as e:
        raise ReportError(f"{out_dir / RESULTS_FILE}: unexpected content ({type(e).__name__}: {e})") from None
    return path


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
                f'<span class="status {status}">{holds} / {len(claims)} hold</span>' + (f", {fails} fail" if fails else ""),
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
