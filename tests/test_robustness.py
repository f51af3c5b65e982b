"""Bad input found by the robustness audit: each is one line naming what is wrong,
never a traceback, a hang, a native abort or a silently accepted value."""

from __future__ import annotations

import subprocess
import sys

import pytest
from catalogue_support import EXPERIMENT, make_catalogue

import flowstate
from flowstate import catalogue
from flowstate.catalogue import CatalogueError
from flowstate.overrides import PathError, load_toml
from flowstate.simulation import MAX_RUNS

SCENARIO = {
    "name": "t",
    "duration": "1s",
    "link": {"capacity": "2Mbps", "delay": "25ms", "queue": "300ms"},
    "flows": [{"name": "a", "kind": "cbr", "overrides": {"rate": "1Mbps"}}],
}


def cli(*args: str, cwd=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flowstate", *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def assert_one_line_error(result: subprocess.CompletedProcess[str], needle: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert needle in result.stderr, result.stderr


# --- run counts --------------------------------------------------------------------


def test_too_many_runs_is_a_value_error_not_a_native_abort():
    # Before: runs=10**11 reached the native batch, which aborted the process on a
    # failed allocation of 800 GB (exit status 134, a Rust backtrace).
    with pytest.raises(ValueError, match=rf"runs must be in \[1, {MAX_RUNS}\], got 100000000000"):
        flowstate.run(SCENARIO, runs=10**11)


def test_cli_runs_past_the_limit_is_a_one_line_error(tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(
        'name = "t"\nduration = "1s"\n[link]\ncapacity = "2Mbps"\ndelay = "25ms"\nqueue = "300ms"\n'
        '[[flows]]\nname = "a"\nkind = "cbr"\noverrides = { rate = "1Mbps" }\n'
    )
    result = cli("run", str(scenario), "--runs", "100000000000", "--out", str(tmp_path / "o"))
    assert_one_line_error(result, f"argument --runs: expected an integer in [1, {MAX_RUNS}], got 100000000000")
    result = cli("reproduce", "x", "--runs", str(MAX_RUNS + 1))
    assert_one_line_error(result, "argument --runs: expected an integer in")


@pytest.mark.parametrize("old, new", [("runs = 3", "runs = 100000000000"), ("runs = 2", "runs = 100000000000")])
def test_catalogue_run_counts_are_bounded(tmp_path, old, new):
    # Before: runs = 10**11 in experiment.toml hung `flowstate reproduce`.
    make_catalogue(tmp_path, EXPERIMENT.replace(old, new, 1))
    key = "runs" if old == "runs = 3" else "short.runs"
    with pytest.raises(CatalogueError, match=rf"experiment.toml: {key}: expected an integer in \[1, {MAX_RUNS}\]"):
        catalogue.load_id(tmp_path, "tiny")


# --- experiment.toml ---------------------------------------------------------------


def test_a_paper_value_must_be_finite(tmp_path):
    # Before: value = nan passed the checks, ran every point, then failed writing
    # results.json with "Out of range float values are not JSON compliant: nan".
    make_catalogue(tmp_path, EXPERIMENT.replace("value = 0.9", "value = nan", 1))
    with pytest.raises(CatalogueError, match=r"experiment.toml: paper\[0\].value: expected a finite number, got nan"):
        catalogue.load_id(tmp_path, "tiny")


def test_non_utf8_files_name_the_file(tmp_path):
    # Before: "'utf-8' codec can't decode byte 0xff in position 6: invalid start byte",
    # without the file.
    make_catalogue(tmp_path, EXPERIMENT)
    (tmp_path / "tiny" / "experiment.toml").write_bytes(b'id = "\xff"\n')
    with pytest.raises(CatalogueError, match=r"tiny/experiment.toml: not UTF-8 text$"):
        catalogue.load_id(tmp_path, "tiny")
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b'name = "\xff"\n')
    with pytest.raises(PathError, match=r"bad.toml: not UTF-8 text$"):
        load_toml(bad)
    assert_one_line_error(cli("sweep", str(bad), "--no-plots"), "bad.toml: not UTF-8 text")


# --- sweeps ------------------------------------------------------------------------


def test_a_range_longer_than_the_task_limit_fails_before_generating_it():
    from flowstate.sweep import MAX_TASKS, SweepError, parse_set_flag

    # Before: linspace(1,2,100000000) built 10**8 values before any check (a hang).
    with pytest.raises(SweepError, match=rf"num: expected an integer in \[1, {MAX_TASKS}\], got 100000000"):
        parse_set_flag("link.capacity=linspace(1,2,100000000)Mbps")


def test_a_log_range_over_the_whole_float_range_does_not_underflow():
    from flowstate.sweep import parse_set_flag

    # Before: "math domain error" (hi / lo underflowed to 0), without the flag.
    axis = parse_set_flag("flows.a.overrides.k=logspace(1e308,1e-308,3)")
    assert axis.values == (1e308, 1.0, 1e-308)


@pytest.mark.parametrize("rhs", ["logspace(1,2)", "linspace(1,2,3,4)", "linspace (1,2,3"])
def test_a_malformed_range_is_named_not_taken_as_values(rhs):
    from flowstate.sweep import SweepError, parse_set_flag

    # Before: "logspace(1,2)" became the two string values "logspace(1" and "2)".
    with pytest.raises(SweepError, match=r"expected linspace\(FROM,TO,NUM\) or logspace\(FROM,TO,NUM\)"):
        parse_set_flag(f"link.capacity={rhs}")


# --- derived metrics ---------------------------------------------------------------


@pytest.mark.parametrize(
    "fn, args, needle",
    [
        # Before: each was accepted and every run's value was null ("not evaluated").
        ("mean_rate", {"flow": "a", "from": "60s", "to": "10s"}, "mean_rate: to: must be after from ('60s'), got '10s'"),
        ("mean_rate", {"flow": "a", "to": 0}, "mean_rate: to: must be after from (0), got 0"),
        ("mean_rate", {"flow": "a", "from": "-5s"}, "mean_rate: from: expected a time >= 0 s, got '-5s'"),
        ("time_to_reach", {"flow": "a", "rate": "1Mbps", "after": float("nan")}, "after: expected a time >= 0 s"),
        ("time_to_reach", {"flow": "a", "rate": "1Mbps", "hold": float("inf")}, "hold: expected a time >= 0 s"),
        ("time_to_reach", {"flow": "a", "rate": "-1Mbps"}, "rate: expected a bit rate > 0, got '-1Mbps'"),
        ("time_to_reach", {"flow": "a", "rate": "0kbps"}, "rate: expected a bit rate > 0, got '0kbps'"),
    ],
)
def test_derived_arguments_that_make_every_value_null_are_rejected(fn, args, needle):
    from flowstate.derived import DerivedError, make_spec

    with pytest.raises(DerivedError) as e:
        make_spec("d", fn, args)
    assert needle in str(e.value) and "\n" not in str(e.value)
