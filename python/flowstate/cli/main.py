"""The `flowstate` command line: the parser, the table of subcommands, and the one place
that turns errors into exit statuses.

Each subcommand is a module (here, or ``flowstate.browser.command``) with
``add_parser(subparsers) -> ArgumentParser`` and a function of the parsed arguments that
returns an :class:`ExitStatus`; :data:`COMMANDS` lists them in the order of
``flowstate --help``. Adding a subcommand is one module plus one line in the table.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from typing import Any, Callable, NamedTuple, NoReturn, Optional, Sequence

from flowstate import __version__
from flowstate.browser import command as browser
from flowstate.cli import compare, demo, list_options, report, reproduce, rtclog, run, sweep, testbed
from flowstate.cli import list as list_
from flowstate.cli.exit_status import ExitStatus
from flowstate.errors import FlowstateError


class Command(NamedTuple):
    """A subcommand: ``add_parser(subparsers)`` adds its parser; ``run(args)`` does it."""

    add_parser: Callable[[Any], argparse.ArgumentParser]
    run: Callable[[argparse.Namespace], int]


COMMANDS: tuple[Command, ...] = (
    Command(demo.add_parser, demo.run),
    Command(run.add_parser, run.run),
    Command(list_.add_parser, list_.run),
    Command(reproduce.add_parser, reproduce.run),
    Command(sweep.add_parser, sweep.run),  # docs/SWEEPS.md
    Command(report.add_parser, report.run),
    Command(compare.add_parser, compare.run),
    Command(testbed.add_parser, testbed.run),
    Command(browser.add_parser, browser.main),  # docs/BROWSER.md
    Command(rtclog.add_parser, rtclog.run),  # the event logs of browser --rtc-event-log
    Command(list_options.add_parser, list_options.run),
)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit status 2), as the CLI contract requires."""

    def error(self, message: str) -> NoReturn:
        self.exit(ExitStatus.BAD_INPUT, f"flowstate: error: {message} (see 'flowstate --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="flowstate", description="Coupled congestion control for WebRTC media and data.")
    parser.add_argument("--version", action="version", version=f"flowstate {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for command in COMMANDS:
        command.add_parser(sub).set_defaults(handler=command.run)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(argv) if argv is not None else sys.argv[1:]
    args = build_parser().parse_args(argv)
    args.command_line = ["flowstate", *argv]  # each output folder's manifest records it
    try:
        return int(args.handler(args))
    except FlowstateError as e:  # bad input: one line (a bug's ValueError keeps its traceback)
        print(f"flowstate: error: {e}", file=sys.stderr)
        return ExitStatus.BAD_INPUT
    except OSError as e:  # the output folder cannot be written
        print(f"flowstate: error: {e}", file=sys.stderr)
        return ExitStatus.BAD_INPUT
    except KeyboardInterrupt as e:  # a command may say what finished and how to complete it
        print(str(e) or "flowstate: interrupted", file=sys.stderr)
        return ExitStatus.INTERRUPTED
    except Exception as e:  # noqa: BLE001 - the user's controller or rule raised: its own frames
        if not _raised_by_user_code(e) or os.environ.get("FLOWSTATE_DEBUG"):
            raise
        _print_user_traceback(e)
        return 1


# The notes the simulator adds to an exception raised in a user's controller or rule.
_USER_CODE_NOTES = ("raised by ", "raised while making ", "raised while loading ")


def _raised_by_user_code(e: BaseException) -> bool:
    return any(isinstance(n, str) and n.startswith(_USER_CODE_NOTES) for n in getattr(e, "__notes__", ()))


def _print_user_traceback(e: BaseException) -> None:
    """The traceback from the first frame outside the flowstate package (the user's
    code), with the exception and its notes; FLOWSTATE_DEBUG=1 shows every frame."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    tb = e.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith(package):
        tb = tb.tb_next
    traceback.print_exception(type(e), e, tb if tb is not None else e.__traceback__, file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
