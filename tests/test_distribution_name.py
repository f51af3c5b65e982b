"""The distribution's name is ours on PyPI, and every install hint installs into the
project's own venv: `flowstate` on PyPI is an unrelated project, so `pip install
'flowstate[ray]'` typed anywhere would install a stranger's package."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.9/3.10
    tomllib = None

#: `pip install` of the bare name, with or without extras or a version.
STRANGER = re.compile(r"pip install\s+['\"]?flowstate(\[|['\"\s`]|$|[<>=])")


def test_the_distribution_is_not_named_flowstate():
    text = (ROOT / "pyproject.toml").read_text()
    if tomllib is not None:
        name = tomllib.loads(text)["project"]["name"]
    else:  # pragma: no cover
        name = re.search(r'^name = "([^"]+)"', text, re.M).group(1)
    assert name == "flowstate-rtc"


def test_no_install_hint_names_the_strangers_package():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    found = []
    for name in files:
        if not name.endswith((".py", ".md", ".sh", ".toml", ".js")) or name.startswith("tests/test_distribution_name"):
            continue
        for i, line in enumerate((ROOT / name).read_text(encoding="utf-8").splitlines(), 1):
            if STRANGER.search(line):
                found.append(f"{name}:{i}: {line.strip()}")
    assert not found, "install hints naming PyPI's unrelated 'flowstate':\n" + "\n".join(found)


def test_the_pattern_catches_the_old_hints():
    for hint in ("pip install 'flowstate[ray]'", "pip install flowstate", 'pip install "flowstate[browser]"'):
        assert STRANGER.search(hint), hint
    assert not STRANGER.search(".venv/bin/pip install 'ray>=2'")
    assert not STRANGER.search("pip install flowstate-rtc")
