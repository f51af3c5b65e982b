"""The exit statuses of the `flowstate` command (docs: README, `flowstate --help`)."""

from __future__ import annotations

from enum import IntEnum


class ExitStatus(IntEnum):
    OK = 0
    # The command ran, and what it checks does not hold: a claim fails under
    # `reproduce --check`, or a `browser` run was cut short by a failure (a crashed browser).
    FAILED = 1
    # Bad input: argparse's errors, any FlowstateError, an output folder that cannot be
    # written, a missing prerequisite of `browser`. One line on stderr, before or instead
    # of the work.
    BAD_INPUT = 2
    # Cut short by a signal: 128 + the signal's number, as a shell reports it.
    INTERRUPTED = 130  # SIGINT (Ctrl-C)
    TERMINATED = 143  # SIGTERM
