"""What the real-Chromium tests need before they run: a real path (root, namespaces,
TUN), the system's Chromium and playwright. Each missing piece is a SKIPPED test with the
reason, never a failure."""

from __future__ import annotations

import importlib.util
import os

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
