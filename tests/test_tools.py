"""The maintained tools without a test file of their own (tools/README.md): the trace the
cellular entry plays is the one tools/make_cellular_trace.py writes, byte for byte;
tools/catalogue_hashes.py's comparison says which runs differ (exit status 1) and which
do not; the scenarios the speed tools (bench_scale.py, bench_pair.py) time are ones the
simulator accepts; bench_python_controller.py prints its table."""

from __future__ import annotations

import json

import bench_pair
import bench_scale
import pytest
from tool_support import ROOT, run_tool

import flowstate


def test_the_cellular_trace_is_the_one_the_tool_writes(tmp_path):
    out = tmp_path / "cellular.mahimahi"
    p = run_tool("make_cellular_trace", "--out", out)
    assert p.returncode == 0, p.stderr
    assert out.read_bytes() == (ROOT / "scenarios" / "traces" / "cellular-synth.mahimahi").read_bytes()


def test_catalogue_hashes_compare_names_what_differs(tmp_path):
    before, after, same = tmp_path / "before.json", tmp_path / "after.json", tmp_path / "same.json"
    before.write_text(json.dumps({"a/p/seed=1": 1, "a/p/seed=2": 2, "b/p/seed=1": 3}))
    same.write_text(before.read_text())
    after.write_text(json.dumps({"a/p/seed=1": 1, "a/p/seed=2": 9, "c/p/seed=1": 4}))
    p = run_tool("catalogue_hashes", "--compare", before, same)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("3 of 3 runs have the same trace hash; 0 differ; 0 in only one file")
    p = run_tool("catalogue_hashes", "--compare", before, after)
    assert p.returncode == 1, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("1 of 3 runs have the same trace hash; 1 differ; 2 in only one file")
    assert "  differs: a/p/seed=2" in lines
    assert {"  only in one: b/p/seed=1", "  only in one: c/p/seed=1"} <= set(lines)


@pytest.mark.parametrize("mix", ["tcp", "gcc-sctp", "cbr"])
def test_the_scaling_benchmark_scenarios_are_valid(mix):
    flowstate.check_scenario(toml=bench_scale.scenario(mix, 10, 1))
    flowstate.check_scenario(toml=bench_scale.scenario(mix, 10, 1, series=False, trace_hash=False, recorder="on"))


def test_the_paired_benchmark_scenarios_are_valid(tmp_path):
    paths = bench_pair.scenarios(tmp_path)
    assert [p.stem for p in paths] == [e for e, _ in bench_pair.ENTRIES] + ["tcp-1000", "gcc-sctp-1000"]
    for path in paths:
        flowstate.check_scenario(path)


def test_the_python_controller_benchmark_prints_its_table():
    p = run_tool("bench_python_controller", "--repeat", "1", "--seconds", "2")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "| controller | wall s per 2 s call | simulated s per wall s |"
    labels = [line.split(" | ")[0].lstrip("| ") for line in lines[2:]]
    assert labels[:4] == ["built-in gcc", "python: constant rate", "python: AIMD (examples/aimd.py)", "python: numpy linear rule"]
