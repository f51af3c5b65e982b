"""The real runs' test clip named next to every real-against-simulated figure
(tools/real_vs_sim.py, tools/pool_real_runs.py):
p000-table5's first real runs played another clip than every later run, and the clip sets
the real encoder's frame pattern (docs/REPRODUCTION.md, "p000-table5's send chain")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pool_real_runs
import real_vs_sim
from tool_support import TOOLS

ROOT = Path(__file__).resolve().parents[1]
A = "flowstate-1280x720-30fps-90f-seed1.y4m"
B = "flowstate-1280x720-30fps-90f-seed1-pan4-grain8-noise4.y4m"


def _runs(folder: Path, clips: list[str | None]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    per_run = []
    for k, clip in enumerate(clips, 1):
        rd = folder / f"run-{k}"
        rd.mkdir()
        (rd / "browser.json").write_text(json.dumps({"stack": "chromium"} | ({"clip": clip} if clip else {})))
        per_run.append({"seed": k, "flows": []})
    (folder / "summary.json").write_text(json.dumps({"runs": len(clips), "per_run": per_run}))
    (folder / "timeseries.csv").write_text("time_s,run,flow\n" + "".join(f"0.0,{k},gcc\n" for k in range(len(clips))))
    return folder


def test_real_clips_reads_each_run_and_names_a_mixed_set(tmp_path):
    m = real_vs_sim
    one = _runs(tmp_path / "one" / "chromium", [A, A, A])
    assert m.real_clips(one) == [A, A, A]
    assert m.clip_note(m.real_clips(one)) == f"clip `{A}`"
    mixed = _runs(tmp_path / "mixed" / "chromium", [A, B, None])
    assert m.real_clips(mixed) == [A, B, "not recorded"]
    assert m.clip_note(m.real_clips(mixed)) == f"clips `{A}` (1), `{B}` (1), `not recorded` (1)"
    assert m.clip_note([]) == ""


def test_pooled_runs_keep_their_clips(tmp_path):
    pool = pool_real_runs
    rvs = real_vs_sim
    _runs(tmp_path / "first" / "case" / "chromium", [A, A, A])
    _runs(tmp_path / "second" / "case" / "chromium", [B, B])
    dest = pool.pool(tmp_path / "pooled", "case", [tmp_path / "first", tmp_path / "second"])
    assert json.loads((dest / "summary.json").read_text())["clips"] == [A, A, A, B, B]
    # the pooled folder has no run-N folders: the clips come from its summary
    assert rvs.real_clips(dest) == [A, A, A, B, B]
    assert rvs.clip_note(rvs.real_clips(dest)) == f"clips `{A}` (3), `{B}` (2)"


def test_pooled_runs_keep_their_browser_and_kernel(tmp_path):
    pool = pool_real_runs
    first = _runs(tmp_path / "first" / "case" / "chromium", [A, A])
    for k, version in ((1, "Chromium 156.0.1"), (2, "Chromium 156.0.2")):
        b = first / f"run-{k}" / "browser.json"
        b.write_text(json.dumps({**json.loads(b.read_text()), "chromium": version, "kernel": "6.18"}))
    _runs(tmp_path / "second" / "case" / "chromium", [B])  # recorded neither
    dest = pool.pool(tmp_path / "pooled", "case", [tmp_path / "first", tmp_path / "second"])
    summary = json.loads((dest / "summary.json").read_text())
    assert summary["browsers"] == ["Chromium 156.0.1", "Chromium 156.0.2", "not recorded"]
    assert summary["kernels"] == ["6.18", "6.18", "not recorded"]
    # pooled again (no run-N folders): the lists carry over
    again = pool.pool(tmp_path / "again", "case", [tmp_path / "pooled"])
    assert json.loads((again / "summary.json").read_text())["browsers"] == summary["browsers"]


def test_a_bad_browser_json_is_one_line(tmp_path):
    folder = _runs(tmp_path / "bad" / "chromium", [A])
    (folder / "run-1" / "browser.json").write_text("{not json")
    code = ("import sys; sys.path.insert(0, 'tools'); import real_vs_sim as m; "
            f"m.real_clips(__import__('pathlib').Path({str(folder)!r}))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode != 0 and "Traceback" not in p.stderr
    assert p.stderr.strip() == f"{folder / 'run-1' / 'browser.json'}: not a browser.json (JSON object) of a real run"


def test_pool_takes_the_own_stack_runs_with_stack(tmp_path):
    pool = pool_real_runs
    _runs(tmp_path / "src" / "case" / "flowstate", [None, None])
    (tmp_path / "src" / "case" / "flowstate.toml").write_text("duration = \"1s\"\n")
    dest = pool.pool(tmp_path / "out", "case", [tmp_path / "src"], stack="flowstate")
    assert dest == tmp_path / "out" / "case" / "flowstate"
    assert json.loads((dest / "summary.json").read_text())["runs"] == 2
    assert (tmp_path / "out" / "case" / "flowstate.toml").exists()
    assert not (tmp_path / "out" / "case" / "chromium").exists()
    p = subprocess.run([sys.executable, str(TOOLS / "pool_real_runs.py"), "--stack", "firefox", "a", "b", "c"],
                       capture_output=True, text=True)
    assert p.returncode == 1 and p.stderr.strip() == "--stack: one of chromium, flowstate"
