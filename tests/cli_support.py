"""Running the `flowstate` command from the tests, and the check of its one-line errors."""

from __future__ import annotations

import signal
import subprocess
import sys


def default_sigint() -> None:
    """A child's `preexec_fn`: Ctrl-C back to its default. A shell without job control
    starts background commands with SIGINT ignored, and a child inherits that (Python then
    never raises KeyboardInterrupt), so a test that interrupts a child resets it first."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def flowstate(*args, cwd=None, timeout=None) -> subprocess.CompletedProcess[str]:
    """`python -m flowstate ARGS` in a child process, its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "flowstate", *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=timeout
    )


def assert_one_line_error(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    """Exit status 2 and stderr exactly one line, `flowstate: error: ...`, holding every
    fragment; no traceback or panic."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and "panicked" not in result.stderr
    assert result.stderr.startswith("flowstate: error: ") and result.stderr.count("\n") == 1, result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr
