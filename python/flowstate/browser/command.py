"""``flowstate browser SCENARIO.toml``: the scenario with real, unmodified Chromium
(its GCC or SCReAM v2, libvpx VP8, dcSCTP data channels) and kernel TCP, through the IP-level
bottleneck between network namespaces (docs/BROWSER.md).

Writes, per run, what ``flowstate run`` writes (summary.json, timeseries.csv, measured
at the bottleneck: python/flowstate/browser/measure.py) plus the bottleneck's
per-packet records (bottleneck-forward.csv / -reverse.csv) and captures (.pcap),
getStats samples, TCP logs and browser.json (versions, set-up, what was ignored);
with ``--runs K`` each run in run-1 .. run-K and the combined summary (mean and
spread) on top; then the report. A run whose SCReAM v2 flow never sent ECT(1) is
repeated (``ENGAGEMENT_RETRIES``), the discarded attempts kept in discarded/.

Needs root, iproute2, /dev/net/tun, and for media or data flows Chromium and the
Python package playwright (``.venv/bin/pip install 'playwright>=1.40'``, the ``browser`` extra); without them: one
line naming what is missing, exit status 2.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, TextIO

from flowstate.browser.plan import COUPLINGS, STACKS, Plan, PlanError, make_plan
from flowstate.cli.exit_status import ExitStatus
from flowstate.output_files import run_dir
from flowstate.browser.topology import DEFAULT_PREFIX, Terminated, TopologyError, check_prefix, preflight

if TYPE_CHECKING:  # pragma: no cover
    from flowstate.browser.run import RealRun

DEFAULT_CHROMIUM = "/usr/bin/chromium"
#: How often a run whose SCReAM v2 flow never sent ECT(1) (Chromium's call stayed on
#: goog_cc) is repeated; after that it is kept as measured. Each discarded attempt is
#: written to discarded/run-K-attempt-J/ and listed in manifest.json and browser.json.
ENGAGEMENT_RETRIES = 2
#: Where the discarded attempts go, inside the output folder.
DISCARDED_DIR = "discarded"


class NotAvailable(Exception):
    """What the command needs is missing on this machine (exit status 2)."""


def add_parser(sub: Any) -> argparse.ArgumentParser:
    from flowstate.cli.argtypes import add_force_option, out_dir
    from flowstate.cli.argtypes import runs as _runs
    from flowstate.cli.argtypes import seconds as _seconds
    from flowstate.cli.argtypes import seed as _seed

    p = sub.add_parser(
        "browser",
        help="run a scenario with real Chromium and kernel TCP through an IP-level bottleneck (root)",
        description="Run SCENARIO with real, unmodified Chromium (gcc and scream-v2 flows: video tracks; sctp flows: data "
        "channels) and kernel TCP (tcp-* flows) between network namespaces, through the IP-level bottleneck "
        "(the scenario's [link]); measure at the bottleneck and write the outputs of 'flowstate run' plus "
        "its records, pcaps and getStats samples.",
    )
    p.add_argument("scenario", metavar="SCENARIO.toml", help="the scenario file")
    p.add_argument("--runs", type=_runs, default=1, metavar="K", help="number of runs (default 1)")
    p.add_argument("--out", type=out_dir, metavar="DIR", help="output folder (default: out/<scenario name>-browser/)")
    p.add_argument("--duration", type=_seconds, metavar="S", help="stop after S seconds (default: the scenario's)")
    p.add_argument("--seed", type=_seed, metavar="N", help="seed of the link's jitter and loss (default: scenario's, else 1)")
    p.add_argument(
        "--stack",
        choices=STACKS,
        default="chromium",
        help="who sends the gcc and sctp flows: real Chromium (default) or flowstate's own testbed endpoints",
    )
    p.add_argument(
        "--coupling",
        choices=COUPLINGS,
        default=None,
        help="couple the call's flows from the sender page: 'web-api' loads js/flowstate-coupling (the Web-API "
        "rule on getStats, maxBitrate caps, paced data channels); default: the scenario's [coupling] mechanism",
    )
    p.add_argument("--chromium", default=DEFAULT_CHROMIUM, metavar="PATH", help=f"the browser (default {DEFAULT_CHROMIUM})")
    p.add_argument(
        "--prefix",
        type=_prefix,
        default=DEFAULT_PREFIX,
        metavar="P",
        help=f"namespace name prefix (default {DEFAULT_PREFIX}: {DEFAULT_PREFIX}-snd, -rtr, -rcv)",
    )
    p.add_argument(
        "--rtc-event-log",
        action="store_true",
        help="keep each Chromium's WebRTC event log (libwebrtc's RTC event log: BWE updates, probes, ALR, RTP "
        "headers) in the run folder as rtc-event-log-sender.log / -receiver.log (flowstate rtclog reads it)",
    )
    p.add_argument("--no-report", action="store_true", help="do not build the report")
    add_force_option(p)
    return p


def _prefix(text: str) -> str:
    try:
        return check_prefix(text)
    except TopologyError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def check_available(plan: Plan, stack: str, chromium: str) -> None:
    """Raise NotAvailable naming the first thing this machine lacks for ``plan``."""
    try:
        preflight()
    except TopologyError as e:
        raise NotAvailable(str(e)) from None
    if stack == "chromium" and (plan.videos or plan.datas):
        if not (os.path.isfile(chromium) and os.access(chromium, os.X_OK)):
            raise NotAvailable(f"--chromium: no browser at {chromium} (install the Debian package 'chromium')")
        if importlib.util.find_spec("playwright") is None:
            raise NotAvailable("needs the Python package playwright: .venv/bin/pip install 'playwright>=1.40' (the browser extra; bash scripts/setup-test.sh installs it)")


def load(
    scenario: str, duration: Optional[float], coupling: Optional[str] = None
) -> tuple[Plan, str, str, dict[str, Any]]:
    """(plan, text, file, parsed document) of a scenario; ScenarioError/PlanError name
    what is wrong."""
    import tomllib

    from flowstate.simulation import check_scenario, load_scenario

    text, file = load_scenario(scenario)
    check_scenario(scenario)
    doc = tomllib.loads(text)
    return make_plan(doc, duration=duration, text=text, file=file, coupling=coupling), text, file, doc


def main(args: argparse.Namespace, stdout: Optional[TextIO] = None, stderr: Optional[TextIO] = None) -> ExitStatus:
    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    try:
        plan, text, file, doc = load(args.scenario, args.duration, getattr(args, "coupling", None))
        if plan.coupling is not None and args.stack != "chromium":
            raise PlanError("--coupling web-api: the Web-API rule runs in the browser page; use --stack chromium")
        if getattr(args, "rtc_event_log", False):
            if args.stack != "chromium":
                raise PlanError("--rtc-event-log: the event log is Chromium's; use --stack chromium")
            if not (plan.videos or plan.datas):
                raise PlanError("--rtc-event-log: the scenario has no gcc or sctp flow, so no browser runs")
        if args.stack != "chromium":
            if plan.scream_v2_videos:
                raise PlanError(
                    f"flows.{plan.scream_v2_videos[0].name}.kind: 'scream-v2' runs in Chromium only (the testbed has "
                    "no SCReAM v2 endpoint); use --stack chromium"
                )
            if (doc.get("browser") or {}).get("field_trials"):
                plan.ignored.append("browser.field_trials")
    except PlanError as e:
        print(f"flowstate: error: {args.scenario}: {e}", file=stderr)
        return ExitStatus.BAD_INPUT
    try:
        check_available(plan, args.stack, args.chromium)
    except NotAvailable as e:
        print(f"flowstate: error: flowstate browser {e}", file=stderr)
        return ExitStatus.BAD_INPUT
    from flowstate import manifest
    from flowstate.browser.run import run_real
    from flowstate.cli.run import out_folder
    from flowstate.output_folder import claim

    seed0 = args.seed if args.seed is not None else int(doc.get("seed", 1))
    folder = Path(args.out) if args.out is not None else out_folder(plan.name + "-browser")
    claim(folder, force=getattr(args, "force", False))
    for field in plan.ignored:
        print(f"flowstate: note: {field} has no effect on an unmodified browser (ignored)", file=stderr)
    with manifest.recording(
        folder,
        kind="browser",
        command=getattr(args, "command_line", None),
        seeds=range(seed0, seed0 + args.runs),
        scenario=doc,
    ) as record:
        discarded: list[dict[str, Any]] = []
        status = _runs(args, plan, text, file, seed0, folder, run_real, stdout, stderr, discarded)
        if discarded:
            record.doc["discarded_runs"] = discarded
        record.status = MANIFEST_STATUS.get(status, manifest.FAILED)
    return status


# The manifest's status of each way `flowstate browser` ends.
MANIFEST_STATUS = {
    ExitStatus.OK: "complete",
    ExitStatus.INTERRUPTED: "interrupted",
    ExitStatus.TERMINATED: "interrupted",
    ExitStatus.FAILED: "failed",
    ExitStatus.BAD_INPUT: "failed",
}


def _runs(
    args: argparse.Namespace,
    plan: Plan,
    text: str,
    file: str,
    seed0: int,
    folder: Path,
    run_real: Any,
    stdout: TextIO,
    stderr: TextIO,
    discarded: Optional[list[dict[str, Any]]] = None,
) -> ExitStatus:
    """The ``--runs`` runs one after the other into ``folder``, then the combined
    outputs and the report. A run whose SCReAM v2 never engaged is repeated (at most
    ENGAGEMENT_RETRIES times); each discarded attempt is written and appended to
    ``discarded``."""
    runs: list["RealRun"] = []
    discarded = discarded if discarded is not None else []
    for k in range(args.runs):
        say = (lambda s: print(s, file=stderr, flush=True))
        if args.runs > 1:
            say(f"flowstate browser: run {k + 1} of {args.runs}")
        this_run: list[dict[str, Any]] = []
        while True:
            try:
                r = run_real(
                    plan, text, file, seed=seed0 + k, stack=args.stack, prefix=args.prefix, chromium=args.chromium,
                    say=say, event_log=getattr(args, "rtc_event_log", False),
                )
            except TopologyError as e:
                print(f"flowstate: error: {e}", file=stderr)
                return ExitStatus.BAD_INPUT
            except Terminated as e:  # during set-up: everything made so far is removed
                print(f"flowstate: {e} during set-up; nothing was measured", file=stderr)
                return ExitStatus.TERMINATED
            if r.interrupted or not r.not_engaged:
                break
            attempt = len(this_run) + 1
            if attempt > ENGAGEMENT_RETRIES:
                say(
                    f"flowstate: warning: run {k + 1}: SCReAM v2 did not engage (no ECT(1)) in {attempt} attempts; "
                    "the last is kept as measured (Chromium's goog_cc)"
                )
                break
            where = f"{DISCARDED_DIR}/{run_dir(k + 1)}-attempt-{attempt}"
            _write_run(r, folder / where)
            this_run.append(
                {"run": k + 1, "attempt": attempt, "seed": seed0 + k, "folder": where,
                 "reason": f"SCReAM v2 did not engage (no ECT(1) from {', '.join(r.not_engaged)})"}
            )
            say(f"flowstate browser: run {k + 1}: SCReAM v2 did not engage (no ECT(1)); repeated")
        if this_run:
            r.setup["discarded_attempts"] = this_run
            discarded.extend(this_run)
        run_folder = folder / run_dir(k + 1) if args.runs > 1 else folder
        _write_run(r, run_folder)
        runs.append(r)
        if r.interrupted:
            print(f"flowstate: the run was cut short ({r.interrupted}); the results cover it up to then", file=stderr)
            break
    return _finish(runs, folder, plan, report=not args.no_report, stdout=stdout, stderr=stderr)


def _write_run(r: "RealRun", folder: Path) -> None:
    from flowstate.simulation import RunResult

    RunResult([r.raw()]).write(folder)
    r.write_extras(folder)


def _finish(runs: list["RealRun"], folder: Path, plan: Plan, *, report: bool, stdout: TextIO, stderr: TextIO) -> ExitStatus:
    from rich.console import Console

    from flowstate.cli.run import aggregate_line, summary_table
    from flowstate.simulation import RunResult

    result = RunResult([r.raw() for r in runs])
    result.write(folder)
    console = Console(file=stdout, width=None if stdout.isatty() else 160)
    console.print(summary_table(result.summary))
    console.print(aggregate_line(result.summary), highlight=False)
    if report:
        path = _report(folder, result.summary, stderr)
        if path is not None:
            console.print(f"report: {path}", highlight=False, soft_wrap=True)
    console.print(f"wrote {folder}", highlight=False, soft_wrap=True)
    if any(r.interrupted == "Ctrl-C" for r in runs):
        return ExitStatus.INTERRUPTED
    if any((r.interrupted or "").startswith("Terminated") for r in runs):
        return ExitStatus.TERMINATED
    if any(r.interrupted for r in runs):
        return ExitStatus.FAILED  # a failure during the run (a browser that crashed or stopped answering)
    return ExitStatus.OK


def _report(folder: Path, summary: dict[str, Any], stderr: TextIO) -> Optional[Path]:
    """results.json, figures and report.html for the run folder (flowstate report's:
    flowstate.report.folder_results, as the testbed's)."""
    from flowstate.cli import report as report_command

    try:
        return report_command.build(folder)
    except Exception as e:  # noqa: BLE001 - the report is optional; the run is written
        print(f"flowstate: note: no report for this run ({e})", file=stderr)
        return None
