"""`flowstate rtclog FILE [--csv KIND]`: what a Chromium RTC event log holds (the files
`flowstate browser --rtc-event-log` writes; flowstate.rtclog reads them)."""

from __future__ import annotations

import argparse
import csv
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any, Optional, TextIO

from flowstate.cli.exit_status import ExitStatus
from flowstate.rtclog import KINDS, read


def summary(path: Path, stdout: TextIO) -> None:
    """How many events of each kind the log holds, over which seconds from its start."""
    log = read(path)
    print(f"{path}: began {log.begin_unix_s:.3f} (Unix s)", file=stdout)
    for kind in KINDS:
        xs = getattr(log, kind)
        span = f", {xs[0].unix_s - log.begin_unix_s:.1f}-{xs[-1].unix_s - log.begin_unix_s:.1f} s" if xs else ""
        print(f"  {kind}: {len(xs)}{span}", file=stdout)


def write_csv(kind: str, path: Path, stdout: TextIO) -> None:
    """Every event of ``kind`` as CSV, a header of the event's fields first (nothing when
    the log has none)."""
    xs = getattr(read(path), kind)
    w = csv.writer(stdout, lineterminator="\n")
    if not xs:
        return
    names = [f.name for f in fields(xs[0])]
    w.writerow(names)
    for x in xs:
        w.writerow([getattr(x, n) for n in names])


def main(file: Path, kind: Optional[str] = None, *, stdout: Optional[TextIO] = None) -> None:
    """The summary of ``file``, or with ``kind`` its events of that kind as CSV; raises
    flowstate.rtclog.EventLogError (one line) for a file that is not a readable log."""
    stdout = stdout if stdout is not None else sys.stdout
    if kind is None:
        summary(file, stdout)
    else:
        write_csv(kind, file, stdout)


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "rtclog",
        help="what a Chromium RTC event log holds (flowstate browser --rtc-event-log)",
        description="Read a Chromium RTC event log (libwebrtc's rtc_event_log2 format, as flowstate browser "
        "--rtc-event-log writes rtc-event-log-sender.log and -receiver.log): how many events of each kind, "
        "over which seconds, or with --csv one kind of event as CSV on standard output. Needs the Python "
        "package protobuf.",
    )
    p.add_argument("file", metavar="FILE", type=Path, help="an RTC event log")
    p.add_argument("--csv", dest="kind", choices=KINDS, metavar="KIND",
                   help=f"print the events of KIND as CSV instead: {', '.join(KINDS)}")
    return p


def run(args: argparse.Namespace) -> ExitStatus:
    try:
        main(args.file, args.kind)
    except BrokenPipeError:  # e.g. `| head`: the reader stopped reading
        sys.stderr.close()
    return ExitStatus.OK
