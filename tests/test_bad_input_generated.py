"""Generated bad input over the scenario's newest surfaces: every value with a
dimension written without a unit, every input that sizes work past its bound, the
coupling groups' rules, the web-api options, trace files that are not regular files or
not traces, and `--set` / `--unset` paths that address nothing. A valid scenario is
mutated once per (field, value) and each mutant must fail with a one-line error naming
the field (and never hang, allocate without bound or crash the interpreter); values the
docs accept in any spelling must be accepted."""

from __future__ import annotations

import copy
import itertools
import os
import sys

import pytest

import flowstate
from flowstate import ScenarioError
from cli_support import assert_one_line_error
from cli_support import flowstate as cli

BASE = {
    "name": "generated-bad-input",
    "duration": "4s",
    "link": {"capacity": "2Mbps", "delay": "25ms", "queue": "300ms"},
    "flows": [
        {"name": "video", "kind": "gcc"},
        {"name": "data", "kind": "sctp", "start": "1s", "stop": "3s"},
        {"name": "bulk", "kind": "tcp-cubic", "start": "1s"},
    ],
    "coupling": {"mechanism": "fsev2"},
    "measure": {"start": "1s", "bin": "500ms"},
}


def mutated(changes: dict, base: dict = BASE) -> dict:
    from flowstate.overrides import set_path

    scenario = copy.deepcopy(base)
    for path, value in changes.items():
        set_path(scenario, path, value)
    return scenario


def assert_one_line_scenario_error(scenario: dict, *fragments: str) -> str:
    with pytest.raises(ScenarioError) as info:
        flowstate.check_scenario(scenario)
    message = str(info.value)
    assert "\n" not in message and "panicked" not in message, message
    for fragment in fragments:
        assert fragment in message, message
    return message


def test_the_base_scenario_is_valid():
    flowstate.check_scenario(BASE)


# --- a time needs a unit ----------------------------------------------------------------

TIME_FIELDS = [
    ("duration", "duration"),
    ("link.delay", "link.delay"),
    ("link.jitter", "link.jitter"),
    ("flows.data.start", "flows[1].start"),
    ("flows.data.stop", "flows[1].stop"),
    ("flows.video.path_delay", "flows[0].path_delay"),
    ("flows.bulk.start_jitter", "flows[2].start_jitter"),
    ("measure.start", "measure.start"),
    ("measure.end", "measure.end"),
    ("measure.bin", "measure.bin"),
    ("sbd.base_interval", "sbd.base_interval"),
]


@pytest.mark.parametrize(
    "path,field,value",
    [(p, f, v) for (p, f), v in itertools.product(TIME_FIELDS, [10, 2, 0.5, -3, 1e300, 120])],
)
def test_a_bare_number_is_not_a_time(path, field, value):
    assert_one_line_scenario_error(mutated({path: value}), field, "needs a unit")


@pytest.mark.parametrize("path", ["flows.data.start", "measure.start", "flows.video.path_delay"])
def test_zero_needs_no_unit(path):
    flowstate.check_scenario(mutated({path: 0}))


# --- inputs that size work are bounded -------------------------------------------------

SBD_BAD = [
    ("sbd.n", v) for v in (0, -1, 10**12, 2**63 - 1)
] + [("sbd.m", v) for v in (0, 10**12)] + [("sbd.f", v) for v in (0, 10**9)] + [
    ("sbd.base_interval", v) for v in ("1us", "0s", "-1s", "1e9s", "10us")
]


@pytest.mark.parametrize("path,value", SBD_BAD)
def test_shared_bottleneck_detection_is_bounded(path, value):
    # N, M and F are checked together (1 <= M, F <= N): the message names the section
    # and the letter.
    message = assert_one_line_scenario_error(mutated({path: value}), "sbd")
    letter = {"sbd.n": "N ", "sbd.m": "M ", "sbd.f": "F ", "sbd.base_interval": "base interval"}[path]
    assert path in message or letter in message, message


WEB_API_BAD = [
    ("min_media_rate", "-1kbps"),
    ("min_media_rate", 50000),
    ("min_media_rate", "fast"),
    ("interval", "0s"),
    ("interval", "1us"),
    ("interval", 5),
    ("interval", "-1s"),
    ("interval", "1e9s"),
    ("delay", "-1ms"),
    ("delay", 5),
    ("delay", "1e9s"),
    ("rate_window", "-1s"),
    ("rate_window", 1),
    ("no_such_option", 1),
]


@pytest.mark.parametrize("option,value", WEB_API_BAD)
def test_web_api_options_are_checked(option, value):
    scenario = mutated({"coupling": {"mechanism": "web-api", "options": {option: value}}})
    assert_one_line_scenario_error(scenario, f"coupling.options.{option}")


@pytest.mark.parametrize("count", [0, -1, 10**6, 2**40])
def test_a_flow_count_is_bounded(count):
    assert_one_line_scenario_error(mutated({"flows.bulk.count": count}), "flows[2].count")


# --- coupling groups -------------------------------------------------------------------

GROUP_BAD = [
    ({"flows.video.group": ""}, "flows[0].group"),
    ({"flows.video.group": "g", "flows.video.cross_traffic": True}, "flows[0].cross_traffic"),
    ({"flows.bulk.group": "g", "flows.bulk.cross_traffic": True}, "flows[2].cross_traffic"),
    ({"flows.video.group": 3}, "flows[0].group"),
    ({"flows.video.cross_traffic": "yes"}, "flows[0].cross_traffic"),
    (
        {"flows.video.cross_traffic": True, "flows.data.cross_traffic": True},
        "coupling.mechanism",
    ),
]


@pytest.mark.parametrize("changes,field", GROUP_BAD)
def test_coupling_group_rules(changes, field):
    assert_one_line_scenario_error(mutated(changes), field)


def test_cbr_flows_cannot_join_a_group():
    scenario = mutated({"flows[2]": {"name": "bulk", "kind": "cbr", "group": "g", "overrides": {"rate": "1Mbps"}}})
    assert_one_line_scenario_error(scenario, "flows[2].group", "no congestion controller")


@pytest.mark.parametrize("mechanism", ["fse", "fse-ng", "ext-fse-ng", "fsev2", "conservative-fse", "web-api"])
def test_a_mechanism_with_only_other_applications_flows_is_an_error(mechanism):
    only_tcp = mutated({"flows": [{"name": "bulk", "kind": "tcp-cubic"}], "coupling.mechanism": mechanism})
    assert_one_line_scenario_error(only_tcp, "coupling.mechanism", "couples no flow")


# --- names in any case ---------------------------------------------------------------

@pytest.mark.parametrize(
    "changes",
    [
        {"coupling.mechanism": "WEB-API"},
        {"coupling.mechanism": "FSEv2"},
        {"coupling.mechanism": "Fse-Ng"},
        {"coupling.groups": "SBD"},
        {"coupling": {}},
    ],
)
def test_documented_spellings_are_accepted(changes):
    flowstate.check_scenario(mutated(changes))


@pytest.mark.parametrize(
    "changes,field",
    [
        ({"coupling.mechanism": "fsev3"}, "coupling.mechanism"),
        ({"coupling.mechanism": ""}, "coupling.mechanism"),
        ({"coupling.mechanism": 2}, "coupling.mechanism"),
        ({"coupling.groups": "dynamic"}, "coupling.groups"),
        ({"flows.video.kind": "GCC2"}, "flows[0].kind"),
        ({"flows.video.preset": "chromium-m999"}, "flows[0].preset"),
    ],
)
def test_unknown_names_are_named(changes, field):
    assert_one_line_scenario_error(mutated(changes), field)


# --- trace files ------------------------------------------------------------------------

def _trace_scenario(path: str, fmt: str = "mahimahi") -> dict:
    link = {"capacity_trace": {"file": path, "format": fmt}, "delay": "25ms", "queue": "300ms"}
    return mutated({"link": link})


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero are POSIX")
@pytest.mark.parametrize("what", ["fifo", "dev-zero", "directory", "missing", "empty", "garbage", "binary"])
@pytest.mark.parametrize("fmt", ["mahimahi", "csv", "gym-json"])
def test_a_trace_that_is_not_a_regular_trace_file_is_named(tmp_path, what, fmt):
    path = tmp_path / "trace"
    if what == "fifo":
        os.mkfifo(path)  # nobody writes it: a read would block for ever
    elif what == "dev-zero":
        path = "/dev/zero"  # a read would never end
    elif what == "directory":
        path.mkdir()
    elif what == "empty":
        path.write_text("")
    elif what == "garbage":
        path.write_text("this is not a trace\n" * 10)
    elif what == "binary":
        path.write_bytes(bytes(range(256)) * 10)
    assert_one_line_scenario_error(_trace_scenario(str(path), fmt), "link.capacity_trace")


# --- --set / --unset paths ---------------------------------------------------------------

SCENARIO_TOML = """\
name = "cli-bad-input"
duration = "4s"
[link]
capacity = "2Mbps"
delay = "25ms"
queue = "300ms"
[[flows]]
name = "video"
kind = "gcc"
"""


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["--set", "link.delay=10"], "link.delay"),
        (["--set", "flows.nosuch.priority=2"], "nosuch"),
        (["--set", "flows[7].priority=2"], "flows[7]"),
        (["--set", "link.capacity"], "--set"),
        (["--set", "=2"], "--set"),
        (["--unset", "link.nosuch"], "nosuch"),
        (["--set", "coupling.mechanism=fsev2", "--set", "flows.video.cross_traffic=true"], "couples no flow"),
        (["--set", "sbd.n=1000000000000"], "sbd.n"),
        (["--set", "link.capacity=[1,"], "--set"),
    ],
)
def test_cli_changes_that_address_nothing_or_break_a_rule_are_one_line_errors(tmp_path, args, fragment):
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO_TOML)
    result = cli("run", scenario, *args, "--out", tmp_path / "o", timeout=120)
    assert_one_line_error(result, fragment)
    assert not (tmp_path / "o").exists()
