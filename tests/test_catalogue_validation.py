"""The catalogue validator runs every point through the simulator's own checks (parse,
validation and the run's construction: flows, overrides, coupling mechanism and
options) before anything runs: a bad entry is one line naming the file and the key,
exit status 2, and nothing is run."""

from __future__ import annotations

import subprocess

import pytest
from catalogue_support import BASE, EXPERIMENT, load_error, make_catalogue

import flowstate
from flowstate.catalogue import catalogue
from cli_support import flowstate as flowstate_cli

HEAVY_SET = 'set = { "flows.bg.overrides.rate" = "600kbps" }'
SHORT_SET = 'set = { duration = "4s" }'
F = "tiny/experiment.toml"


def _heavy(set_: str) -> str:
    assert HEAVY_SET in EXPERIMENT
    return EXPERIMENT.replace(HEAVY_SET, f"set = {{ {set_} }}", 1)


BAD_ENTRIES = {
    # An unknown coupling option: only the coupling manager's construction sees it.
    "unknown option": (
        _heavy('"coupling.mechanism" = "fsev2", "coupling.options.count_change_twic" = true'),
        "variants[1].set: point heavy: coupling.options.count_change_twic: unknown option 'count_change_twic' for fsev2",
    ),
    "ill-typed option": (
        _heavy('"coupling.mechanism" = "fsev2", "coupling.options.cwnd_rtt" = 3'),
        "variants[1].set: point heavy: coupling.options.cwnd_rtt: option 'cwnd_rtt' expects",
    ),
    "ill-typed number option": (
        _heavy('"coupling.mechanism" = "fsev2", "coupling.options.rate_priority_boost" = "big"'),
        "variants[1].set: point heavy: coupling.options.rate_priority_boost: option 'rate_priority_boost' expects",
    ),
    "unknown mechanism": (
        _heavy('"coupling.mechanism" = "fsev3"'),
        "variants[1].set: point heavy: coupling.mechanism: expected one of",
    ),
    "bad GCC override": (
        _heavy('"flows.gcc.overrides.kalman_q" = 0.1'),
        "variants[1].set: point heavy: flows[0].overrides.kalman_q: preset chromium has no Kalman filter",
    ),
    "build-only flow error": (
        _heavy('"flows.bg.kind" = "tfrc", "flows.bg.overrides" = { initial_rate = "1Mbps" }'),
        "variants[1].set: point heavy: flows[1].overrides.initial_rate: TFRC starts from its initial window",
    ),
    "options under none, from short.set": (
        EXPERIMENT.replace(SHORT_SET, 'set = { "coupling.mechanism" = "none", "coupling.options.x" = 1 }', 1),
        "short.set: point plain (short): coupling.options.x: mechanism 'none' takes no options",
    ),
}


@pytest.mark.parametrize("case", list(BAD_ENTRIES))
def test_bad_point_names_file_key_point_and_field(tmp_path, case):
    experiment, message = BAD_ENTRIES[case]
    text = load_error(tmp_path, experiment)
    assert text.startswith(str(tmp_path / F) + ": ") or F + ": " in text, text
    assert f"{F}: {message}" in text, text


def test_a_grid_value_is_blamed_on_the_grid(tmp_path):
    grid = '\n[[grid]]\nname = "rtt"\nkey = "coupling.options.cwnd_rtt"\nvalues = ["newest", "oldest"]\n'
    text = load_error(tmp_path, EXPERIMENT + grid, base=BASE + '[coupling]\nmechanism = "fsev2"\n')
    expected = f"{F}: grid[0].values: point plain[rtt=oldest]: coupling.options.cwnd_rtt: option 'cwnd_rtt' expects"
    assert expected in text, text


def test_the_base_scenario_is_blamed_when_it_is_the_cause(tmp_path):
    text = load_error(tmp_path, EXPERIMENT, base=BASE + '[coupling]\nmechanism = "fsev2"\noptions = { bogus = 1 }\n')
    assert f"{F}: variants[0].scenario: point plain: coupling.options.bogus: unknown option" in text, text


def _cli(*args: str, cwd=None) -> subprocess.CompletedProcess[str]:
    return flowstate_cli(*args, cwd=cwd, timeout=120)


@pytest.mark.parametrize("case", ["unknown option", "unknown mechanism", "bad GCC override"])
def test_cli_exit_2_one_line_and_nothing_run(tmp_path, case):
    experiment, message = BAD_ENTRIES[case]
    root = make_catalogue(tmp_path / "cat", experiment)
    make_catalogue(root, name="good", experiment=EXPERIMENT.replace('id = "tiny"', 'id = "good"'))
    out = tmp_path / "out"
    for args in (["reproduce", "tiny"], ["reproduce", "good", "tiny"], ["reproduce", "--all", "--short"]):
        r = _cli(*args, "--catalogue", str(root), "--out", str(out), cwd=tmp_path)
        assert r.returncode == 2, r
        assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
        assert r.stderr.startswith("flowstate: error: ") and f"{F}: {message}" in r.stderr, r.stderr
        assert not out.exists(), f"{args}: something ran: {sorted(out.rglob('*'))}"
        assert r.stdout == ""


def test_the_good_entry_still_loads(tmp_path):
    root = make_catalogue(tmp_path)
    exp = catalogue.load_id(root, "tiny")
    assert exp.point_names() == ["plain", "heavy"]


def test_check_scenario_runs_the_build_checks(tmp_path):
    good = {
        "name": "x",
        "duration": "2s",
        "link": {"capacity": "1Mbps", "delay": "10ms", "queue": "50ms"},
        "coupling": {"mechanism": "fsev2", "options": {"cwnd_rtt": "minimum"}},
        "flows": [{"name": "gcc", "kind": "gcc"}],
    }
    assert flowstate.check_scenario(good) is None
    bad = {**good, "coupling": {"mechanism": "fsev2", "options": {"count_change_twic": True}}}
    with pytest.raises(flowstate.ScenarioError, match=r"^<dict>: coupling.options.count_change_twic: unknown option"):
        flowstate.check_scenario(bad)
    path = tmp_path / "bad.toml"
    path.write_text(flowstate._native.scenario_toml(bad), encoding="utf-8")
    with pytest.raises(flowstate.ScenarioError, match=r"bad.toml: coupling.options.count_change_twic: "):
        flowstate.check_scenario(str(path))
    # The run gives the same message (the validator is the run's own construction).
    with pytest.raises(flowstate.ScenarioError) as run_error:
        flowstate.run(bad)
    with pytest.raises(flowstate.ScenarioError) as check_error:
        flowstate.check_scenario(bad)
    assert str(run_error.value) == str(check_error.value)
