"""The `flowstate` command line."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn, Optional, Sequence

from flowstate import CouplingError


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit status 2), as the CLI contract requires."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"flowstate: error: {message} (see 'flowstate --help')\n")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="flowstate", description="Coupled congestion control for WebRTC media and data.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    demo = sub.add_parser("demo", help="show what each coupling mechanism does with scripted controller reports")
    demo.add_argument(
        "--mechanism",
        action="append",
        choices=["fse-ng", "ext-fse-ng", "fsev2"],
        help="limit the demo to this mechanism (repeatable; default: all three that couple media and data)",
    )
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _build_parser().parse_args(argv)
    try:
        if args.command == "demo":
            from flowstate import demo

            demo.main(args.mechanism or demo.WINDOW_MECHANISMS)
        return 0
    except CouplingError as e:
        print(f"flowstate: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("flowstate: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
