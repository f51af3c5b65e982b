"""The maintained tools (tools/, tools/README.md) from the tests. A test imports a tool
by its name (``import real_vs_sim``): pyproject.toml's pytest settings put tools/ on the
import path (``pythonpath``), as running a tool puts its own folder there, so a tool and
the tools it imports are loaded once, under their own names. ``run_tool`` runs one as
its command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tools"


def run_tool(name: str, *args, cwd=None, timeout=None) -> subprocess.CompletedProcess[str]:
    """`python tools/NAME.py ARGS` in a child process, its output captured as text."""
    return subprocess.run([sys.executable, str(TOOLS / f"{name}.py"), *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=timeout)
