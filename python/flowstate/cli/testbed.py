"""`flowstate testbed SCENARIO.toml`: run a scenario in real time over UDP sockets.

The same sans-I/O endpoints as the simulator exchange real RTP/RTCP and SCTP-over-UDP
packets through the flowstate-emu bottleneck emulator on loopback
(crates/flowstate-testbed). The
outputs have the shape of `flowstate run`'s (summary.json, timeseries.csv), plus
sender.pcap and receiver.pcap and testbed.json (datagram counters). Ctrl-C ends the
run early; what it measured is still written.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Optional, Sequence, TextIO

from flowstate import _native
from flowstate.cli import argtypes
from flowstate.cli.exit_status import ExitStatus
from flowstate.errors import UsageError
from flowstate.output_files import RECEIVER_PCAP, SENDER_PCAP, TESTBED_FILE
from flowstate.simulation import RunResult, load_scenario



class TestbedResult(RunResult):
    """A :class:`RunResult` (one run) with the testbed's own outputs: ``interrupted``,
    ``sender_pcap`` / ``receiver_pcap`` (bytes), ``counters`` (datagram counters of
    both sides, the bottleneck's drops and ECN marks, SCTP transfer counters) and
    ``bottleneck_records`` (the emulator's per-packet records)."""

    __test__ = False  # not a pytest class

    def __init__(self, raw: dict[str, Any]) -> None:
        super().__init__([raw])
        self.interrupted: bool = bool(raw["interrupted"])
        self.sender_pcap: bytes = raw["sender_pcap"]
        self.receiver_pcap: bytes = raw["receiver_pcap"]
        self.counters: dict[str, Any] = {
            k: raw[k] for k in ("sender", "receiver", "bottleneck", "sctp")
        }
        self.counters["interrupted"] = self.interrupted
        # The emulator's per-packet records (not written to testbed.json: one row per
        # datagram): {"forward": columns, "reverse": columns}, empty with direct / netns.
        self.bottleneck_records: dict[str, dict[str, list]] = raw.get("bottleneck_records", {})

    def write_all(self, out: Path) -> list[Path]:
        """summary.json, timeseries.csv, the pcaps and testbed.json into ``out``."""
        paths = list(self.write(out))
        for name, data in ((SENDER_PCAP, self.sender_pcap), (RECEIVER_PCAP, self.receiver_pcap)):
            (out / name).write_bytes(data)
            paths.append(out / name)
        (out / TESTBED_FILE).write_text(json.dumps(self.counters, indent=2) + "\n", encoding="utf-8")
        paths.append(out / TESTBED_FILE)
        return paths


def testbed(
    scenario: Any,
    *,
    seed: Optional[int] = None,
    duration: Optional[float] = None,
    direct: bool = False,
    netns: Optional[tuple[tuple[str, str], tuple[str, str]]] = None,
) -> TestbedResult:
    """Runs ``scenario`` (a TOML path or a dict) in real time. Raises ScenarioError for a
    scenario that cannot be read, parsed or run on the testbed.

    ``netns = ((sender_ns, sender_ip), (receiver_ns, receiver_ip))`` binds each side's
    socket in its own network namespace (``ip netns`` names, needs root); the host's
    path between the namespaces carries the packets instead of the emulator, so the
    scenario's ``[link]`` is not applied (``flowstate browser --stack flowstate``
    builds such a path: the IP-level bottleneck in a router namespace, kernel TCP)."""
    text, file = load_scenario(scenario)
    return TestbedResult(_native.testbed(text, file, seed=seed, duration=duration, direct=direct, netns=netns))


def parse_netns(sender: str, receiver: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """``NAME=IP`` twice (``--netns``) as the ``netns`` argument of :func:`testbed`;
    ValueError names the malformed one."""
    sides = []
    for what, text in (("sender", sender), ("receiver", receiver)):
        name, sep, ip = text.partition("=")
        if not sep or not name or not ip:
            raise UsageError(f"--netns: the {what} side must be NAME=IP, got '{text}'")
        sides.append((name, ip))
    return (sides[0], sides[1])


def _report(out: Path, stderr: TextIO) -> Optional[Path]:
    """results.json, figures and report.html of the run folder (flowstate report's:
    flowstate.report.folder_results)."""
    from flowstate.cli import report as report_command

    try:
        return report_command.build(out)
    except Exception as e:  # noqa: BLE001 - the report is optional; the run is written
        print(f"flowstate: note: no report for this run ({e})", file=stderr)
        return None


def main(
    scenario: str,
    *,
    seed: Optional[int] = None,
    duration: Optional[float] = None,
    out: Optional[str] = None,
    report: bool = True,
    netns: Optional[tuple[tuple[str, str], tuple[str, str]]] = None,
    force: bool = False,
    command: Optional[Sequence[str]] = None,
    stdout: Optional[TextIO] = None,
    stderr: Optional[TextIO] = None,
) -> TestbedResult:
    """Runs ``scenario`` in real time and writes its outputs and manifest.json into
    ``out`` (default out/<scenario name>-testbed/), which must be absent or empty unless
    ``force`` (flowstate.output_folder)."""
    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    from rich.console import Console

    from flowstate import manifest
    from flowstate.cli.run import aggregate_line, out_folder, scenario_seed, summary_table
    from flowstate.output_folder import claim
    from flowstate.overrides import load_toml

    load_scenario(scenario)  # a missing file is reported before any work
    resolved = load_toml(scenario)
    folder = Path(out) if out is not None else out_folder(str(resolved.get("name") or Path(scenario).stem) + "-testbed")
    claim(folder, force=force)
    first = seed if seed is not None else scenario_seed(resolved)
    print("flowstate: running in real time (Ctrl-C stops early and keeps the results)", file=stdout, flush=True)
    with manifest.recording(folder, kind="testbed", command=command, seeds=[first], scenario=resolved) as record:
        result = testbed(scenario, seed=seed, duration=duration, netns=netns)
        record.doc["seeds"] = [int(s) for s in result.seeds]
        paths = result.write_all(folder)
        report_path = _report(folder, stderr) if report else None
        if result.interrupted:  # Ctrl-C: the results cover the run up to then
            record.status = manifest.INTERRUPTED
    console = Console(file=stdout, width=None if stdout.isatty() else 160)
    console.print(summary_table(result.summary))
    console.print(aggregate_line(result.summary), highlight=False)
    if result.interrupted:
        console.print("interrupted: the results cover the run up to Ctrl-C", highlight=False)
    console.print(f"wrote {', '.join(str(p) for p in paths)}", highlight=False, soft_wrap=True)
    if report_path is not None:
        console.print(f"report: {report_path}", highlight=False, soft_wrap=True)
    return result


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "testbed",
        help="run a scenario in real time over UDP sockets (real RTP/RTCP/SCTP packets)",
        description="Run SCENARIO in real time: the simulator's endpoints over loopback UDP through a "
        "flowstate-emu bottleneck emulator; writes summary.json, timeseries.csv, sender.pcap, receiver.pcap.",
    )
    p.add_argument("scenario", metavar="SCENARIO.toml", help="the scenario file")
    p.add_argument("--duration", type=argtypes.seconds, metavar="S", help="stop after S seconds (default: the scenario's)")
    p.add_argument("--out", type=argtypes.out_dir, metavar="DIR", help="output folder (default: out/<scenario name>-testbed/)")
    p.add_argument("--seed", type=argtypes.seed, metavar="N", help="seed (default: the scenario's, else 1)")
    p.add_argument("--no-report", action="store_true", help="do not build the report")
    p.add_argument(
        "--netns",
        nargs=2,
        metavar=("SENDER=IP", "RECEIVER=IP"),
        help="bind each side in a network namespace (ip netns name = address; needs root) and let the "
        "host's path between them be the bottleneck instead of the emulator ('flowstate browser --stack "
        "flowstate' builds such a path with the IP-level bottleneck and kernel TCP)",
    )
    argtypes.add_force_option(p)
    return p


def run(args: argparse.Namespace) -> ExitStatus:
    netns = parse_netns(*args.netns) if args.netns else None
    main(
        args.scenario,
        seed=args.seed,
        duration=args.duration,
        out=args.out,
        report=not args.no_report,
        netns=netns,
        force=args.force,
        command=getattr(args, "command_line", None),
    )
    return ExitStatus.OK
