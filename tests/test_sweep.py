"""`flowstate sweep` spec: seeds, axes, ranges, --set flags, metric paths, expansion,
task keys and the Fig. 8 objective fallback (no simulation here)."""

import math

import pytest

from flowstate.sweep.spec import (
    SweepError,
    expand,
    finish,
    format_value,
    load_any,
    load_sweep_file,
    parse_flag_value,
    parse_seeds,
    parse_set_flag,
    range_values,
)
from flowstate.catalogue.derived import gcc_utility
from flowstate.sweep.metrics import MetricError, metric_value, summary_value
from flowstate.sweep.store import best_points, stats, task_key

SCENARIO = """\
name = "tiny"
duration = "3s"
seed = 7
[link]
capacity = "2Mbps"
delay = "25ms"
queue = "300ms"
[[flows]]
name = "video"
kind = "cbr"
overrides = { rate = "1Mbps" }
[[flows]]
name = "data.x"
kind = "cbr"
overrides = { rate = "0.5Mbps" }
"""


@pytest.fixture
def files(tmp_path):
    (tmp_path / "s.toml").write_text(SCENARIO)
    return tmp_path


def sweep_file(folder, text, name="sw.toml"):
    path = folder / name
    path.write_text('scenario = "s.toml"\n' + text)
    return path


# ------------------------------------------------------------------ seeds


@pytest.mark.parametrize(
    "value, expected",
    [
        (5, [5]),
        ([3, 1, 2], [3, 1, 2]),
        ("1-4", [1, 2, 3, 4]),
        ("1-3,7,9-10", [1, 2, 3, 7, 9, 10]),
        (" 0 - 2 ", [0, 1, 2]),
        ("18446744073709551615", [2**64 - 1]),
    ],
)
def test_seeds_parse(value, expected):
    assert parse_seeds(value, "x") == expected


@pytest.mark.parametrize(
    "value, fragment",
    [
        ("5-1", "backwards"),
        ("1-3,2", "listed twice"),
        ("a-b", "expected seeds"),
        ("", "expected seeds"),
        ([1, "2"], "integers"),
        (True, "expected seeds"),
        (-1, "outside"),
        ("18446744073709551616", "outside"),
        ([], "no seeds"),
    ],
)
def test_bad_seeds_name_the_field(value, fragment):
    with pytest.raises(SweepError, match="^where: .*" + fragment):
        parse_seeds(value, "where")


# ------------------------------------------------------------------ ranges and axes


def test_log_range_is_geometric_with_exact_ends():
    values, log = range_values({"from": 1e-5, "to": 0.1, "num": 5, "log": True}, "r")
    assert log and values == (1e-5, 1e-4, 1e-3, 1e-2, 0.1)
    ratios = [b / a for a, b in zip(values, values[1:])]
    assert all(math.isclose(r, 10.0) for r in ratios)


def test_linear_range_with_unit():
    values, log = range_values({"from": 10, "to": 40, "num": 4, "unit": "ms"}, "r")
    assert not log and values == ("10ms", "20ms", "30ms", "40ms")
    assert range_values({"from": 3, "to": 9, "num": 1}, "r")[0] == (3.0,)


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ({"from": 0, "to": 1, "num": 3, "log": True}, "log range needs"),
        ({"from": 1, "to": 2}, "num: required"),
        ({"from": 1, "to": 2, "num": 0}, "num: expected an integer in \\[1, 1000000\\], got 0"),
        ({"from": "a", "to": 2, "num": 2}, "from: expected a number"),
        ({"from": 1, "to": 2, "num": 2, "step": 1}, "unknown key 'step'"),
        ([1, 2], "expected a table"),
    ],
)
def test_bad_ranges(spec, fragment):
    with pytest.raises(SweepError, match=fragment):
        range_values(spec, "r")


def test_product_expansion_first_axis_slowest(files):
    path = sweep_file(
        files,
        'seeds = "1-2"\n'
        '[[axes]]\nkey = "link.capacity"\nvalues = ["1Mbps", "2Mbps"]\n'
        '[[axes]]\nkey = "flows.video.priority"\nname = "prio"\nvalues = [1, 2, 4]\n',
    )
    spec = load_sweep_file(path)
    points = expand(spec)
    assert [p.label for p in points][:4] == [
        "capacity=1Mbps,prio=1",
        "capacity=1Mbps,prio=2",
        "capacity=1Mbps,prio=4",
        "capacity=2Mbps,prio=1",
    ]
    assert len(points) == 6 and len(spec.tasks(points)) == 12
    last = points[-1].scenario
    assert last["link"]["capacity"] == "2Mbps" and last["flows"][0]["priority"] == 4
    assert "priority" not in spec.scenario["flows"][0]  # the base is not modified


def test_fixed_set_applies_before_axes_and_default_seeds(files):
    path = sweep_file(files, 'set = { duration = "2s", "link.capacity" = "5Mbps" }\n')
    spec = load_sweep_file(path)
    assert spec.seeds == [7]  # the scenario's seed
    (point,) = expand(spec)
    assert point.label == "base" and point.scenario["duration"] == "2s"


def test_no_axes_and_scenario_file_are_one_point(files):
    spec = load_any(files / "s.toml")
    assert spec.name == "tiny" and spec.axes == [] and len(expand(spec)) == 1


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("bogus = 1\n", "unknown key 'bogus'"),
        ('[[axes]]\nkey = "link.capacity"\n', "exactly one of values and range"),
        ('[[axes]]\nvalues = [1]\n', r"axes\[0\].key: required"),
        ('[[axes]]\nkey = "link..x"\nvalues = [1]\n', "bad path segment"),
        ('[[axes]]\nkey = "link.capacity"\nvalues = []\n', "non-empty list"),
        ('[[axes]]\nkey = "link.capacity"\nvalues = [1, 1]\n', "listed twice"),
        ('[[axes]]\nkey = "flows.nope.priority"\nvalues = [1]\n', "no flow named 'nope'"),
        ('[[axes]]\nkey = "flows[9].priority"\nvalues = [1]\n', "past the end"),
        (
            '[[axes]]\nkey = "link.capacity"\nvalues = [1]\n[[axes]]\nkey = "flows[0].overrides.capacity"\nvalues = [2]\n',
            "two axes are named 'capacity'",
        ),
        ('metrics = ["aggregate"]\n', "expected a metric path"),
        ('metrics = ["flows.nope.share"]\n', "no flow of the scenario matches"),
        ('metrics = ["derived.u"]\n', "no \\[\\[derived\\]\\] named 'u'"),
        ('objective = "x.y"\n', "objective: expected a metric path"),
        ('goal = "up"\n', 'goal: expected "max" or "min"'),
        ('seeds = "3-1"\n', "seeds: seed range"),
        ('[[derived]]\nname = "U"\nfn = "gcc_utility"\n', "derived\\[0\\].name"),
        ('set = { "flows[5].priority" = 2 }\n', "set: flows\\[5\\].priority"),
        ('seeds = "0-1000000"\n', "more than"),
        (
            # A gcc flow: the mechanisms have a flow to couple (cbr flows have none).
            'set = { flows = [{ name = "video", kind = "gcc" }] }\n'
            '[[axes]]\nkey = "coupling.mechanism"\nvalues = ["fse", "fsev3"]\n',
            "point mechanism=fsev3: .*fsev3",
        ),
        (
            'set = { "coupling.mechanism" = "fsev2", flows = [{ name = "video", kind = "gcc" }] }\n'
            '[[axes]]\nkey = "coupling.options.rate_priority_bost"\nvalues = [1.1]\n',
            "point rate_priority_bost=1.1: .*coupling.options.rate_priority_bost",
        ),
    ],
)
def test_bad_sweep_files_name_file_and_field(files, text, fragment):
    path = sweep_file(files, text)
    with pytest.raises(SweepError, match=fragment) as e:
        spec = load_sweep_file(path)
        expand(spec)
    assert str(path) in str(e.value) and "\n" not in str(e.value)


def test_missing_scenario_and_not_a_scenario(files):
    with pytest.raises(SweepError, match="cannot read"):
        load_sweep_file(sweep_file(files, "", name="a.toml").with_name("missing.toml"))
    (files / "b.toml").write_text('scenario = "nope.toml"\n')
    with pytest.raises(SweepError, match="b.toml: scenario: .*nope.toml: cannot read"):
        load_sweep_file(files / "b.toml")
    (files / "c.toml").write_text('x = 1\n')
    with pytest.raises(SweepError, match="neither a sweep file"):
        load_any(files / "c.toml")


def test_objective_is_added_to_metrics_and_derived_name_resolves(files):
    path = sweep_file(
        files,
        'metrics = ["aggregate.utilization"]\nobjective = "u"\n'
        '[[derived]]\nname = "u"\nfn = "gcc_utility"\nargs = { alpha = 2 }\n',
    )
    spec = load_sweep_file(path)
    assert spec.objective == "derived.u" and spec.metrics == ["aggregate.utilization", "derived.u"]


# ------------------------------------------------------------------ --set flags


@pytest.mark.parametrize(
    "text, expected",
    [("0.5", 0.5), ("3", 3), ("1e-5", 1e-5), ("true", True), ('"a,b"', "a,b"), ("10ms", "10ms"), ("fsev2", "fsev2")],
)
def test_flag_values(text, expected):
    value = parse_flag_value(text)
    assert value == expected and type(value) is type(expected)


def test_set_flags():
    axis = parse_set_flag("flows.gcc.overrides.gamma_bar=10ms, 20ms,40ms")
    assert axis.name == "gamma_bar" and axis.values == ("10ms", "20ms", "40ms")
    axis = parse_set_flag("flows.gcc.overrides.k_u=logspace(1e-4, 1e-2, 3)")
    assert axis.log and axis.values == (1e-4, 1e-3, 1e-2)
    axis = parse_set_flag("link.capacity=linspace(1,3,3)Mbps")
    assert axis.values == ("1Mbps", "2Mbps", "3Mbps") and not axis.log
    assert parse_set_flag("flows[1].priority=1,0.5").name == "priority"


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("link.capacity", "expected KEY=V1"),
        ("=1,2", "expected KEY=V1"),
        ("link.capacity=1Mbps,,2Mbps", "empty value"),
        ("link.capacity=logspace(a,1,3)", "takes \\(FROM, TO, NUM\\)"),
        ("link.capacity=logspace(0,1,3)", "log range needs"),
        ("link..capacity=1", "bad path segment"),
    ],
)
def test_bad_set_flags(text, fragment):
    with pytest.raises(SweepError, match=fragment):
        parse_set_flag(text)


def test_format_value():
    assert [format_value(v) for v in (0.00018, 1e-5, 2, "2Mbps", True)] == ["0.00018", "1e-05", "2", "2Mbps", "true"]


# ------------------------------------------------------------------ metrics, keys, stats

SUMMARY = {
    "aggregate": {"utilization": 0.9, "jain_index": 1.0},
    "flows": [
        {"name": "data", "throughput_mbps": 1.0, "queuing_delay_ms": {"mean": 10.0}, "rtt_ms": {"p95": None}},
        {"name": "data.x", "throughput_mbps": 0.5, "queuing_delay_ms": {"mean": 0.2}, "rtt_ms": {"p95": 80.0}},
    ],
}


def test_metric_paths_of_a_summary():
    assert summary_value(SUMMARY, "aggregate.utilization") == 0.9
    assert summary_value(SUMMARY, "flows.data.throughput_mbps") == 1.0
    assert summary_value(SUMMARY, "flows.data.x.rtt_ms.p95") == 80.0  # the longest flow name wins
    assert metric_value(SUMMARY, {}, "flows.data.rtt_ms.p95") is None
    assert metric_value(SUMMARY, {"u": {"value": -2.5}}, "derived.u") == -2.5
    with pytest.raises(MetricError, match="no field 'utilisation'"):
        summary_value(SUMMARY, "aggregate.utilisation")
    with pytest.raises(MetricError, match="a table, not a number"):
        summary_value(SUMMARY, "flows.data.rtt_ms")


def rows(*flows, times=(0.0, 0.5, 1.0)):
    """A time series: per flow (name, throughputs, queuing delays) over ``times``."""
    return [
        {"time_s": t, "flow": name, "throughput_mbps": x, "queuing_delay_ms": y}
        for name, xs, ys in flows
        for t, x, y in zip(times, xs, ys)
    ]


def test_gcc_utility_is_paper_002_eq_21():
    series = rows(("a", [1.0, 1.0, 1.0], [5.0, 15.0, 10.0]), ("b", [0.4, 0.6, 0.5], [0.2, 0.2, None]))
    # alpha = 2: U(x) = -1/x; beta = 1: U(y) = log y; delay floored at 1 ms
    expected = (-1 / 1.0 - 0.15 * math.log(10.0)) + (-1 / 0.5 - 0.15 * math.log(1.0))
    assert math.isclose(gcc_utility(series), expected)
    assert math.isclose(gcc_utility(series, flows=["a"]), -1 - 0.15 * math.log(10.0))
    # alpha = 0.5: U(x) = 2 sqrt(x); window [0.5, 1.0): the middle bin only
    assert math.isclose(gcc_utility(series, alpha=0.5, delta=0.0, flows=["b"]), 2 * math.sqrt(0.5))
    assert math.isclose(gcc_utility(series, flows=["a"], start=0.5, end=1.0), -1 - 0.15 * math.log(15.0))
    assert gcc_utility(rows(("g", [0.0, 0.0, 0.0], [5, 5, 5]))) is None  # starved
    assert gcc_utility(rows(("g", [1.0, 1.0, 1.0], [None, None, None]))) is None  # no delay sample
    # more throughput or less delay is better
    assert gcc_utility(rows(("g", [2, 2, 2], [5, 5, 5]))) > gcc_utility(rows(("g", [2, 2, 2], [50, 50, 50])))
    assert gcc_utility(rows(("g", [2, 2, 2], [5, 5, 5]))) > gcc_utility(rows(("g", [1, 1, 1], [5, 5, 5])))


def test_derived_arguments_are_checked_before_any_run():
    from flowstate.sweep.metrics import check_derived

    check_derived([{"name": "u", "fn": "gcc_utility", "args": {"alpha": 2, "from": "10s", "min_delay": "1ms"}}])
    with pytest.raises(MetricError, match="derived 'u': .*nope"):
        check_derived([{"name": "u", "fn": "gcc_utility", "args": {"nope": 1}}])
    with pytest.raises(MetricError, match="derived 'v': .*no_such_fn"):
        check_derived([{"name": "v", "fn": "no_such_fn", "args": {}}])


def test_fallback_matches_the_catalogue_module():
    derived = pytest.importorskip("flowstate.catalogue.derived")
    series = rows(("a", [1.0, 2.0, 1.5], [5.0, 15.0, 10.0]), ("b", [0.4, 0.6, 0.5], [0.2, 3.0, None]))
    spec = derived.make_spec("u", "gcc_utility", {"alpha": 2, "beta": 1, "delta": 0.15, "from": "0.5s"})
    assert math.isclose(derived.compute(spec, series), gcc_utility(series, start=0.5))


def test_task_key_depends_on_scenario_and_seed_only():
    a = {"name": "x", "link": {"capacity": "1Mbps", "delay": "1ms"}}
    b = {"link": {"delay": "1ms", "capacity": "1Mbps"}, "name": "x"}  # same dict, other order
    assert task_key(a, 1) == task_key(b, 1)
    assert task_key(a, 1) != task_key(a, 2)
    assert task_key(a, 1) != task_key({**a, "name": "y"}, 1)
    assert len(task_key(a, 1)) == 20


def test_stats_and_best_points(files):
    assert stats([1.0, 3.0, None]) == {"mean": 2.0, "std": math.sqrt(2.0), "min": 1.0, "max": 3.0}
    assert stats([None]) == {"mean": None, "std": None, "min": None, "max": None}
    spec = load_sweep_file(
        sweep_file(files, 'objective = "aggregate.utilization"\n[[axes]]\nkey = "link.capacity"\nvalues = ["1Mbps", "2Mbps", "3Mbps"]\n')
    )
    points = expand(spec)
    per_point = [(p, 1, {"aggregate.utilization": stats([v])}) for p, v in zip(points, [0.5, None, 0.9])]
    per_point = [(p, n, {**{m: stats([None]) for m in spec.metrics}, **s}) for p, n, s in per_point]
    assert [p.label for p, _, _ in best_points(spec, per_point, 5)] == ["capacity=3Mbps", "capacity=1Mbps"]
    spec.goal = "min"
    assert [p.label for p, _, _ in best_points(spec, per_point, 1)] == ["capacity=1Mbps"]


def test_finish_rejects_duplicate_keys(files):
    spec = load_any(files / "s.toml")
    spec.axes = [parse_set_flag("link.capacity=1Mbps"), parse_set_flag("link.capacity=2Mbps")]
    with pytest.raises(SweepError, match="swept twice"):
        finish(spec)


def test_flags_extend_or_replace_the_file(files):
    from flowstate.cli.main import build_parser
    from flowstate.cli.sweep import build_spec

    path = sweep_file(files, 'seeds = "1-3"\n[[axes]]\nname = "cap"\nkey = "link.capacity"\nvalues = ["1Mbps"]\n')
    args = build_parser().parse_args(
        ["sweep", str(path), "--set", "link.capacity=linspace(1,2,2)Mbps", "--set", "flows.video.priority=1,2",
         "--seeds", "4", "--metric", "flows.video.share", "--objective", "flows.video.share", "--minimize"]
    )
    spec = build_spec(args)
    assert [(a.name, a.values) for a in spec.axes] == [("cap", ("1Mbps", "2Mbps")), ("priority", (1, 2))]
    assert spec.seeds == [4] and spec.goal == "min" and spec.objective == "flows.video.share"
    assert spec.metrics[-1] == "flows.video.share" and len(expand(spec)) == 4


def test_example_sweep_files_load_and_expand():
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "scenarios" / "sweeps"
    fig8 = load_sweep_file(folder / "p002-fig8-ku-kd.toml")
    points = expand(fig8)
    assert len(points) == 25 and fig8.objective == "derived.utility"
    assert [a.key for a in fig8.axes] == ["flows.gcc.overrides.k_up", "flows.gcc.overrides.k_down"]
    assert points[-1].scenario["flows"][0]["overrides"] == {"video_max_rate": "2Mbps", "k_up": 0.1, "k_down": 0.1}
    gamma = load_sweep_file(folder / "p001-gamma-bar.toml")
    assert len(gamma.tasks(expand(gamma))) == 12 and gamma.scenario["flows"][0]["preset"] == "paper-static"


# ------------------------------------------------------------------ named axes, order, TOML values


def test_a_flag_names_its_axis():
    axis = parse_set_flag("video_prio:flows.video.priority=1,2")
    assert (axis.name, axis.key, axis.values, axis.label, axis.named) == (
        "video_prio", "flows.video.priority", (1, 2), "video_prio", True
    )
    axis = parse_set_flag("k:flows.gcc.overrides.k_up=logspace(1e-4,1e-2,3)")
    assert axis.name == "k" and axis.log
    assert not parse_set_flag("flows.video.priority=1").named


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("1st:flows.video.priority=1,2", "axis name '1st' is not an identifier"),
        ("a-b:flows.video.priority=1", "axis name 'a-b' is not an identifier"),
        ("prio:=1,2", "no path after 'prio:'"),
    ],
)
def test_bad_axis_names_in_flags(text, fragment):
    with pytest.raises(SweepError, match=fragment):
        parse_set_flag(text)


def parse_sweep_args(*argv):
    from flowstate.cli.main import build_parser
    from flowstate.cli.sweep import build_spec

    return build_spec(build_parser().parse_args(["sweep", *map(str, argv)]))


def test_two_priorities_need_names_and_the_error_shows_how(files):
    with pytest.raises(SweepError) as e:
        parse_sweep_args(files / "s.toml", "--set", "flows.video.priority=1,2", "--set", "flows[1].priority=1,2")
    message = str(e.value)
    assert "two axes are named 'priority'" in message and "\n" not in message
    assert "--set flow1_priority:flows[1].priority=..." in message
    spec = parse_sweep_args(
        files / "s.toml", "--set", "video_prio:flows.video.priority=1,2", "--set", "data_prio:flows[1].priority=1,2"
    )
    assert [a.name for a in spec.axes] == ["video_prio", "data_prio"]
    assert [p.label for p in expand(spec)][:2] == ["video_prio=1,data_prio=1", "video_prio=1,data_prio=2"]


def test_a_named_flag_renames_the_file_axis_on_its_path(files):
    path = sweep_file(files, '[[axes]]\nname = "cap"\nlabel = "capacity"\nkey = "link.capacity"\nvalues = ["1Mbps"]\n')
    assert parse_sweep_args(path, "--set", "link.capacity=2Mbps").axes[0].name == "cap"
    axis = parse_sweep_args(path, "--set", "bottleneck:link.capacity=2Mbps").axes[0]
    assert (axis.name, axis.label, axis.values) == ("bottleneck", "bottleneck", ("2Mbps",))


def test_numeric_axes_ascend_other_axes_keep_the_given_order(files):
    assert parse_set_flag("flows.video.priority=4,1,2.5").values == (1, 2.5, 4)
    assert parse_set_flag("coupling.mechanism=fsev2,none,fse").values == ("fsev2", "none", "fse")
    assert parse_set_flag("x.y=true,false").values == (True, False)
    path = sweep_file(files, '[[axes]]\nkey = "flows.video.priority"\nvalues = [3, 1, 2]\n')
    assert [p.label for p in expand(load_sweep_file(path))] == ["priority=1", "priority=2", "priority=3"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ('[{at="0s",rate="1Mbps"},{at="5s",rate="2Mbps"}]', [{"at": "0s", "rate": "1Mbps"}, {"at": "5s", "rate": "2Mbps"}]),
        ('{min_media_rate="50kbps"}', {"min_media_rate": "50kbps"}),
        ("[1, 2]", [1, 2]),
        ("(x,y)", "(x,y)"),
    ],
)
def test_flag_values_read_toml_arrays_and_tables(text, expected):
    assert parse_flag_value(text) == expected


def test_commas_inside_arrays_tables_and_quotes_do_not_split_values():
    axis = parse_set_flag('link.capacity_schedule=[{at="0s",rate="1Mbps"}],[{at="0s",rate="2Mbps"}]')
    assert axis.values == ([{"at": "0s", "rate": "1Mbps"}], [{"at": "0s", "rate": "2Mbps"}])
    assert format_value(axis.values[0]) == "[{at=0s,rate=1Mbps}]"
    assert parse_set_flag('flows.video.name="a,b",c').values == ("a,b", "c")


@pytest.mark.parametrize(
    "text", ["link.capacity_schedule=[{at=0s}]", "coupling.options={min_media_rate=50kbps}", "link.x=[1,2"]
)
def test_a_malformed_array_or_table_is_an_error_naming_the_flag(text):
    with pytest.raises(SweepError, match=r"^--set .*: .* is not a TOML (array|inline table)") as e:
        parse_set_flag(text)
    assert text.split("=")[0] in str(e.value) and "\n" not in str(e.value)


def test_unset_in_the_file_and_on_the_command_line(files):
    path = sweep_file(
        files, 'unset = ["link.capacity"]\nset = { "link.capacity_schedule" = [{ at = "0s", rate = "1Mbps" }] }\n'
    )
    (point,) = expand(load_sweep_file(path))
    assert "capacity" not in point.scenario["link"] and point.scenario["link"]["capacity_schedule"][0]["rate"] == "1Mbps"
    spec = parse_sweep_args(
        files / "s.toml", "--unset", "link.capacity", "--set", 'link.capacity_schedule=[{at="0s",rate="1Mbps"}]'
    )
    (point,) = expand(spec)
    assert "capacity" not in point.scenario["link"]
    with pytest.raises(SweepError, match=r"s.toml: --unset link.capcity: 'capcity' is not there"):
        parse_sweep_args(files / "s.toml", "--unset", "link.capcity")
    with pytest.raises(SweepError, match=r"sw.toml: unset: expected a list of paths"):
        load_sweep_file(sweep_file(files, 'unset = "link.capacity"\n'))


def test_relative_trace_files_of_the_sweep_file_and_of_flags(files, tmp_path, monkeypatch):
    here = tmp_path / "cwd"
    here.mkdir()
    monkeypatch.chdir(here)
    path = sweep_file(
        files,
        'set = { "link.capacity_trace" = { file = "fixed.csv", format = "csv" } }\n'
        '[[axes]]\nkey = "link.capacity_trace.file"\nvalues = ["a.csv", "b.csv"]\n',
    )
    spec = load_sweep_file(path)
    assert spec.scenario["link"]["capacity_trace"]["file"] == str(files / "fixed.csv")
    assert trace_files(spec) == [str(files / "a.csv"), str(files / "b.csv")]
    spec = parse_sweep_args(path, "--set", "link.capacity_trace.file=c.csv")
    assert trace_files(spec) == [str(here / "c.csv")]


def trace_files(spec):
    """The trace file of every point of ``spec`` (one axis), without the simulator's
    check (the files do not exist)."""
    from flowstate.sweep.spec import point_scenario

    return [point_scenario(spec, [v])["link"]["capacity_trace"]["file"] for v in spec.axes[0].values]


def test_array_axis_values_are_written_as_labels_in_the_csv(files, tmp_path):
    from flowstate.sweep.store import write_results

    spec = parse_sweep_args(
        files / "s.toml", "--unset", "link.capacity", "--set", 'sched:link.capacity_schedule=[{at="0s",rate="1Mbps"}]'
    )
    path = write_results(tmp_path, spec, [(t, {}) for t in spec.tasks(expand(spec))])
    assert path.read_text().splitlines()[1].startswith('"sched=[{at=0s,rate=1Mbps}]","[{at=0s,rate=1Mbps}]",7,')


def test_a_single_valued_axis_is_held_fixed_not_plotted_against():
    # `--set coupling.mechanism=fsev2 --set a:...=1,2`: the mechanism is one value, so the
    # figures put the second axis on x and name the mechanism in the title.
    from types import SimpleNamespace

    from flowstate.sweep.plots import varied_axes

    mech = SimpleNamespace(name="mechanism", values=["fsev2"])
    prio = SimpleNamespace(name="video_prio", values=[1, 2])
    data = SimpleNamespace(name="data_prio", values=[1, 2])
    assert varied_axes([mech, prio, data]) == ([prio, data], [mech])
    assert varied_axes([mech]) == ([mech], [])
