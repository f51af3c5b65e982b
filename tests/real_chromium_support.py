"""What the real-Chromium tests need before they run: a real path (root, namespaces,
TUN), the system's Chromium and playwright. Each missing piece is a SKIPPED test with the
reason, never a failure."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from flowstate.browser.topology import TopologyError, preflight

CHROMIUM = "/usr/bin/chromium"


def require_real_chromium() -> None:
    """Skips the calling test unless a real path, Chromium and playwright are here."""
    try:
        preflight()
    except TopologyError as e:
        pytest.skip(f"no real path here: {e}")
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"no Chromium at {CHROMIUM}")
    if importlib.util.find_spec("playwright") is None:
        pytest.skip("the Python package playwright is not installed")


def cli(*args: str, **kw) -> subprocess.CompletedProcess:
    """`python -m flowstate ARGS` in a subprocess, output captured as text."""
    return subprocess.run([sys.executable, "-m", "flowstate", *args], capture_output=True, text=True, **kw)


def namespaces(prefix: str) -> list[str]:
    """The network namespaces a run with ``--prefix prefix`` left behind."""
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith(prefix + "-")]
