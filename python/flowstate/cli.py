"""The `flowstate` command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, NoReturn, Optional, Sequence

from flowstate import CouplingError, ScenarioError
from flowstate import __version__
from flowstate.simulation import MAX_RUNS, MAX_SEED, check_out_folder


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit status 2), as the CLI contract requires."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"flowstate: error: {message} (see 'flowstate --help')\n")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="flowstate", description="Coupled congestion control for WebRTC media and data.")
    parser.add_argument("--version", action="version", version=f"flowstate {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    demo = sub.add_parser("demo", help="show what each coupling mechanism does with scripted controller reports")
    demo.add_argument(
        "--mechanism",
        action="append",
        type=_demo_mechanism,
        help="limit the demo to this mechanism (repeatable; default: all three that couple media and data)",
    )
    run = sub.add_parser(
        "run",
        help="simulate a scenario file and print the per-flow summary",
        description="Simulate SCENARIO (TOML, see docs/SCENARIOS.md) for seeds N .. N+K-1 and write "
        "summary.json and timeseries.csv into DIR.",
    )
    run.add_argument("scenario", metavar="SCENARIO.toml", help="the scenario file")
    run.add_argument(
        "--seed", type=_seed, metavar="N", help="first seed (default: the scenario's seed, else 1)"
    )
    run.add_argument("--runs", type=_runs, default=1, metavar="K", help="number of runs (default 1)")
    run.add_argument(
        "--out", type=out_dir, metavar="DIR", help="output folder (default: out/<scenario name>/)"
    )
    run.add_argument(
        "--threads", type=_positive, metavar="T", help="worker threads (default: one per core)"
    )
    run.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        help="set a value inside the scenario before running, with the sweep's path syntax "
        "(repeatable; e.g. coupling.mechanism=fsev2, link.capacity=4Mbps, flows.sctp.priority=0.5, "
        "flows[1].overrides.mtu=1200B; docs/SWEEPS.md)",
    )
    lst = sub.add_parser(
        "list",
        help="list the experiments of the catalogue",
        description="List every experiment of the catalogue (scenarios/*/experiment.toml, docs/CATALOGUE.md) "
        "with a one-line description; every entry is checked.",
    )
    _catalogue_option(lst)
    rep = sub.add_parser(
        "reproduce",
        help="reproduce experiments of the catalogue: comparison table, claims, report",
        description="Run every point of the experiments ID... (or --all) for K seeds, write the points' "
        "summary.json and timeseries.csv, results.json and the report into DIR, and print the comparison "
        "with the paper and the paper's claims.",
    )
    rep.add_argument("ids", nargs="*", metavar="ID", help="experiment ids (see 'flowstate list')")
    rep.add_argument("--all", action="store_true", help="every experiment of the catalogue")
    rep.add_argument("--runs", type=_runs, metavar="K", help="runs per point (default: the entry's runs)")
    rep.add_argument(
        "--out", type=out_dir, metavar="DIR", help="output folder (default out/<id>; with several ids DIR/<id>)"
    )
    rep.add_argument("--seed", type=_seed, metavar="S", help="first seed (default 1)")
    rep.add_argument("--short", action="store_true", help="the entry's short version (CI): [short] runs and set")
    rep.add_argument("--jobs", type=_positive, metavar="N", help="parallel runs (default: one per core)")
    rep.add_argument("--no-report", action="store_true", help="do not build report.html")
    rep.add_argument("--check", action="store_true", help="exit status 1 when a claim fails")
    _catalogue_option(rep)
    from flowstate import sweep_command  # `flowstate sweep` (docs/SWEEPS.md)

    sweep_command.add_parser(sub)
    rep = sub.add_parser(
        "report",
        help="figures and report.html of any output folder (run, --runs batch, testbed, browser, reproduction, sweep)",
        description="Draw OUT_DIR/figures/*.png and write OUT_DIR/report.html. OUT_DIR is any output folder: "
        "a reproduction's (from its results.json; for a folder of reproductions: each one's report and "
        "OUT_DIR/index.html), or a 'flowstate run' (one run or --runs K), testbed, browser or sweep folder, "
        "for which a results.json without the paper's columns is written first.",
    )
    rep.add_argument("out_dir", metavar="OUT_DIR", help="an output folder of flowstate")
    cmp_ = sub.add_parser(
        "compare",
        help="output folders side by side: table, overlaid time series, bars per flow",
        description="Compare output folders (anything 'flowstate report' reads): a side-by-side table of every "
        "flow's throughput, share, RTT, queuing delay and loss and the aggregate, time series overlaid (one "
        "panel per flow, one line per folder: the mean over its runs with a min-max band), bars per flow, in "
        "OUT/results.json and OUT/report.html. E.g. two 'flowstate run --set' variants of one scenario.",
    )
    cmp_.add_argument("dirs", nargs="+", metavar="DIR", help="output folders (two or more)")
    cmp_.add_argument("--out", type=out_dir, help="output folder (default: out/compare-A-vs-B)")
    _add_testbed(sub)
    from flowstate.browser import command as browser_command  # `flowstate browser` (docs/BROWSER.md)

    browser_command.add_parser(sub)
    return parser


def _add_testbed(sub: Any) -> None:
    tb = sub.add_parser(
        "testbed",
        help="run a scenario in real time over UDP sockets (real RTP/RTCP/SCTP packets)",
        description="Run SCENARIO in real time: the simulator's endpoints over loopback UDP through a "
        "flowstate-emu bottleneck emulator; writes summary.json, timeseries.csv, sender.pcap, receiver.pcap.",
    )
    tb.add_argument("scenario", metavar="SCENARIO.toml", help="the scenario file")
    tb.add_argument("--duration", type=_seconds, metavar="S", help="stop after S seconds (default: the scenario's)")
    tb.add_argument("--out", type=out_dir, metavar="DIR", help="output folder (default: out/<scenario name>-testbed/)")
    tb.add_argument("--seed", type=_seed, metavar="N", help="seed (default: the scenario's, else 1)")
    tb.add_argument("--no-report", action="store_true", help="do not build the report")
    tb.add_argument(
        "--netns",
        nargs=2,
        metavar=("SENDER=IP", "RECEIVER=IP"),
        help="bind each side in a network namespace (ip netns name = address; needs root) and let the "
        "host's path between them be the bottleneck instead of the emulator ('flowstate browser --stack "
        "flowstate' builds such a path with the IP-level bottleneck and kernel TCP)",
    )


def _demo_mechanism(text: str) -> str:
    """A mechanism the demo shows, in any spelling the core reads (``FSEv2``, ``fse_ng``)."""
    from flowstate import _native
    from flowstate.demo import WINDOW_MECHANISMS

    name = _native.mechanism_name(text)
    if name not in WINDOW_MECHANISMS:
        raise argparse.ArgumentTypeError(
            f"expected one of {', '.join(WINDOW_MECHANISMS)} (any case, or as printed: FSEv2, FSE-NG), got '{text}'"
        )
    return name


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds > 0, got '{text}'") from None
    if not (value > 0 and value < float("inf")):
        raise argparse.ArgumentTypeError(f"expected seconds > 0, got '{text}'")
    return value


def out_dir(text: str) -> str:
    """An ``--out`` folder: not empty, and neither it nor an existing parent a file
    (mkdir would fail with a bare "[Errno 17] File exists" after the work is done)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected an output folder, got an empty path '{text}'")
    try:
        check_out_folder(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _catalogue_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--catalogue",
        metavar="DIR",
        help="the catalogue folder (default: $FLOWSTATE_CATALOGUE, else the source tree's scenarios/)",
    )


def _integer(text: str, minimum: int, what: str, maximum: int = MAX_SEED) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got '{text}'") from None
    if value < minimum or value > maximum:
        raise argparse.ArgumentTypeError(f"expected {what}, got {value}")
    return value


def _seed(text: str) -> int:
    return _integer(text, 0, "an integer in [0, 2^64 - 1]")


def _positive(text: str) -> int:
    return _integer(text, 1, "an integer >= 1")


def _runs(text: str) -> int:
    return _integer(text, 1, f"an integer in [1, {MAX_RUNS}]", MAX_RUNS)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _build_parser().parse_args(argv)
    try:
        if args.command == "demo":
            from flowstate import demo

            demo.main(args.mechanism or demo.WINDOW_MECHANISMS)
        elif args.command == "run":
            from flowstate import run_command

            run_command.main(
                args.scenario, seed=args.seed, runs=args.runs, out=args.out, threads=args.threads, sets=args.set
            )
        elif args.command == "testbed":
            from flowstate import testbed_command

            netns = testbed_command.parse_netns(*args.netns) if args.netns else None
            testbed_command.main(
                args.scenario,
                seed=args.seed,
                duration=args.duration,
                out=args.out,
                report=not args.no_report,
                netns=netns,
            )
        elif args.command == "list":
            from flowstate import reproduce_command

            reproduce_command.list_main(args.catalogue)
        elif args.command == "reproduce":
            from flowstate import reproduce_command

            return reproduce_command.main(
                args.ids,
                all_=args.all,
                runs=args.runs,
                out=args.out,
                seed=args.seed,
                short=args.short,
                jobs=args.jobs,
                no_report=args.no_report,
                check=args.check,
                catalogue_dir=args.catalogue,
            )
        elif args.command == "sweep":
            from flowstate import sweep_command

            sweep_command.main(args)
        elif args.command == "report":
            from flowstate import report_command

            report_command.main(args.out_dir)
        elif args.command == "compare":
            from flowstate import compare_command

            if len(args.dirs) < 2:
                raise ValueError("compare: give at least two output folders")
            compare_command.main(args.dirs, out=args.out)
        elif args.command == "browser":
            from flowstate.browser import command as browser_command

            return browser_command.main(args)
        return 0
    except (CouplingError, ScenarioError, ValueError) as e:  # bad input (also: seed + runs overflow)
        print(f"flowstate: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # the output folder cannot be written
        print(f"flowstate: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("flowstate: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
