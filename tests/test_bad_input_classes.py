"""Bad input of each class found by a sweep of generated bad input gets a
one-line error, not a silently wrong result, a traceback or a crash.

The cases are generated: a valid scenario, CLI call or API call is mutated once per
(class, field, value) and each mutant must fail with a one-line message naming what
is wrong. Calls that used to crash the interpreter run in a subprocess. Each class is
fixed at one root (the unit parser, the priority check, the mechanism-name reader,
the dict converter, the output-folder check), so one mutant per field suffices to
reach it; the lists below are the fields and values that reach each root.
"""

from __future__ import annotations

import copy
import itertools
import subprocess
import sys
import textwrap

import pytest

import flowstate
from flowstate import CouplingError, CouplingManager, ScenarioError
from flowstate.catalogue import derived
from cli_support import assert_one_line_error as assert_cli_error
from cli_support import flowstate as cli

BASE = {
    "name": "bad-input",
    "duration": "4s",
    "link": {"capacity": "2Mbps", "delay": "25ms", "queue": "300ms"},
    "flows": [
        {"name": "video", "kind": "gcc", "preset": "chromium"},
        {"name": "data", "kind": "sctp", "start": "1s"},
    ],
    "coupling": {"mechanism": "fsev2"},
}


def mutated(path: str, value):
    from flowstate.overrides import with_overrides

    return with_overrides(copy.deepcopy(BASE), {path: value})


def one_line_scenario_error(scenario, *fragments):
    with pytest.raises(ScenarioError) as info:
        flowstate.check_scenario(scenario)
    message = str(info.value)
    assert "\n" not in message, message
    for fragment in fragments:
        assert fragment in message, message
    return message


def test_the_base_scenario_is_valid():
    flowstate.check_scenario(BASE)


# --- bits and bytes; a space inside a number -----------------------------------------

RATE_FIELDS = ["link.capacity", "flows.video.overrides.max_rate", "flows.data.desired_rate"]
SIZE_FIELDS = ["flows.data.overrides.mtu", "flows.data.overrides.message_size"]


@pytest.mark.parametrize(
    "path,value,fragment",
    [
        *((p, v, "space inside") for p, v in itertools.product(RATE_FIELDS, ["2 2Mbps", "1 000kbps", "2 M bps"])),
        *((p, v, "space inside") for p, v in itertools.product(SIZE_FIELDS, ["1 200B", "1 e3B"])),
        *((p, v, "in bits") for p, v in itertools.product(SIZE_FIELDS, ["8000b", "9kb", "1kib"])),
        *((p, v, "units: bps, kbps, Mbps") for p, v in itertools.product(RATE_FIELDS, ["2MBPS", "2Mbs"])),
        ("link.queue", "75kb", "in bits"),
        ("link.queue", "6 2pkt", "space inside"),
        ("link.delay", "2 5ms", "space inside"),
    ],
)
def test_units_are_read_as_written_or_rejected(path, value, fragment):
    field = path.replace("flows.video", "flows[0]").replace("flows.data", "flows[1]")
    one_line_scenario_error(mutated(path, value), field, fragment)


@pytest.mark.parametrize("text,mbps", [("2MBps", 16.0), ("250kBps", 2.0), ("1MB/s", 8.0), ("2Mbps", 2.0), ("2mbps", 2.0)])
def test_capital_b_is_a_byte_in_the_simulator_and_in_python(text, mbps):
    # The simulator's link runs at the capacity the parser read (capacity_mbps column),
    # and Python (derived metrics, the catalogue) reads the same text the same way.
    scenario = mutated("link.capacity", text)
    scenario["duration"] = "1s"
    scenario["flows"] = [{"name": "a", "kind": "cbr", "overrides": {"rate": "100kbps", "packet_size": "1000B"}}]
    del scenario["coupling"]
    series = flowstate.run(scenario).timeseries
    assert series["capacity_mbps"].max() == pytest.approx(mbps)
    assert derived.parse_rate_mbps(text) == pytest.approx(mbps)


def test_python_rejects_what_the_simulator_rejects():
    for text in ["2 2Mbps", "2MBPS", "1 e3Mbps"]:
        with pytest.raises(derived.DerivedError):
            derived.parse_rate_mbps(text)
    with pytest.raises(derived.DerivedError, match="space inside"):
        derived.parse_time("1 0s")


# --- preset on a flow kind that takes none ------------------------------------------


@pytest.mark.parametrize("kind", ["sctp", "tcp-newreno", "tcp-cubic", "rap", "tfrc", "cbr"])
@pytest.mark.parametrize("preset", ["anything", "chromium"])
def test_preset_only_on_gcc(kind, preset):
    scenario = mutated("flows.data.kind", kind)
    scenario["flows"][1]["preset"] = preset
    if kind == "cbr":
        scenario["flows"][1]["overrides"] = {"rate": "1Mbps"}
    expected = "expected one of usrsctp|dcsctp" if kind == "sctp" else "only gcc and sctp flows take a preset"
    one_line_scenario_error(scenario, "flows[1].preset", expected, kind)


# --- priorities near the float limits ------------------------------------------------

BAD_PRIORITIES = [1e308, 2.3e-308, 2.0**1023, 2.0**-1074, 1e7, 1e-7]


@pytest.mark.parametrize("priority", BAD_PRIORITIES)
@pytest.mark.parametrize("flow", ["video", "data"])
def test_priority_out_of_range_in_a_scenario(priority, flow):
    index = 0 if flow == "video" else 1
    one_line_scenario_error(mutated(f"flows.{flow}.priority", priority), f"flows[{index}].priority", "[1e-6, 1e6]")


def test_priority_schedule_out_of_range():
    scenario = mutated("flows.data.priority_schedule", [{"at": "2s", "priority": 1e308}])
    one_line_scenario_error(scenario, "flows[1].priority_schedule[0].priority", "[1e-6, 1e6]")


@pytest.mark.parametrize("priority", [*BAD_PRIORITIES, 2**1023, 2**1024, 10**400])
@pytest.mark.parametrize(
    "call",
    [
        lambda m, p: m.register_rate(1, priority=p, initial_rate_bps=1e6),
        lambda m, p: m.register_window(1, priority=p, initial_cwnd=4800, initial_rtt_s=0.1),
        lambda m, p: m.set_priority(m.register_rate(1, initial_rate_bps=1e6), p),
    ],
    ids=["register_rate", "register_window", "set_priority"],
)
def test_priority_out_of_range_in_the_api(call, priority):
    with pytest.raises(CouplingError) as info:
        call(CouplingManager("fsev2"), priority)
    assert "\n" not in str(info.value) and "[1e-06, 1e+06]" in str(info.value).replace("1e-6", "1e-06").replace(
        "1e6]", "1e+06]"
    ), info.value


def test_priority_bounds_are_accepted():
    m = CouplingManager("fsev2")
    a = m.register_rate(1, priority=1e-6, initial_rate_bps=1e6)
    b = m.register_rate(1, priority=1e6, initial_rate_bps=1e6)
    allocations = {x.flow: x.rate_bps for x in m.update_rate(0.0, a, 2e6)}
    # The shares follow the priorities: finite, summing to the aggregate, 1e12 : 1.
    assert sum(allocations.values()) == pytest.approx(m.aggregate_bps(1))
    assert allocations[b] / allocations[a] == pytest.approx(1e12, rel=1e-6)


# --- integers out of range in the API -------------------------------------------------

INT_CALLS = {
    "group": lambda m, v: m.register_rate(v, initial_rate_bps=1e6),
    "flow_id": lambda m, v: m.register_rate(1, initial_rate_bps=1e6, flow_id=v),
    "initial_cwnd": lambda m, v: m.register_window(1, initial_cwnd=v, initial_rtt_s=0.1),
    "initial_max_cwnd": lambda m, v: m.register_window(1, initial_cwnd=4800, initial_max_cwnd=v),
    "mtu": lambda m, v: m.register_window(1, initial_cwnd=4800, mtu=v),
    "flow": lambda m, v: m.update_rate(0.0, v, 1e6),
    "cwnd": lambda m, v: m.update_window(0.0, m.register_window(1, initial_cwnd=4800), v, ssthresh=1),
    "ssthresh": lambda m, v: m.update_window(0.0, m.register_window(1, initial_cwnd=4800), 4800, ssthresh=v),
    "desired_cwnd": lambda m, v: m.update_window(
        0.0, m.register_window(1, initial_cwnd=4800), 4800, ssthresh=1, desired_cwnd=v
    ),
}


@pytest.mark.parametrize("value", [-1, 2**64, -(2**70), 10**30])
@pytest.mark.parametrize("name", sorted(INT_CALLS))
def test_integers_out_of_range_are_coupling_errors(name, value):
    with pytest.raises(CouplingError) as info:
        INT_CALLS[name](CouplingManager("fsev2"), value)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{name} must be an integer in [0, 2**64 - 1]"), message


FLOAT_CALLS = {
    "initial_rate_bps": lambda m, v: m.register_rate(1, initial_rate_bps=v),
    "desired_rate_bps": lambda m, v: m.register_rate(1, initial_rate_bps=1e6, desired_rate_bps=v),
    "initial_rtt_s": lambda m, v: m.register_window(1, initial_cwnd=4800, initial_rtt_s=v),
    "now_s": lambda m, v: m.update_rate(v, m.register_rate(1, initial_rate_bps=1e6), 1e6),
    "rate_bps": lambda m, v: m.update_rate(0.0, m.register_rate(1, initial_rate_bps=1e6), v),
    "rtt_s": lambda m, v: m.update_rate(0.0, m.register_rate(1, initial_rate_bps=1e6), 1e6, rtt_s=v),
}


@pytest.mark.parametrize("value", [10**400, -(10**400)])
@pytest.mark.parametrize("name", sorted(FLOAT_CALLS))
def test_ints_too_large_for_a_float_are_coupling_errors(name, value):
    with pytest.raises(CouplingError) as info:
        FLOAT_CALLS[name](CouplingManager("fsev2"), value)
    assert "\n" not in str(info.value) and name in str(info.value), info.value


def test_wrong_types_name_the_argument():
    with pytest.raises(TypeError, match="rate_bps must be a number, got str"):
        CouplingManager("fsev2").register_rate(1, initial_rate_bps="fast")
    with pytest.raises(TypeError, match="group must be an int, got float"):
        CouplingManager("fsev2").register_rate(1.5, initial_rate_bps=1e6)


def test_the_other_int_methods_too():
    m = CouplingManager("fsev2")
    for call in (m.deregister, m.aggregate_bps, m.flows, lambda v: m.set_desired_rate(v, None)):
        with pytest.raises(CouplingError):
            call(-1)


# --- dicts that contain themselves or nest too deep (crashed the interpreter) ---------

CRASHERS = {
    "self-referential": "d = dict(BASE); d['link'] = dict(d['link']); d['link']['x'] = d",
    "self-referential list": "d = dict(BASE); l = []; l.append(l); d['flows'] = l",
    "20000 deep": "d = dict(BASE); x = d\nfor _ in range(20000):\n    x['n'] = {}; x = x['n']",
    "20000 deep lists": "d = dict(BASE); x = []; d['flows'] = x\nfor _ in range(20000):\n    y = []; x.append(y); x = y",
}


@pytest.mark.parametrize("name", sorted(CRASHERS))
@pytest.mark.parametrize("entry", ["check_scenario", "run"])
def test_deep_or_cyclic_dicts_are_one_line_errors(name, entry):
    script = textwrap.dedent(
        f"""
        import flowstate
        BASE = {BASE!r}
        """
    ) + CRASHERS[name] + textwrap.dedent(
        f"""
        try:
            flowstate.{entry}(d)
        except flowstate.ScenarioError as e:
            print("ERR", e)
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, (result.returncode, result.stderr[-2000:])
    assert result.stdout.startswith("ERR ") and result.stdout.count("\n") == 1, result.stdout
    assert "levels deep" in result.stdout


# --- out= an existing file: an error before the run -----------------------------------


def test_out_is_checked_before_the_run(tmp_path):
    file = tmp_path / "file"
    file.write_text("x")
    calls = []
    for out in (file, file / "below"):
        with pytest.raises(ValueError, match="not a folder"):
            flowstate.run(BASE, out=out, progress=lambda done, total: calls.append(done))
    assert calls == [], "the simulation ran before the output folder was checked"


# --- mechanism names --------------------------------------------------------------------

SPELLINGS = ["none", "None", "NONE", "FSEv2", "fse_v2", "FSE-NG", "Extended FSE-NG", "conservative FSE", "FSE"]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_every_spelling_everywhere(spelling):
    m = CouplingManager(spelling)
    assert CouplingManager(m.mechanism).mechanism == m.mechanism  # what it prints reads back
    # Rate flows only: FSE and the conservative FSE couple no window flows.
    scenario = {**mutated("coupling.mechanism", spelling), "flows": [BASE["flows"][0]]}
    flowstate.check_scenario(scenario)


def test_none_is_a_mechanism_like_the_others():
    assert "none" in flowstate.MECHANISMS
    for name in flowstate.MECHANISMS:
        CouplingManager(name)
    m = CouplingManager("none")
    a = m.register_rate(1, initial_rate_bps=1e6)
    m.register_window(1, initial_cwnd=4800, initial_rtt_s=0.1)
    assert m.update_rate(0.0, a, 2e6) == []  # uncoupled: nothing to apply
    with pytest.raises(CouplingError, match="takes no options"):
        CouplingManager("none", count_change_twice=False)


def test_a_printed_name_runs_as_its_scenario_name():
    runs = [flowstate.run(mutated("coupling.mechanism", name)) for name in ("fsev2", "FSEv2")]
    assert runs[0].trace_hashes == runs[1].trace_hashes


# --- the CLI: the same classes, as one-line errors with exit status 2 ------------------


@pytest.fixture
def scenario_file(tmp_path):
    path = tmp_path / "base.toml"
    flows = "\n".join(
        "[[flows]]\n" + "\n".join(f'{k} = "{v}"' for k, v in flow.items()) for flow in BASE["flows"]
    )
    path.write_text(
        'name = "bad-input"\nduration = "4s"\n[link]\ncapacity = "2Mbps"\ndelay = "25ms"\nqueue = "300ms"\n'
        f'{flows}\n[coupling]\nmechanism = "fsev2"\n'
    )
    return path


@pytest.mark.parametrize(
    "setting,fragments",
    [
        ("link.capacity=2 2Mbps", ["link.capacity", "space inside"]),
        ("flows.data.overrides.mtu=8000b", ["flows[1].overrides.mtu", "in bits"]),
        ("flows.data.preset=anything", ["flows[1].preset", "usrsctp|dcsctp"]),
        ("flows.data.priority=1e308", ["flows[1].priority", "[1e-6, 1e6]"]),
        ("coupling.mechanism=fsev3", ["coupling.mechanism", "fsev3"]),
        ("flows.nosuch.priority=2", ["no flow named 'nosuch'"]),
        ("link.capacity=1Mbps,2Mbps", ["one value per path", "flowstate sweep"]),
        ("link.capacity", ["expected KEY=V1,V2"]),
    ],
)
def test_cli_set_mutants(scenario_file, tmp_path, setting, fragments):
    assert_cli_error(cli("run", scenario_file, "--set", setting, "--out", tmp_path / "o"), *fragments)


def test_cli_out_an_existing_file(scenario_file, tmp_path):
    file = tmp_path / "f"
    file.write_text("x")
    assert_cli_error(cli("run", scenario_file, "--out", file), "not a folder")
