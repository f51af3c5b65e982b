"""Bad input found by the robustness audit: each is one line naming what is wrong,
never a traceback, a hang, a native abort or a silently accepted value."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from catalogue_support import EXPERIMENT, load_error, make_catalogue

import flowstate
from flowstate.catalogue import catalogue
from flowstate.catalogue.catalogue import CatalogueError
from flowstate.overrides import PathError, load_toml
from flowstate.simulation import MAX_RUNS
from cli_support import assert_one_line_error
from cli_support import flowstate as flowstate_cli

SCENARIO = {
    "name": "t",
    "duration": "1s",
    "link": {"capacity": "2Mbps", "delay": "25ms", "queue": "300ms"},
    "flows": [{"name": "a", "kind": "cbr", "overrides": {"rate": "1Mbps"}}],
}


def cli(*args: str, cwd=None) -> subprocess.CompletedProcess[str]:
    return flowstate_cli(*args, cwd=cwd, timeout=120)


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
    from flowstate.sweep.spec import MAX_TASKS, SweepError, parse_set_flag

    # Before: linspace(1,2,100000000) built 10**8 values before any check (a hang).
    with pytest.raises(SweepError, match=rf"num: expected an integer in \[1, {MAX_TASKS}\], got 100000000"):
        parse_set_flag("link.capacity=linspace(1,2,100000000)Mbps")


def test_a_log_range_over_the_whole_float_range_does_not_underflow():
    from flowstate.sweep.spec import parse_set_flag

    # Before: "math domain error" (hi / lo underflowed to 0), without the flag.
    axis = parse_set_flag("flows.a.overrides.k=logspace(1e308,1e-308,3)")
    assert axis.values == (1e-308, 1.0, 1e308)  # numeric axes ascending


@pytest.mark.parametrize("rhs", ["logspace(1,2)", "linspace(1,2,3,4)", "linspace (1,2,3"])
def test_a_malformed_range_is_named_not_taken_as_values(rhs):
    from flowstate.sweep.spec import SweepError, parse_set_flag

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
    from flowstate.catalogue.derived import DerivedError, make_spec

    with pytest.raises(DerivedError) as e:
        make_spec("d", fn, args)
    assert needle in str(e.value) and "\n" not in str(e.value)


# --- metric paths of experiment.toml, checked against the summary.json contract ---------


@pytest.mark.parametrize(
    "old, new, key, needle",
    [
        (
            "{plain:aggregate.utilization} > 0.1",
            "{plain:aggregate.nosuch} > 0.1",
            r"claims\[0\].check",
            "aggregate.nosuch: no field 'nosuch' (fields: utilization, jain_index",
        ),
        (
            "{plain:aggregate.utilization} > 0.1",
            "{plain:flows.gcc.nosuch} > 0.1",
            r"claims\[0\].check",
            "flows.gcc.nosuch: no field 'nosuch' (fields: name, kind, group, priority, throughput_mbps",
        ),
        (
            "{plain:aggregate.utilization} > 0.1",
            "{plain:flows.gcc.rtt_ms.p99} > 0.1",
            r"claims\[0\].check",
            "flows.gcc.rtt_ms.p99: no field 'p99' (fields: mean, p50, p95)",
        ),
        (
            "{plain:aggregate.utilization} > 0.1",
            "{plain:flows.gcc.rtt_ms} > 0.1",
            r"claims\[0\].check",
            "flows.gcc.rtt_ms: a table, not a number",
        ),
        (
            "{plain:aggregate.utilization} > 0.1",
            "{plain:flows.gcc.kind} > 0.1",
            r"claims\[0\].check",
            "flows.gcc.kind: not a number",
        ),
        (
            'metric = "aggregate.utilization"',
            'metric = "aggregate.utilisation"',
            r"paper\[0\].metric",
            "aggregate.utilisation: no field 'utilisation'",
        ),
        (
            'kind = "rate"\n',
            'kind = "rate"\n\n[[figures]]\nkind = "bar"\nmetrics = ["flows.gcc.share", "flows.bg.throughput"]\n',
            r"figures\[1\].metrics",
            "flows.bg.throughput: no field 'throughput'",
        ),
    ],
)
def test_a_misspelled_metric_path_fails_before_any_run(tmp_path, old, new, key, needle):
    # Before: each passed the checks, ran every point, and showed as "not evaluated".
    assert old in EXPERIMENT
    message = load_error(tmp_path, EXPERIMENT.replace(old, new, 1))
    assert re.search(rf"experiment.toml: {key}: ", message), message
    assert needle in message, message


def test_every_metric_of_the_summary_contract_is_accepted(tmp_path):
    metrics = [
        "aggregate.utilization", "aggregate.jain_index", "aggregate.throughput_mbps", "aggregate.loss_ratio",
        "aggregate.queuing_delay_ms", "flows.gcc.throughput_mbps", "flows.gcc.goodput_mbps", "flows.gcc.share",
        "flows.gcc.rtt_ms.mean", "flows.gcc.rtt_ms.p50", "flows.gcc.queuing_delay_ms.p95", "flows.gcc.n_dd",
        "flows.bg.loss_ratio", "flows.bg.priority_share", "derived.gcc_mean",
    ]  # fmt: skip
    checks = "\n".join(f'[[claims]]\ntext = "{m}"\ncheck = "{{heavy:{m}}} >= 0"\n' for m in metrics)
    figure = f'\n[[figures]]\nkind = "bar"\nmetrics = {metrics!r}\n'.replace("'", '"')
    make_catalogue(tmp_path, EXPERIMENT + checks + figure)
    exp = catalogue.load_id(tmp_path, "tiny")
    assert len(exp.claims) == 3 + len(metrics)
    assert exp.figures[-1]["metrics"] == metrics


# --- output folders and scenario paths ------------------------------------------------

SCENARIO_TEXT = (
    'name = "t"\nduration = "1s"\n[link]\ncapacity = "2Mbps"\ndelay = "25ms"\nqueue = "300ms"\n'
    '[[flows]]\nname = "a"\nkind = "cbr"\noverrides = { rate = "1Mbps" }\n'
)


@pytest.mark.parametrize("command", ["run", "reproduce", "sweep", "testbed"])
def test_out_that_is_a_file_or_empty_names_the_flag(tmp_path, command):
    # Before: a file gave "[Errno 17] File exists: 'afile'" (after the runs), and ""
    # silently wrote into the current folder.
    (tmp_path / "s.toml").write_text(SCENARIO_TEXT)
    (tmp_path / "afile").write_text("")
    first = {"run": "s.toml", "reproduce": "x", "sweep": "s.toml", "testbed": "s.toml"}[command]
    result = cli(command, first, "--out", "afile", cwd=tmp_path)
    assert_one_line_error(result, "argument --out: 'afile' is not a folder")
    result = cli(command, first, "--out", "afile/sub", cwd=tmp_path)
    assert_one_line_error(result, "argument --out: 'afile/sub' is below 'afile', which is not a folder")
    result = cli(command, first, "--out", "", cwd=tmp_path)
    assert_one_line_error(result, "argument --out: expected an output folder, got an empty path ''")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "s.toml"]


def test_an_empty_scenario_path_is_named(tmp_path):
    # Before: ": cannot read: Is a directory".
    assert_one_line_error(cli("run", "", "--out", str(tmp_path / "o")), "scenario file: empty path ''")
    with pytest.raises(flowstate.ScenarioError, match=r"^scenario file: empty path ''$"):
        flowstate.run("")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_scenario_that_is_a_fifo_or_a_device_is_refused_at_once(tmp_path):
    # Before: a FIFO nobody writes blocked for ever, /dev/zero was read until memory ran out.
    fifo = tmp_path / "s.toml"
    os.mkfifo(fifo)
    result = cli("run", str(fifo), "--out", str(tmp_path / "o"))
    assert_one_line_error(result, f"{fifo}: is a FIFO; a scenario must be a regular file")
    with pytest.raises(flowstate.ScenarioError, match=r"^/dev/zero: is a device; a scenario must be a regular file$"):
        flowstate.run("/dev/zero")
    with pytest.raises(flowstate.ScenarioError, match=r": is a folder; a scenario must be a regular file$"):
        flowstate.run(tmp_path)


def test_a_scenario_file_is_read_up_to_its_limit(tmp_path, monkeypatch):
    from flowstate import input_file

    big = tmp_path / "big.toml"
    big.write_text("# padding\n" * 20)
    monkeypatch.setattr(input_file, "MAX_INPUT_BYTES", 100)
    with pytest.raises(flowstate.ScenarioError, match=r"big\.toml: larger than the 100-byte limit of a scenario$"):
        flowstate.run(big)
    with pytest.raises(PathError, match=r"big\.toml: larger than the 100-byte limit of a TOML file$"):
        load_toml(big)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_files_with_set_sweeps_and_catalogue_entries_must_be_regular(tmp_path):
    fifo = tmp_path / "s.toml"
    os.mkfifo(fifo)
    result = cli("run", str(fifo), "--set", "duration=1s", "--out", str(tmp_path / "o"))
    assert_one_line_error(result, f"{fifo}: is a FIFO; a scenario must be a regular file")
    result = cli("sweep", str(fifo), "--out", str(tmp_path / "w"))
    assert_one_line_error(result, "is a FIFO; a TOML file must be a regular file")
    entry = tmp_path / "entry"
    entry.mkdir()
    os.mkfifo(entry / "experiment.toml")
    with pytest.raises(CatalogueError, match=r"experiment\.toml: is a FIFO; an experiment file must be a regular file$"):
        catalogue.load(entry)


# --- Python API arguments -------------------------------------------------------------


def test_a_progress_that_is_not_a_function_is_named():
    # Before: "'int' object is not callable", from inside the native batch.
    with pytest.raises(TypeError, match=r"^progress must be a function progress\(done, total\) or None, got int$"):
        flowstate.run(SCENARIO, progress=5)


def test_a_check_scenario_name_that_is_not_a_string_is_named():
    # Before: pyo3's "argument 'file': 'int' object cannot be converted to 'PyString'".
    with pytest.raises(TypeError, match=r"^name must be a str or None, got int$"):
        flowstate.check_scenario(SCENARIO, name=5)


# --- --ray-address ----------------------------------------------------------------------


def test_a_bad_ray_address_names_the_flag(monkeypatch):
    # Before: Ray's own message, without naming --ray-address.
    import types

    from flowstate.sweep.executors import RayExecutor
    from flowstate.sweep.spec import SweepError

    def init(**kwargs):
        raise ConnectionError(f"Could not connect to {kwargs['address']}\nmore detail")

    monkeypatch.setitem(sys.modules, "ray", types.SimpleNamespace(is_initialized=lambda: False, init=init))
    with pytest.raises(SweepError, match=r"^--ray-address 'bad:addr': Could not connect to bad:addr$"):
        next(RayExecutor("bad:addr").run([(SCENARIO, 1, [])]))


def test_a_ray_address_without_the_ray_executor_is_rejected(tmp_path):
    (tmp_path / "s.toml").write_text(SCENARIO_TEXT)
    result = cli("sweep", "s.toml", "--ray-address", "x:1", "--out", "o", cwd=tmp_path)
    assert_one_line_error(result, "--ray-address 'x:1': only with --executor ray")
    assert not (tmp_path / "o").exists()
