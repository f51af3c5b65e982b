"""docs/PYTHON.md runs: its ```python blocks are executed in order in
one namespace, from a scratch folder that sees the repository's scenarios/, and none
may raise."""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "PYTHON.md"


def blocks() -> list[tuple[int, str]]:
    text = DOC.read_text(encoding="utf-8")
    found = []
    for m in re.finditer(r"^```python\n(.*?)^```$", text, re.M | re.S):
        found.append((text.count("\n", 0, m.start()) + 2, m.group(1)))
    return found


def test_python_doc_examples_run(tmp_path, monkeypatch):
    code = blocks()
    assert len(code) >= 6
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the training example's insert
    namespace: dict = {"__name__": "python_doc"}
    printed = io.StringIO()
    for line, source in code:
        with contextlib.redirect_stdout(printed):
            exec(compile(source, f"{DOC}:{line}", "exec"), namespace)  # noqa: S102 - our own doc
    out = printed.getvalue()
    assert "utilization" in out and "set GCC's target to" in out
    assert "priorities must be in" in out or "priority" in out
    assert '<dict>: link.capacity: expected a bit rate such as "2Mbps"' in out  # the error example fails
    assert (Path(namespace["out"]) / "report.html").is_file()
    assert (Path(namespace["out"]).parent / "compare" / "report.html").is_file()
    assert os.path.isfile(namespace["out"] / "my-rate.png")
    assert "has no class 'Nope' (it defines Aimd)" in out  # a python flow's bad controller
    assert namespace["obs"].shape == (150,) and len(namespace["train_linear"].train(1, 5)) == 2


def test_scenarios_doc_runs_scenarios_with_flowstate_run():
    text = (ROOT / "docs" / "SCENARIOS.md").read_text(encoding="utf-8")
    assert "flowstate run scenarios/" in text
    assert not re.search(r"^Run one: `cargo run", text, re.M)
    for field in ("`rtt_ms`", "`queuing_delay_ms`", "`share`", "`aggregate.jain_index`",
                  "`aggregate.weighted_jain_index`"):
        assert re.search(rf"^\| {re.escape(field)} \| ", text, re.M), field
