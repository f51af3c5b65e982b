"""Inputs that size a run's work or memory (docs/SCENARIOS.md, "Bounds"): each value
past its bound is a one-line error naming the field, the bound and the value, from the
check that runs before anything is allocated, through the Python API and the CLI."""

from __future__ import annotations

import copy
import time

import pytest

import flowstate
from flowstate import ScenarioError
from cli_support import assert_one_line_error
from cli_support import flowstate as cli

BASE = {
    "name": "bounds",
    "duration": "3s",
    "link": {"capacity": "2Mbps", "delay": "25ms", "queue": "300ms"},
    "flows": [{"name": "a", "kind": "cbr", "overrides": {"rate": "1Mbps"}}],
}


def mutated(path: str, value):
    from flowstate.overrides import with_overrides

    return with_overrides(copy.deepcopy(BASE), {path: value})


@pytest.mark.parametrize(
    "path, value, fragments",
    [
        ("sbd.base_interval", "1us", ("sbd.base_interval: must be between 10 ms and 60 s, got 1 us",)),
        ("sbd.n", 10**12, ("sbd.n: N must be at most 10000, got 1000000000000",)),
        ("measure.bin", "1ms", ("measure.bin: the time series would hold", "more than 20000000")),
    ],
)
def test_work_sizing_values_are_refused_at_once(path, value, fragments):
    scenario = mutated(path, value)
    if path == "measure.bin":
        scenario["duration"] = "1e6s"
    started = time.monotonic()
    with pytest.raises(ScenarioError) as info:
        flowstate.check_scenario(scenario)
    assert time.monotonic() - started < 5.0, "refused before any work"
    message = str(info.value)
    assert "\n" not in message, message
    for fragment in fragments:
        assert fragment in message, message


def test_web_api_options_are_bounded_when_the_run_is_built():
    scenario = copy.deepcopy(BASE)
    scenario["flows"].append({"name": "video", "kind": "gcc"})  # a flow the rule couples
    scenario["coupling"] = {"mechanism": "WEB-API", "options": {"min_media_rate": "-1kbps"}}
    with pytest.raises(ScenarioError, match="coupling.options.min_media_rate: must be between 0 bps and 1 Tbps"):
        flowstate.check_scenario(scenario)
    scenario["coupling"]["options"] = {"min_media_rate": 50000}
    with pytest.raises(ScenarioError, match="min_media_rate: expected a bit rate with its unit"):
        flowstate.check_scenario(scenario)


def test_the_cli_refuses_a_bound_in_one_line(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(
        'name = "t"\nduration = "3s"\n[link]\ncapacity = "2Mbps"\ndelay = "25ms"\nqueue = "300ms"\n'
        '[sbd]\nbase_interval = "1us"\n[[flows]]\nname = "a"\nkind = "cbr"\noverrides = { rate = "1Mbps" }\n'
    )
    result = cli("run", str(path), "--out", str(tmp_path / "out"))
    assert_one_line_error(result, "sbd.base_interval: must be between 10 ms and 60 s, got 1 us")
    assert not (tmp_path / "out" / "summary.json").exists()
