"""The tree carries no leftover merge-conflict markers (one once hid in a doc)."""

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKERS = ("<<<<<<< ", ">>>>>>> ")


def test_no_conflict_markers_in_tracked_files():
    files = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    found = []
    for name in files:
        path = ROOT / name
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (UnicodeDecodeError, OSError):
            continue  # binary or unreadable: not text we write by hand
        found += [f"{name}:{i}" for i, line in enumerate(lines, 1) if line.startswith(MARKERS)]
    assert not found, f"merge-conflict markers at {found}"
