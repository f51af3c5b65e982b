"""`flowstate run`: end to end with outputs, and bad flags / files as one-line errors
with exit status 2."""

import json

import pytest
from cli_support import assert_one_line_error, flowstate


SCENARIO = """\
name = "cli test/two flows"
duration = "6s"
[link]
capacity = "2Mbps"
delay = "25ms"
queue = "300ms"
loss = 0.02
[[flows]]
name = "video"
kind = "cbr"
overrides = { rate = "1Mbps", packet_size = "1000B" }
[[flows]]
name = "data"
kind = "cbr"
priority = 3
overrides = { rate = "0.5Mbps", packet_size = "1000B" }
"""


@pytest.fixture
def scenario_file(tmp_path):
    path = tmp_path / "two.toml"
    path.write_text(SCENARIO)
    return path


def test_run_prints_at_most_40_flows_and_counts_the_rest(tmp_path):
    path = tmp_path / "many.toml"
    path.write_text(
        'name = "many"\nduration = "1s"\n[link]\ncapacity = "50Mbps"\ndelay = "10ms"\nqueue = "50ms"\n'
        '[[flows]]\nname = "f"\nkind = "cbr"\ncount = 45\noverrides = { rate = "0.5Mbps" }\n'
    )
    result = flowstate("run", path, "--out", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    assert "f40 " in result.stdout and "f41 " not in result.stdout, result.stdout
    assert "... and 5 more flows (every flow is in summary.json)" in result.stdout
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert len(summary["flows"]) == 45


def test_run_writes_outputs_and_prints_table(scenario_file, tmp_path):
    out = tmp_path / "results"
    result = flowstate("run", scenario_file, "--seed", 3, "--runs", 2, "--out", out)
    assert result.returncode == 0, result.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["seeds"] == [3, 4] and summary["runs"] == 2 and len(summary["per_run"]) == 2
    assert [f["name"] for f in summary["flows"]] == ["video", "data"]
    lines = (out / "timeseries.csv").read_text().splitlines()
    assert lines[0].startswith("run,seed,time_s,flow,")
    assert len(lines) == 1 + 2 * 2 * 12  # header; 2 runs x 2 flows x 12 bins of 500 ms
    text = result.stdout
    assert "cli test/two flows" in text and "seeds 3..4" in text
    for column in ("throughput", "share", "RTT mean", "RTT p95", "queuing p50", "queuing p95", "loss"):
        assert column in text, column
    # The table's numbers are the summary's: throughput as mean ± std.
    video = summary["flows"][0]
    assert f"{video['throughput_mbps']:.3f} ± {video['spread']['throughput_mbps']['std']:.3f}" in text
    assert f"({video['priority_share'] * 100:.1f})" in text  # 25.0: priorities 1 and 3
    util = summary["aggregate"]["utilization"] * 100
    assert f"utilization {util:.1f} ±" in text and "Jain index" in text
    weighted = summary["aggregate"]["weighted_jain_index"]
    assert f"priority-weighted {weighted:.3f} ±" in text
    assert f"wrote {out / 'summary.json'} and {out / 'timeseries.csv'}" in text


def test_default_out_folder_is_named_after_the_scenario(scenario_file, tmp_path):
    result = flowstate("run", scenario_file, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    folder = tmp_path / "out" / "cli_test_two_flows"
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["seed"] == 1 and summary["runs"] == 1 and "per_run" not in summary
    assert (folder / "timeseries.csv").exists()
    assert "wrote out/cli_test_two_flows/summary.json" in result.stdout


def test_same_seed_same_outputs(scenario_file, tmp_path):
    for name in ("a", "b"):
        assert flowstate("run", scenario_file, "--seed", 7, "--out", tmp_path / name).returncode == 0
    for file in ("summary.json", "timeseries.csv"):
        assert (tmp_path / "a" / file).read_text() == (tmp_path / "b" / file).read_text()


def test_threads_do_not_change_outputs(scenario_file, tmp_path):
    for threads in (1, 2):
        result = flowstate("run", scenario_file, "--runs", 3, "--threads", threads, "--out", tmp_path / str(threads))
        assert result.returncode == 0, result.stderr
    for file in ("summary.json", "timeseries.csv"):
        assert (tmp_path / "1" / file).read_text() == (tmp_path / "2" / file).read_text()


def test_missing_file(tmp_path):
    assert_one_line_error(flowstate("run", tmp_path / "nope.toml"), "nope.toml: cannot read")


def test_version():
    import flowstate as fs

    result = flowstate("--version")
    assert result.returncode == 0 and result.stdout == f"flowstate {fs.__version__}\n", result


def test_set_changes_the_scenario_before_the_run(scenario_file, tmp_path):
    assert flowstate("run", scenario_file, "--out", tmp_path / "a").returncode == 0
    result = flowstate(
        "run", scenario_file, "--out", tmp_path / "b",
        "--set", "link.capacity=1Mbps", "--set", "flows.data.priority=0.5", "--set", "flows[0].overrides.rate=600kbps",
    )
    assert result.returncode == 0, result.stderr
    plain = json.loads((tmp_path / "a" / "summary.json").read_text())
    changed = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert changed["flows"][1]["priority"] == 0.5 and plain["flows"][1]["priority"] == 3
    assert changed["flows"][0]["send_rate_mbps"] < 0.65 < plain["flows"][0]["send_rate_mbps"]
    series = (tmp_path / "b" / "timeseries.csv").read_text().splitlines()
    capacity = series[0].split(",").index("capacity_mbps")
    assert series[1].split(",")[capacity] == "1.0"


def test_set_errors_name_the_file_and_the_field(scenario_file):
    assert_one_line_error(
        flowstate("run", scenario_file, "--set", "link.capacity=fast"), f"{scenario_file}: link.capacity"
    )


def test_unknown_key(tmp_path):
    path = tmp_path / "typo.toml"
    path.write_text(SCENARIO.replace('capacity = "2Mbps"', 'capcity = "2Mbps"'))
    assert_one_line_error(flowstate("run", path), "typo.toml: link.capcity: unknown field `capcity`")


def test_negative_capacity(tmp_path):
    path = tmp_path / "neg.toml"
    path.write_text(SCENARIO.replace('capacity = "2Mbps"', 'capacity = "-2Mbps"'))
    assert_one_line_error(flowstate("run", path), "neg.toml: link.capacity: must be > 0")


def test_bad_toml_syntax(tmp_path):
    path = tmp_path / "syntax.toml"
    path.write_text(SCENARIO.replace('duration = "6s"', 'duration = = "6s"'))
    assert_one_line_error(flowstate("run", path), "syntax.toml: line 2:")


def test_missing_scenario_argument():
    assert_one_line_error(flowstate("run"), "SCENARIO.toml")


@pytest.mark.parametrize(
    "flag, value, expected",
    [
        ("--runs", "0", "argument --runs: expected an integer in [1, 100000], got 0"),
        ("--runs", "-3", "argument --runs"),
        ("--runs", "two", "argument --runs: expected an integer in [1, 100000], got 'two'"),
        ("--seed", "-1", "argument --seed: expected an integer in [0, 2^64 - 1], got -1"),
        ("--seed", "1.5", "argument --seed: expected an integer in [0, 2^64 - 1], got '1.5'"),
        ("--seed", "abc", "argument --seed"),
        ("--seed", str(2**64), "argument --seed"),
        ("--threads", "0", "argument --threads"),
    ],
)
def test_bad_flags(scenario_file, flag, value, expected):
    assert_one_line_error(flowstate("run", scenario_file, flag, value), expected)


def test_seed_overflow_with_runs(scenario_file):
    assert_one_line_error(flowstate("run", scenario_file, "--seed", 2**64 - 1, "--runs", 2), "overflow")


def test_unwritable_out(scenario_file, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert_one_line_error(flowstate("run", scenario_file, "--out", blocker / "sub"))


class _Terminal:
    """A stream that says it is a terminal, recording what is written."""

    def __init__(self):
        self.text = []

    def isatty(self):
        return True

    def write(self, s):
        self.text.append(s)
        return len(s)

    def flush(self):
        pass


def test_progress_bar_only_on_a_terminal():
    from flowstate.cli import run as run_command

    seen = []

    def simulate(progress):
        seen.append(progress)
        if progress is not None:
            for done in (1, 2, 3):
                progress(done, 3)
        return "result"

    class Pipe(_Terminal):
        def isatty(self):
            return False

    assert run_command._run_with_progress(simulate, 3, Pipe()) == "result"
    assert seen == [None]
    terminal = _Terminal()
    assert run_command._run_with_progress(simulate, 3, terminal) == "result"
    assert seen[1] is not None
    assert "simulating" in "".join(terminal.text)


def test_out_folder_names_are_safe():
    from pathlib import Path

    from flowstate.cli.run import out_folder

    assert out_folder("p000 table5/fsev2") == Path("out/p000_table5_fsev2")
    assert out_folder("../..") == Path("out/scenario")
    assert out_folder("ok-name_1.2") == Path("out/ok-name_1.2")


def test_unset_then_set_an_inline_array_and_table(scenario_file, tmp_path):
    result = flowstate(
        "run", scenario_file, "--out", tmp_path / "sched",
        "--unset", "link.capacity",
        "--set", 'link.capacity_schedule=[{at="0s",rate="1Mbps"},{at="3s",rate="500kbps"}]',
        "--set", 'coupling={mechanism="none"}',
    )
    assert result.returncode == 0, result.stderr
    series = (tmp_path / "sched" / "timeseries.csv").read_text().splitlines()
    header = series[0].split(",")
    capacities = {row.split(",")[header.index("capacity_mbps")] for row in series[1:]}
    assert capacities == {"1.0", "0.5"}
    # without --unset the file's capacity and the schedule clash
    clash = flowstate("run", scenario_file, "--set", 'link.capacity_schedule=[{at="0s",rate="1Mbps"}]')
    assert_one_line_error(clash, f"{scenario_file}: link")


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["--unset", "link.capcity"], ["two.toml: link.capcity: 'capcity' is not there to remove"]),
        (["--unset", "flows.nope"], ["flows.nope: no flow named 'nope'"]),
        (["--set", "link.capacity_schedule=[{at=0s}]"], ["--set link.capacity_schedule=", "is not a TOML array"]),
        (["--set", "coupling.options={x=1"], ["--set coupling.options=", "is not a TOML inline table"]),
        (["--set", "cap:link.capacity=1Mbps"], ["--set cap:link.capacity=1Mbps: an axis name (cap:) is for 'flowstate sweep'"]),
    ],
)
def test_unset_and_toml_value_errors_are_one_line(scenario_file, args, fragments):
    assert_one_line_error(flowstate("run", scenario_file, *args), *fragments)


TRACE = "time_s,rate_Mbps\n0,1.0\n2,0.5\n"


def test_trace_paths_in_the_file_are_read_from_its_folder_and_set_paths_from_the_current_folder(tmp_path):
    beside, cwd = tmp_path / "scenario", tmp_path / "cwd"
    beside.mkdir()
    cwd.mkdir()
    (beside / "beside.csv").write_text(TRACE)
    (cwd / "here.csv").write_text(TRACE)
    scenario = beside / "s.toml"
    scenario.write_text(SCENARIO.replace('capacity = "2Mbps"', 'capacity_trace = { file = "beside.csv", format = "csv" }'))
    # written in the file: the file's folder, wherever the command runs
    assert flowstate("run", scenario, "--out", tmp_path / "a", cwd=cwd).returncode == 0
    # given with --set: the current folder
    ok = flowstate("run", scenario, "--out", tmp_path / "b", "--set", "link.capacity_trace.file=here.csv", cwd=cwd)
    assert ok.returncode == 0, ok.stderr
    missing = flowstate("run", scenario, "--set", "link.capacity_trace.file=beside.csv", cwd=cwd)
    assert_one_line_error(missing, "link.capacity_trace.file", "beside.csv")
