"""Trace-driven links from Python and the CLI: a relative
capacity_trace file is relative to the scenario file, also through `run --set`, the
catalogue and a dict; a bad trace is a one-line error naming the trace file and line."""

from __future__ import annotations

from pathlib import Path

import flowstate
from flowstate.catalogue import catalogue
from flowstate.overrides import load_toml
from cli_support import flowstate as flowstate_cli

ROOT = Path(__file__).resolve().parent.parent

SCENARIO = """\
name = "trace"
duration = "6s"
[link]
capacity_trace = { file = "t/step.mahimahi", format = "mahimahi" }
delay = "10ms"
queue = "50pkt"
[[flows]]
name = "cbr"
kind = "cbr"
overrides = { rate = "3Mbps", packet_size = "1500B" }
"""


def scenario_dir(tmp_path: Path, text: str = SCENARIO) -> Path:
    (tmp_path / "s" / "t").mkdir(parents=True)
    (tmp_path / "s" / "t" / "step.mahimahi").write_text((ROOT / "scenarios/traces/step.mahimahi").read_text())
    (tmp_path / "s" / "scenario.toml").write_text(text)
    (tmp_path / "elsewhere").mkdir()
    return tmp_path / "s" / "scenario.toml"


def test_run_reads_the_trace_next_to_the_scenario_from_anywhere(tmp_path):
    file = scenario_dir(tmp_path)
    result = flowstate.run(file)
    flow = result.summary["flows"][0]
    # Backlogged on the step trace: 240 x 1500 B per 2 s = 1.44 Mbit/s.
    assert abs(flow["throughput_mbps"] - 1.44) < 0.02, flow
    out = flowstate_cli("run", file, "--set", "duration=4s", "--out", tmp_path / "out", cwd=tmp_path / "elsewhere")
    assert out.returncode == 0, out.stderr


def test_a_loaded_dict_keeps_its_trace_path(tmp_path):
    file = scenario_dir(tmp_path)
    scenario = load_toml(file)
    assert Path(scenario["link"]["capacity_trace"]["file"]).is_absolute()
    flowstate.check_scenario(scenario)


def test_bad_trace_is_one_line_naming_file_and_line(tmp_path):
    file = scenario_dir(tmp_path)
    (file.parent / "t" / "step.mahimahi").write_text("5\n10\nsoon\n")
    out = flowstate_cli("run", file, cwd=tmp_path)
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    assert "link.capacity_trace.file" in out.stderr and "step.mahimahi: line 3:" in out.stderr, out.stderr
    file.write_text(SCENARIO.replace("t/step.mahimahi", "t/none.mahimahi"))
    out = flowstate_cli("run", file, cwd=tmp_path)
    assert out.returncode == 2 and "none.mahimahi: no such file" in out.stderr, out.stderr


def test_catalogue_entry_checks_from_another_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # load() runs every point (normal and short) through the simulator's checks, which
    # read the trace: its path must not depend on the current folder.
    exp = catalogue.load(ROOT / "scenarios" / "trace-cellular")
    assert [v.name for v in exp.variants] == ["gcc-alone", "none", "fsev2"]
    for point in exp.points(short=False):
        assert Path(point.scenario["link"]["capacity_trace"]["file"]).is_absolute()
