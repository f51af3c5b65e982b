"""`flowstate sweep` end to end on a tiny 3-second scenario: the local process pool,
resumability (deleted point files are the only ones rerun), a changed spec, Ctrl-C,
determinism across worker counts and executors (Ray on a local instance), derived
metrics, and bad input as one-line errors with exit status 2."""

import csv
import json
import math
import subprocess
import sys
import time

import pytest

from flowstate.sweep.executors import InlineExecutor, LocalExecutor, RayExecutor, run_task
from flowstate.sweep.spec import load_sweep_file
from flowstate.sweep.run import run_sweep
from flowstate.output_files import SWEEP_POINTS_DIR as POINTS_DIR
from flowstate.output_files import SWEEP_RESULTS_FILE as RESULTS_FILE
from flowstate.output_files import SWEEP_SPEC_FILE as SPEC_FILE
from flowstate.output_files import SWEEP_SUMMARY_FILE as SUMMARY_FILE
from cli_support import assert_one_line_error, default_sigint, flowstate

SCENARIO = """\
name = "tiny"
duration = "3s"
[link]
capacity = "2Mbps"
delay = "25ms"
queue = "100ms"
[[flows]]
name = "video"
kind = "cbr"
overrides = { rate = "1.5Mbps", packet_size = "1000B" }
[[flows]]
name = "data"
kind = "cbr"
overrides = { rate = "1Mbps", packet_size = "1000B" }
"""

SWEEP = """\
scenario = "tiny.toml"
name = "tiny-capacity"
seeds = "1-2"
metrics = ["aggregate.utilization", "flows.video.throughput_mbps", "flows.data.loss_ratio"]
objective = "aggregate.utilization"
[[axes]]
key = "link.capacity"
values = ["1Mbps", "2Mbps", "4Mbps"]
"""


@pytest.fixture
def sweep_path(tmp_path):
    (tmp_path / "tiny.toml").write_text(SCENARIO)
    path = tmp_path / "sweep.toml"
    path.write_text(SWEEP)
    return path


class Counting:
    """An executor that counts the jobs it is given."""

    name = "counting"

    def __init__(self, inner=None):
        self.inner = inner or InlineExecutor()
        self.jobs = 0

    def run(self, jobs):
        self.jobs += len(jobs)
        yield from self.inner.run(jobs)


def assert_one_line_error(result, *fragments):
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and "panicked" not in result.stderr
    err = result.stderr.splitlines()[-1]
    assert err.startswith("flowstate: error: "), result.stderr
    assert sum(1 for line in result.stderr.splitlines() if line.startswith("flowstate: error")) == 1
    for fragment in fragments:
        assert fragment in err, result.stderr


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_local_pool_end_to_end_then_resume_via_cli(sweep_path, tmp_path):
    out = tmp_path / "out"
    first = flowstate("sweep", sweep_path, "--out", out, "--workers", 2, "--no-plots")
    assert first.returncode == 0, first.stderr
    assert "6 tasks: 0 reused, 6 computed" in first.stdout
    assert "3 points x 2 seeds = 6 tasks on local (2 workers)" in first.stderr
    assert "best points of tiny-capacity by aggregate.utilization" in first.stdout
    rows = read_csv(out / RESULTS_FILE)
    assert [(r["capacity"], r["seed"]) for r in rows] == [
        (c, s) for c in ("1Mbps", "2Mbps", "4Mbps") for s in ("1", "2")
    ]
    summary = read_csv(out / SUMMARY_FILE)
    assert [r["point"] for r in summary] == ["capacity=1Mbps", "capacity=2Mbps", "capacity=4Mbps"]
    util = [float(r["aggregate.utilization_mean"]) for r in summary]
    # 2.5 Mbit/s offered: the 1 and 2 Mbit/s links are full, the 4 Mbit/s link is not
    assert util[0] > 0.9 and util[1] > 0.9 and util[2] < 0.8
    assert all(r["runs"] == "2" for r in summary)
    # the best point by utilization is printed first
    table = first.stdout[first.stdout.index("best points") :]
    assert table.index("1Mbps") < table.index("4Mbps") or table.index("2Mbps") < table.index("4Mbps")
    assert len(list((out / POINTS_DIR).glob("*.json"))) == 6
    spec = json.loads((out / SPEC_FILE).read_text())
    assert spec["tasks"] == 6 and spec["computed"] == 6 and spec["spec"]["seeds"] == [1, 2]

    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "sweep" and manifest["status"] == "complete" and manifest["seeds"] == [1, 2]
    assert manifest["sets"] == [] and manifest["scenario"] == spec["spec"]["scenario"]

    refused = flowstate("sweep", sweep_path, "--out", out, "--workers", 2, "--no-plots")
    assert_one_line_error(refused, f"{out} already holds a previous run's outputs", "--force", "--resume")
    again = flowstate("sweep", sweep_path, "--out", out, "--workers", 2, "--no-plots", "--resume")
    assert again.returncode == 0, again.stderr
    assert "6 tasks: 6 reused, 0 computed" in again.stdout
    assert read_csv(out / RESULTS_FILE) == rows


def test_resume_recomputes_only_deleted_points(sweep_path, tmp_path):
    spec = load_sweep_file(sweep_path)
    out = tmp_path / "out"
    ex = Counting()
    first = run_sweep(spec, out, ex)
    assert (first.reused, first.computed, ex.jobs) == (0, 6, 6)
    results = (out / RESULTS_FILE).read_bytes()
    files = sorted((out / POINTS_DIR).glob("*.json"))
    files[3].unlink()
    ex2 = Counting()
    second = run_sweep(load_sweep_file(sweep_path), out, ex2)
    assert (second.reused, second.computed, ex2.jobs) == (5, 1, 1)
    assert (out / RESULTS_FILE).read_bytes() == results
    # a damaged point file is recomputed, not trusted
    files[0].write_text("{not json")
    ex3 = Counting()
    third = run_sweep(load_sweep_file(sweep_path), out, ex3)
    assert (third.reused, ex3.jobs) == (5, 1) and (out / RESULTS_FILE).read_bytes() == results
    # --fresh forgets everything
    ex4 = Counting()
    assert run_sweep(load_sweep_file(sweep_path), out, ex4, fresh=True).computed == 6 and ex4.jobs == 6


def test_changed_spec_reuses_matching_tasks(sweep_path, tmp_path):
    out = tmp_path / "out"
    run_sweep(load_sweep_file(sweep_path), out, InlineExecutor())
    sweep_path.write_text(SWEEP.replace('"4Mbps"]', '"4Mbps", "8Mbps"]').replace('"1-2"', '"1-3"'))
    ex = Counting()
    result = run_sweep(load_sweep_file(sweep_path), out, ex)
    # old: 3 capacities x seeds 1-2; new: 4 x 1-3 -> 6 reused, 6 new
    assert result.spec_changed and (result.reused, result.computed, ex.jobs) == (6, 6, 6)
    assert len(read_csv(out / RESULTS_FILE)) == 12
    # the metrics list is not part of a task: changing it reuses every task
    sweep_path.write_text(SWEEP.replace('"flows.data.loss_ratio"', '"aggregate.jain_index"'))
    result = run_sweep(load_sweep_file(sweep_path), out, Counting())
    assert (result.reused, result.computed) == (6, 0)
    assert "aggregate.jain_index" in read_csv(out / RESULTS_FILE)[0]


def test_same_results_whatever_the_worker_count(sweep_path, tmp_path):
    spec = load_sweep_file(sweep_path)
    run_sweep(spec, tmp_path / "a", InlineExecutor())
    run_sweep(load_sweep_file(sweep_path), tmp_path / "b", LocalExecutor(2))
    run_sweep(load_sweep_file(sweep_path), tmp_path / "c", LocalExecutor(3))
    a = (tmp_path / "a" / RESULTS_FILE).read_bytes()
    assert a == (tmp_path / "b" / RESULTS_FILE).read_bytes() == (tmp_path / "c" / RESULTS_FILE).read_bytes()
    assert (tmp_path / "a" / SUMMARY_FILE).read_bytes() == (tmp_path / "c" / SUMMARY_FILE).read_bytes()


class Interrupting:
    """Yields ``n`` results, then raises KeyboardInterrupt (Ctrl-C)."""

    name = "interrupting"

    def __init__(self, n):
        self.n = n

    def run(self, jobs):
        for i, job in enumerate(jobs):
            if i == self.n:
                raise KeyboardInterrupt
            yield i, run_task(*job)


def test_ctrl_c_keeps_finished_points(sweep_path, tmp_path):
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        run_sweep(load_sweep_file(sweep_path), out, Interrupting(2))
    assert len(list((out / POINTS_DIR).glob("*.json"))) == 2
    assert not list((out / POINTS_DIR).glob(".*tmp"))  # no half-written files
    result = run_sweep(load_sweep_file(sweep_path), out, InlineExecutor())
    assert (result.reused, result.computed) == (2, 4)


def test_closing_the_pool_stops_its_workers(sweep_path):
    spec = load_sweep_file(sweep_path)
    from flowstate.sweep.spec import expand

    jobs = [(t.point.scenario, t.seed, []) for t in spec.tasks(expand(spec))] * 4
    runner = LocalExecutor(2).run(jobs)
    index, result = next(runner)
    assert "summary" in result and 0 <= index < len(jobs)
    t0 = time.monotonic()
    runner.close()  # what Ctrl-C does to the generator
    assert time.monotonic() - t0 < 5


GCC_SCENARIO = """\
name = "tiny-gcc"
duration = "3s"
[link]
capacity = "1Mbps"
delay = "25ms"
queue = "200ms"
[[flows]]
name = "gcc"
kind = "gcc"
"""


def test_derived_objective_and_plots(tmp_path):
    (tmp_path / "g.toml").write_text(GCC_SCENARIO)
    path = tmp_path / "sw.toml"
    path.write_text(
        'scenario = "g.toml"\nseeds = [1]\nobjective = "utility"\n'
        'metrics = ["flows.gcc.throughput_mbps"]\n'
        '[[derived]]\nname = "utility"\nfn = "gcc_utility"\nargs = { alpha = 2, beta = 1, delta = 0.15 }\n'
        '[[axes]]\nkey = "link.capacity"\nvalues = ["0.5Mbps", "1Mbps"]\n'
    )
    out = tmp_path / "out"
    result = flowstate("sweep", path, "--out", out, "--workers", 1)
    assert result.returncode == 0, result.stderr
    rows = read_csv(out / RESULTS_FILE)
    assert list(rows[0]) == ["point", "capacity", "seed", "flows.gcc.throughput_mbps", "derived.utility"]
    assert all(math.isfinite(float(r["derived.utility"])) for r in rows)
    assert "best points of sw by derived.utility" in result.stdout
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    assert (out / "plots" / "derived.utility.png").stat().st_size > 1000


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["--set", "link.capacity"], ["--set link.capacity: expected KEY=V1"]),
        (["--seeds", "5-1"], ["--seeds: seed range '5-1' runs backwards"]),
        (["--metric", "aggregate.utilisation"], ["no field 'utilisation'"]),
        (["--metric", "flows.nope.share"], ["no flow of the scenario matches"]),
        (["--set", "flows.video.overrides.rate=fast"], ["point capacity=1Mbps,rate=fast: flows[0].overrides.rate"]),
        (["--set", "flows.nope.priority=1"], ["no flow named 'nope'"]),
        (["--workers", "0"], ["--workers: expected an integer >= 1"]),
        (["--executor", "spark"], ["--executor: invalid choice"]),
        (["--set", "link.capacity=logspace(1,10,0)Mbps"], ["num: expected an integer in [1, 1000000], got 0"]),
    ],
)
def test_bad_flags_are_one_line_errors(sweep_path, tmp_path, args, fragments):
    result = flowstate("sweep", sweep_path, "--out", tmp_path / "o", "--workers", 1, "--no-plots", *args)
    assert_one_line_error(result, *fragments)


def test_bad_files_are_one_line_errors(tmp_path, sweep_path):
    assert_one_line_error(flowstate("sweep", tmp_path / "missing.toml"), "missing.toml", "cannot read")
    sweep_path.write_text(SWEEP + "\n[[axes]]\nkey = 3\nvalues = [1]\n")
    assert_one_line_error(flowstate("sweep", sweep_path), str(sweep_path), "axes[1].key")
    (tmp_path / "d.toml").write_text(
        'scenario = "tiny.toml"\n[[derived]]\nname = "x"\nfn = "no_such_fn"\n'
    )
    assert_one_line_error(flowstate("sweep", tmp_path / "d.toml", "--out", tmp_path / "o"), "no_such_fn")


def test_scenario_file_with_set_flags(tmp_path):
    (tmp_path / "tiny.toml").write_text(SCENARIO)
    out = tmp_path / "o"
    result = flowstate(
        "sweep", tmp_path / "tiny.toml", "--set", "flows.video.overrides.rate=0.5Mbps,1Mbps",
        "--seeds", "3", "--out", out, "--workers", 1, "--no-plots",
    )
    assert result.returncode == 0, result.stderr
    rows = read_csv(out / RESULTS_FILE)
    assert [(r["rate"], r["seed"]) for r in rows] == [("0.5Mbps", "3"), ("1Mbps", "3")]
    assert float(rows[0]["aggregate.throughput_mbps"]) < float(rows[1]["aggregate.throughput_mbps"])


def test_ray_executor_on_a_local_instance(sweep_path, tmp_path):
    ray = pytest.importorskip("ray", reason="ray cannot be installed on this platform")
    run_sweep(load_sweep_file(sweep_path), tmp_path / "inline", InlineExecutor())
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        result = run_sweep(load_sweep_file(sweep_path), tmp_path / "ray", RayExecutor())
        assert ray.is_initialized()  # not ours to shut down
    finally:
        ray.shutdown()
    assert result.computed == 6
    assert (tmp_path / "ray" / RESULTS_FILE).read_bytes() == (tmp_path / "inline" / RESULTS_FILE).read_bytes()


LONG = """\
name = "long"
duration = "150s"
[link]
capacity = "20Mbps"
delay = "25ms"
queue = "100ms"
[[flows]]
name = "a"
kind = "tcp-cubic"
"""


def test_sigint_stops_the_cli_and_keeps_finished_tasks(tmp_path):
    import signal

    (tmp_path / "long.toml").write_text(LONG)
    out = tmp_path / "o"
    args = ["sweep", tmp_path / "long.toml", "--set", "link.capacity=linspace(10,30,6)Mbps", "--workers", 2]
    cmd = [sys.executable, "-m", "flowstate", *map(str, args), "--out", str(out), "--no-plots"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list((out / POINTS_DIR).glob("*.json")) and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    stdout, stderr = proc.communicate(timeout=30)
    if proc.returncode == 0:
        pytest.skip("the sweep finished before the signal")
    assert proc.returncode == 130 and time.monotonic() - t0 < 10, stderr
    assert "Traceback" not in stderr and stderr.strip().splitlines()[-1].endswith(f"--out {out} --no-plots --resume")
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    stored = len(list((out / POINTS_DIR).glob("*.json")))
    assert 1 <= stored < 6 and not list((out / POINTS_DIR).glob(".*tmp"))
    again = flowstate(*args, "--out", out, "--no-plots", "--resume")
    assert again.returncode == 0 and f"6 tasks: {stored} reused, {6 - stored} computed" in again.stdout


def test_a_bug_in_a_task_is_not_reported_as_bad_input(sweep_path, tmp_path, monkeypatch):
    # A ValueError that is not a FlowstateError is a bug: run_task marks it, and the sweep
    # raises it as a RuntimeError (a traceback on the CLI), not as a one-line SweepError.
    from flowstate import simulation
    from flowstate.sweep.spec import SweepError

    def broken(*args, **kwargs):
        raise ValueError("math domain error")

    monkeypatch.setattr(simulation, "run", broken)
    assert run_task({}, 1, []) == {"error": "math domain error", "bug": "ValueError"}
    with pytest.raises(RuntimeError, match=r"point .*, seed 1: ValueError: math domain error") as info:
        run_sweep(load_sweep_file(sweep_path), tmp_path / "out", InlineExecutor())
    assert not isinstance(info.value, SweepError)
    monkeypatch.undo()
    assert set(run_task({}, 1, [])) == {"error"}  # bad input (a ScenarioError): no "bug"


def test_a_task_runs_without_the_trace_hash_and_gives_the_same_summary(monkeypatch):
    """A sweep task returns the summary and derived metrics only, so its run skips the
    fingerprint ([measure] trace_hash = false); the summary is the run's with it."""
    import tomllib

    from flowstate import simulation

    scenario = tomllib.loads(SCENARIO)
    hashes = []
    real_run = simulation.run
    monkeypatch.setattr(simulation, "run", lambda *a, **k: (r := real_run(*a, **k), hashes.extend(r.trace_hashes))[0])
    task = run_task(scenario, 3, [])
    assert hashes == [None]
    assert task["summary"] == real_run(scenario, seed=3).runs[0]
    assert isinstance(real_run(scenario, seed=3).trace_hashes[0], int)


def test_two_priorities_on_named_axes_end_to_end(tmp_path):
    (tmp_path / "tiny.toml").write_text(SCENARIO.replace('duration = "3s"', 'duration = "2s"'))
    out = tmp_path / "o"
    args = ("sweep", tmp_path / "tiny.toml", "--seeds", "1-2", "--out", out, "--workers", 1, "--no-plots",
            "--metric", "flows.video.throughput_mbps", "--objective", "flows.video.priority_share")
    clash = flowstate(*args, "--set", "flows.video.priority=2,1", "--set", "flows.data.priority=1,2")
    assert_one_line_error(clash, "two axes are named 'priority'", "--set data_priority:flows.data.priority=")
    result = flowstate(*args, "--set", "video_prio:flows.video.priority=2,1", "--set", "data_prio:flows.data.priority=1,2")
    assert result.returncode == 0, result.stderr
    rows = read_csv(out / RESULTS_FILE)
    assert list(rows[0])[:4] == ["point", "video_prio", "data_prio", "seed"]
    # axis order, numbers ascending (video_prio was given as 2,1), first axis slowest
    grid = [("1", "1"), ("1", "2"), ("2", "1"), ("2", "2")]
    assert [(r["video_prio"], r["data_prio"], r["seed"]) for r in rows] == [(v, d, s) for v, d in grid for s in "12"]
    summary = read_csv(out / SUMMARY_FILE)
    assert [(r["video_prio"], r["data_prio"]) for r in summary] == grid
    # each point ran with its priorities: video's part of the priorities is video / (video + data)
    assert [float(r["flows.video.priority_share_mean"]) for r in summary] == pytest.approx([1 / 2, 1 / 3, 2 / 3, 1 / 2])
    assert "video_prio" in result.stdout and "data_prio" in result.stdout  # the best-points table
    # the report lists the points in the same order
    from flowstate.report import folder_results

    doc = folder_results.results_for(out)
    assert [(p["grid"]["video_prio"], p["grid"]["data_prio"]) for p in doc["points"]] == [
        (int(v), int(d)) for v, d in grid
    ]


def test_categorical_axes_are_bars_numeric_axes_lines_labels_carry_units(tmp_path):
    pytest.importorskip("matplotlib")
    from flowstate.sweep.executors import InlineExecutor
    from flowstate.sweep.plots import _pyplot, metric_figure, write_plots

    # A gcc video flow: the mechanisms have a flow to couple (cbr flows have none).
    video = 'kind = "cbr"\noverrides = { rate = "1.5Mbps", packet_size = "1000B" }'
    tiny = SCENARIO.replace('duration = "3s"', 'duration = "1s"').replace(video, 'kind = "gcc"')
    (tmp_path / "tiny.toml").write_text(tiny)
    path = tmp_path / "sw.toml"
    path.write_text(
        'scenario = "tiny.toml"\nseeds = "1-2"\nmetrics = ["flows.video.throughput_mbps"]\n'
        '[[axes]]\nkey = "coupling.mechanism"\nvalues = ["none", "fsev2"]\n'
        '[[axes]]\nname = "cap"\nkey = "link.capacity"\nvalues = ["1Mbps", "2Mbps"]\n'
    )
    result = run_sweep(load_sweep_file(path), tmp_path / "o", InlineExecutor())
    plt = _pyplot()
    fig = metric_figure(result, "flows.video.throughput_mbps", plt)
    ax = fig.axes[0]
    from matplotlib.container import BarContainer

    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert [len(c) for c in bars] == [2, 2]  # a bar per capacity in each mechanism's group
    assert not [line for line in ax.lines if line.get_marker() == "o"]  # no line through the categories
    assert [t.get_text() for t in ax.get_xticklabels()] == ["none", "fsev2"]
    assert ax.get_ylabel() == "video throughput (Mbit/s)" and ax.get_xlabel() == "mechanism"
    plt.close(fig)
    path.write_text(
        'scenario = "tiny.toml"\nseeds = [1]\nmetrics = ["flows.video.throughput_mbps"]\n'
        '[[axes]]\nkey = "flows.video.priority"\nvalues = [2, 1]\n'
    )
    result = run_sweep(load_sweep_file(path), tmp_path / "p", InlineExecutor())
    fig = metric_figure(result, "flows.video.throughput_mbps", plt)
    (line,) = fig.axes[0].lines
    assert list(line.get_xdata()) == [1, 2] and line.get_marker() == "o" and not fig.axes[0].containers
    plt.close(fig)
    assert [p.name for p in write_plots(result)] == ["flows.video.throughput_mbps.png"]
