"""`flowstate run SCENARIO.toml`: simulate, print the per-flow summary, write the outputs."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, TextIO

from flowstate.cli import argtypes
from flowstate.cli.argtypes import add_force_option
from flowstate.cli.exit_status import ExitStatus
from flowstate.cli.progress_bar import progress_bar
from flowstate.errors import UsageError
from flowstate.simulation import MAX_SEED, RunResult, check_scenario, load_scenario
from flowstate.simulation import run as run_scenario

DEFAULT_OUT_ROOT = Path("out")
# Rows of the printed per-flow table; the rest are counted in its caption. Rendering a
# rich table costs ~1 ms a row, longer than simulating 1,000 flows for 10 s
# (docs/BENCHMARKS.md, "Scaling"); summary.json has every flow.
MAX_TABLE_FLOWS = 40


def out_folder(scenario_name: str) -> Path:
    """``out/<scenario name>/``, the name made safe for a folder name."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", scenario_name).strip("._") or "scenario"
    return DEFAULT_OUT_ROOT / safe


def _num(value: Optional[float], spread: Optional[dict[str, float]] = None, digits: int = 3) -> str:
    """``1.234`` or, with a spread over several runs, ``1.234 ± 0.010`` (std); ``-``: no value."""
    if value is None:
        return "-"
    text = f"{value:.{digits}f}"
    if spread is not None:
        text += f" ± {spread['std']:.{digits}f}"
    return text


def _pct(value: Optional[float], spread: Optional[dict[str, float]] = None) -> str:
    if value is None:
        return "-"
    return _num(value * 100, {"std": spread["std"] * 100} if spread else None, 1)


def flow_group(flow: dict[str, Any]) -> str:
    """A flow's coupling group as the tables show it: its name, or "-" when the flow is
    not coupled (summary.json ``group`` null) and "?" for a summary that predates the
    field."""
    if "group" not in flow:
        return "?"
    return str(flow["group"]) if flow["group"] is not None else "-"


def print_warnings(summary: dict[str, Any], stream: TextIO) -> None:
    """The scenario's warnings (summary.json ``warnings``), one ``flowstate: warning:``
    line each."""
    for warning in summary.get("warnings") or []:
        print(f"flowstate: warning: {warning}", file=stream)


def summary_table(summary: dict[str, Any], max_flows: Optional[int] = MAX_TABLE_FLOWS) -> Any:
    """The rich table of a batch summary: one row per flow, the first ``max_flows``
    (None: all) and a caption counting the others."""
    from rich.table import Table

    several = summary.get("runs", 1) > 1
    seeds = summary.get("seeds", [summary.get("seed")])
    window = summary.get("window_s", [0, summary.get("duration_s", 0)])
    runs = f"mean ± std over {len(seeds)} runs, seeds {seeds[0]}..{seeds[-1]}" if several else f"seed {seeds[0]}"
    flows = summary["flows"]
    shown = flows if max_flows is None else flows[:max_flows]
    hidden = len(flows) - len(shown)
    coupling = summary.get("coupling") or {}
    mechanism = f", coupling {coupling['mechanism']}" if coupling.get("mechanism") else ""
    if coupling.get("groups_mode") == "sbd":
        mechanism += " (groups from SBD)"
    table = Table(
        title=f"{summary['scenario']}: window {window[0]:g}-{window[1]:g} s, {runs}{mechanism}",
        title_justify="left",
        caption=f"... and {hidden} more flows (every flow is in summary.json)" if hidden else None,
        caption_justify="left",
    )
    for header, justify in (
        ("flow", "left"),
        ("kind", "left"),
        ("group", "left"),
        ("throughput\nMbit/s", "right"),
        ("share\n% (prio %)", "right"),
        ("RTT mean\nms", "right"),
        ("RTT p95\nms", "right"),
        ("queuing p50\nms", "right"),
        ("queuing p95\nms", "right"),
        ("loss\n%", "right"),
    ):
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    # The receiver's video quality (summary.json flows[].video), when a flow has one.
    with_video = any(flow.get("video") for flow in shown)
    if with_video:
        table.add_column("fps", justify="right")
        table.add_column("freezes", justify="right")
    for flow in shown:
        spread = flow.get("spread", {}) if several else {}

        def s(*path: str, _spread: dict[str, Any] = spread) -> Optional[dict[str, float]]:
            node: Any = _spread
            for key in path:
                node = node.get(key) if isinstance(node, dict) else None
            return node

        rtt, qd = flow.get("rtt_ms") or {}, flow.get("queuing_delay_ms") or {}
        table.add_row(
            flow["name"],
            flow["kind"],
            flow_group(flow),
            _num(flow.get("throughput_mbps"), s("throughput_mbps")),
            f"{_pct(flow.get('share'), s('share'))} ({_pct(flow.get('priority_share'))})",
            _num(rtt.get("mean"), s("rtt_ms", "mean"), 1),
            _num(rtt.get("p95"), s("rtt_ms", "p95"), 1),
            _num(qd.get("p50"), s("queuing_delay_ms", "p50"), 1),
            _num(qd.get("p95"), s("queuing_delay_ms", "p95"), 1),
            _pct(flow.get("loss_ratio"), s("loss_ratio")),
            *(_video_cells(flow.get("video") or {}, s) if with_video else ()),
        )
    return table


def _video_cells(video: dict[str, Any], s: Callable[..., Optional[dict[str, float]]]) -> tuple[str, str]:
    """A flow's ``fps`` and ``freezes`` cells (``-`` for a flow without video)."""
    freezes = s("video", "freezes")
    return _num(video.get("fps"), s("video", "fps"), 1), _num(video.get("freezes"), freezes, 0 if freezes is None else 1)


def aggregate_line(summary: dict[str, Any]) -> str:
    agg = summary["aggregate"]
    spread = agg.get("spread", {}) if summary.get("runs", 1) > 1 else {}
    return (
        f"aggregate: throughput {_num(agg.get('throughput_mbps'), spread.get('throughput_mbps'))} Mbit/s, "
        f"utilization {_pct(agg.get('utilization'), spread.get('utilization'))} %, "
        f"Jain index {_num(agg.get('jain_index'), spread.get('jain_index'))}, "
        f"priority-weighted {_num(agg.get('weighted_jain_index'), spread.get('weighted_jain_index'))}"
    )


def links_table(summary: dict[str, Any]) -> Any:
    """The rich table of the per-link summary (``links`` of summary.json): one row per
    link; None when the summary has none (the testbed, a browser run)."""
    from rich.table import Table

    links = summary.get("links") or []
    if not links:
        return None
    several = summary.get("runs", 1) > 1
    # A link with a queue discipline (``links[].queue``): its drops and marks by reason.
    aqm = any(link.get("queue") for link in links)
    table = Table(title="links", title_justify="left")
    headers = [
        "link",
        "capacity\nMbit/s",
        "throughput\nMbit/s",
        "utilization\n%",
        "queuing mean\nms",
        "queuing p95\nms",
        "max queue\nkB",
        "drops",
        "lost",
    ]
    if aqm:
        headers[1:1] = ["queue"]
        headers += ["AQM drops", "CE marks\nAQM", "CE marks\nstep"]
    for header in headers:
        table.add_column(header, justify="left" if header in ("link", "queue") else "right")
    for link in links:
        spread = link.get("spread", {}) if several else {}
        qd = link.get("queuing_delay_ms") or {}
        queue = link.get("max_queue_bytes")
        q = link.get("queue") or {}
        qs = spread.get("queue") or {}
        extra = (
            [
                _num(q.get("aqm_drops"), qs.get("aqm_drops"), 0),
                _num(q.get("aqm_marks"), qs.get("aqm_marks"), 0),
                _num(q.get("step_marks"), qs.get("step_marks"), 0),
            ]
            if aqm
            else []
        )
        table.add_row(
            link["name"],
            *([q.get("discipline", "drop-tail")] if aqm else []),
            _num(link.get("capacity_mbps")),
            _num(link.get("throughput_mbps"), spread.get("throughput_mbps")),
            _pct(link.get("utilization"), spread.get("utilization")),
            _num(qd.get("mean"), (spread.get("queuing_delay_ms") or {}).get("mean"), 1),
            _num(qd.get("p95"), (spread.get("queuing_delay_ms") or {}).get("p95"), 1),
            _num(queue / 1000 if queue is not None else None, None, 1),
            _num(link.get("dropped_packets"), spread.get("dropped_packets"), 0),
            _num(link.get("lost_packets"), spread.get("lost_packets"), 0),
            *extra,
        )
    return table


def with_sets(scenario: str, sets: Sequence[str], unsets: Sequence[str] = ()) -> dict[str, Any]:
    """The scenario file as a dict with every ``--unset PATH`` removed, then every
    ``--set PATH=VALUE`` applied in order; the sweep's parser
    (flowstate.sweep.spec.parse_set_flag) reads each flag, so paths and values mean what
    they mean in ``flowstate sweep`` (one value each here). A relative trace file given
    with ``--set`` is read from the current folder, one written in the file from the
    file's folder."""
    from flowstate.overrides import PathError, load_toml, with_changes
    from flowstate.sweep.spec import parse_set_flag, split_set_flag

    overrides: dict[str, Any] = {}
    for text in sets:
        name, _, _ = split_set_flag(text)
        if name is not None:
            raise UsageError(f"--set {text}: an axis name ({name}:) is for 'flowstate sweep'; give PATH=VALUE")
        axis = parse_set_flag(text)
        if len(axis.values) != 1:
            raise UsageError(f"--set {text}: 'flowstate run' takes one value per path (several: 'flowstate sweep')")
        overrides[axis.key] = axis.values[0]
    try:
        return with_changes(load_toml(scenario), overrides, unsets)
    except PathError as e:
        raise UsageError(f"{scenario}: {e}") from None


def _run_with_progress(
    simulate: Callable[[Optional[Callable[[int, int], None]]], RunResult], runs: int, stream: TextIO
) -> RunResult:
    """Runs ``simulate(progress)``, with a progress bar (one tick per finished run) when
    ``stream`` is a terminal."""
    with progress_bar(stream, "simulating", runs, eta=False) as update:
        return simulate(update)


def main(
    scenario: str,
    *,
    seed: Optional[int] = None,
    runs: int = 1,
    out: Optional[str] = None,
    threads: Optional[int] = None,
    sets: Sequence[str] = (),
    unsets: Sequence[str] = (),
    force: bool = False,
    command: Optional[Sequence[str]] = None,
    stdout: Optional[TextIO] = None,
    stderr: Optional[TextIO] = None,
) -> RunResult:
    """Runs ``scenario`` and writes its outputs and manifest.json into ``out`` (default
    out/<scenario name>/), which must be absent or empty unless ``force``
    (flowstate.output_folder). ``command``: the argv the manifest records."""
    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    from rich.console import Console

    from flowstate import manifest
    from flowstate.output_folder import claim
    from flowstate.overrides import load_toml

    # Read it first, so that a missing file is reported before any work.
    load_scenario(scenario)
    changed = bool(sets or unsets)
    source: Any = with_sets(scenario, sets, unsets) if changed else scenario
    check_scenario(source, name=scenario)  # errors name the file, before any work
    resolved = source if changed else load_toml(scenario)
    folder = Path(out) if out is not None else out_folder(str(resolved.get("name") or Path(scenario).stem))
    claim(folder, force=force)
    first = seed if seed is not None else scenario_seed(resolved)
    if first + runs - 1 > MAX_SEED:
        raise UsageError(
            f"seeds {first} .. {first} + {runs} runs - 1 overflow 2^64 - 1: give a smaller --seed or fewer --runs"
        )
    with manifest.recording(
        folder,
        kind="run",
        command=command,
        seeds=range(first, first + runs),
        scenario=resolved,
        sets=sets,
        unsets=unsets,
    ) as record:
        result = _run_with_progress(
            lambda progress: run_scenario(source, seed=seed, runs=runs, threads=threads, progress=progress, name=scenario),
            runs,
            stderr,
        )
        record.doc["seeds"] = [int(s) for s in result.seeds]
        print_warnings(result.summary, stderr)
        summary_path, series_path = result.write(folder)
    console = Console(file=stdout, width=None if stdout.isatty() else 160)
    console.print(summary_table(result.summary))
    console.print(aggregate_line(result.summary), highlight=False)
    links = links_table(result.summary)
    if links is not None:
        console.print(links)
    from flowstate.output_files import LINKS_TIMESERIES_FILE

    links_csv = folder / LINKS_TIMESERIES_FILE
    links_note = f" (per link: {links_csv})" if links_csv.exists() else ""
    console.print(f"wrote {summary_path} and {series_path}{links_note}", highlight=False, soft_wrap=True)
    return result


def scenario_seed(scenario: dict[str, Any]) -> int:
    """The scenario's ``seed`` (the runs' first seed without ``--seed``), else 1."""
    value = scenario.get("seed", 1)
    return value if isinstance(value, int) and not isinstance(value, bool) else 1


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "run",
        help="simulate a scenario file and print the per-flow summary",
        description="Simulate SCENARIO (TOML, see docs/SCENARIOS.md) for seeds N .. N+K-1 and write "
        "summary.json and timeseries.csv into DIR.",
    )
    p.add_argument("scenario", metavar="SCENARIO.toml", help="the scenario file")
    p.add_argument(
        "--seed", type=argtypes.seed, metavar="N", help="first seed (default: the scenario's seed, else 1)"
    )
    p.add_argument("--runs", type=argtypes.runs, default=1, metavar="K", help="number of runs (default 1)")
    p.add_argument(
        "--out", type=argtypes.out_dir, metavar="DIR", help="output folder (default: out/<scenario name>/)"
    )
    p.add_argument(
        "--threads", type=argtypes.positive, metavar="T", help="worker threads (default: one per core)"
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        help="set a value inside the scenario before running, with the sweep's path syntax; the value "
        "is TOML (a number, boolean, string, [array] or {inline table}), other text a string "
        "(repeatable; e.g. coupling.mechanism=fsev2, link.capacity=4Mbps, flows.sctp.priority=0.5, "
        "flows[1].overrides.mtu=1200B, 'coupling.options={cwnd_rtt=\"minimum\"}'; docs/SCENARIOS.md)",
    )
    p.add_argument(
        "--unset",
        action="append",
        default=[],
        metavar="PATH",
        help="remove this key (or flow, or array element) of the scenario before the --set values apply "
        "(repeatable; e.g. --unset link.capacity --set 'link.capacity_schedule=[{at=\"0s\",rate=\"1Mbps\"}]')",
    )
    add_force_option(p)
    return p


def run(args: argparse.Namespace) -> ExitStatus:
    main(
        args.scenario,
        seed=args.seed,
        runs=args.runs,
        out=args.out,
        threads=args.threads,
        sets=args.set,
        unsets=args.unset,
        force=args.force,
        command=getattr(args, "command_line", None),
    )
    return ExitStatus.OK
