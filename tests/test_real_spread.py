"""tools/real_spread.py judges each real Chromium run by the target the
simulator is held to (throughput within 15 %, mean RTT within 20 %) against the median
of its case's other runs: how often Chromium passes against itself."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import real_spread
from tool_support import ROOT, TOOLS


def run(tput: float, rtt: float = 100.0, name: str = "gcc") -> dict:
    return {"flows": [{"name": name, "throughput_mbps": tput, "rtt_ms": {"mean": rtt}}]}


def write_case(root: Path, case: str, runs: list[dict]) -> None:
    folder = root / case / "chromium"
    folder.mkdir(parents=True)
    (folder / "summary.json").write_text(json.dumps({"runs": len(runs), "per_run": runs}))


def test_a_run_is_judged_against_the_median_of_the_others():
    runs = [real_spread.run_values(r) for r in (run(1.0), run(1.1), run(1.3), run(1.05))]
    r = real_spread.leave_one_out(runs)
    t = r["flows"]["gcc"]["throughput_mbps"]
    # run 3 (1.3) against median(1.0, 1.1, 1.05) = 1.05: x1.24, outside 15 %
    assert t["ratio_to_others"][2] == 1.3 / 1.05
    assert t["within"] == [True, True, False, True]
    assert r["run_passes"] == [True, True, False, True]
    assert abs(t["median"] - 1.075) < 1e-12 and (t["min"], t["max"]) == (1.0, 1.3)


def test_the_rtt_tolerance_is_twenty_percent():
    runs = [real_spread.run_values(r) for r in (run(1.0, 100.0), run(1.0, 100.0), run(1.0, 119.0), run(1.0, 121.0))]
    r = real_spread.leave_one_out(runs)
    # 119 against median(100, 100, 121) = 100: x1.19 within; 121 against 100: x1.21 outside
    assert r["flows"]["gcc"]["rtt_mean_ms"]["within"] == [True, True, True, False]
    assert r["run_passes"] == [True, True, True, False]


def test_the_kept_references_are_read_and_every_case_reported():
    out = subprocess.run([sys.executable, str(TOOLS / "real_spread.py")], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    for case in ("p000-table5", "p000-fig2", "p000-fig3", "rfc8867-5.1", "rfc8867-5.6", "p002-fig11", "p001-fig8"):
        assert f"| {case} |" in out.stdout
    assert "Real runs passing their case against the other runs' median:" in out.stdout


def test_folders_are_pooled_per_case(tmp_path: Path):
    write_case(tmp_path / "a", "c1", [run(1.0), run(1.0)])
    write_case(tmp_path / "b", "c1", [run(2.0)])
    runs = real_spread.load_case_runs([tmp_path / "a", tmp_path / "b"], "c1")
    assert [r["gcc"]["throughput_mbps"] for r in runs] == [1.0, 1.0, 2.0]


def test_bad_input_is_one_line(tmp_path: Path):
    script = str(TOOLS / "real_spread.py")

    def err(*args: str) -> str:
        p = subprocess.run([sys.executable, script, *args], capture_output=True, text=True)
        assert p.returncode != 0 and "Traceback" not in p.stderr
        assert len(p.stderr.strip().splitlines()) == 1, p.stderr
        return p.stderr

    assert "not a folder" in err("--refs", str(tmp_path / "missing"))
    assert "no CASE/chromium/summary.json" in err("--refs", str(tmp_path))
    write_case(tmp_path / "one", "c1", [run(1.0)])
    assert "leaving one out needs at least 2" in err("--refs", str(tmp_path / "one"))
    assert "no real runs of nope" in err("--refs", str(tmp_path / "one"), "--only", "nope")
    bad = tmp_path / "bad" / "c1" / "chromium"
    bad.mkdir(parents=True)
    (bad / "summary.json").write_text("{")
    assert "not JSON" in err("--refs", str(tmp_path / "bad"))
    (bad / "summary.json").write_text(json.dumps({"per_run": [{"x": 1}]}))
    assert "no per-run flows" in err("--refs", str(tmp_path / "bad"))
