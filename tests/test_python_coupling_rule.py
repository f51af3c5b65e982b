"""`[coupling] mechanism = "python"`: a coupling rule written in Python couples the flows
of a scenario from `flowstate run`, `flowstate.run()` and the dict path of sweeps; the
example reproduces the built-in simple FSE; bad rules and bad answers are one-line
errors, exceptions keep their traceback, runs are deterministic."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import flowstate
from cli_support import assert_one_line_error, flowstate as flowstate_cli
from flowstate.overrides import load_toml

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

LINK = {"capacity": "3Mbps", "delay": "25ms", "queue": "200ms"}


def scenario(rule, flows=None, duration="10s", **coupling):
    flows = flows or [
        {"name": "a", "kind": "gcc", "priority": 1},
        {"name": "b", "kind": "gcc", "priority": 2},
    ]
    return {
        "name": "pyrule",
        "duration": duration,
        "link": dict(LINK),
        "coupling": {"mechanism": "python", "rule": rule, **coupling},
        "flows": flows,
    }


@pytest.fixture()
def rules(tmp_path, monkeypatch):
    """A module `rl` of test rules in a folder that is the current one."""
    (tmp_path / "rl.py").write_text(
        textwrap.dedent(
            """
            import random

            class Fixed:
                flow_kinds = ("rate", "window")
                seen = []
                def __init__(self, total_bps=2e6, seed=None):
                    self.total = total_bps
                    Fixed.seen.append(seed)
                def on_report(self, now_s, flow, flows):
                    s_p = sum(f.priority for f in flows)
                    out = {}
                    for f in flows:
                        share = self.total * f.priority / s_p
                        out[f.id] = share if f.kind == "rate" else share * (f.rtt_s or 0.1) / 8
                    return out

            class Answer:
                value = None
                def on_report(self, now_s, flow, flows):
                    if now_s < 1.0:
                        return None
                    return Answer.value(flows)

            class Joins:
                def on_register(self, now_s, flow, flows):
                    return {flow.id: 1e6}
                def on_report(self, now_s, flow, flows):
                    return None

            class Boom:
                def on_report(self, now_s, flow, flows):
                    if now_s > 2.0:
                        return 1 / 0

            class NoReport:
                pass

            class BadKinds:
                flow_kinds = ("rate", "video")
                def on_report(self, now_s, flow, flows):
                    return None
            """
        )
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("rl", None)


def rates(result):
    return [f["throughput_mbps"] for f in result.summary["flows"]]


def test_a_python_rule_sets_the_flows_rates(rules):
    a, b = rates(flowstate.run(scenario("rl:Fixed", params={"total_bps": 1.5e6}), seed=1))
    # 1.5 Mbit/s split 1:2; GCC probes up from each allowance between reports.
    assert 0.4 < a < 0.8 and 0.9 < b < 1.4 and b / a > 1.6, (a, b)


def test_each_group_gets_its_seed_and_runs_are_deterministic(rules):
    import rl

    rl.Fixed.seen.clear()
    s = scenario("rl:Fixed")
    first, again = flowstate.run(s, seed=3), flowstate.run(s, seed=3)
    assert first.runs[0]["flows"] == again.runs[0]["flows"]
    assert first.trace_hashes == again.trace_hashes and first.trace_hashes[0] is not None
    assert len(rl.Fixed.seen) == 2 and rl.Fixed.seen[0] == rl.Fixed.seen[1] is not None
    flowstate.run(s, seed=4)
    assert rl.Fixed.seen[2] != rl.Fixed.seen[0]


def test_window_flows_join_when_the_rule_takes_them(rules):
    flows = [{"name": "a", "kind": "gcc"}, {"name": "s", "kind": "sctp", "group": "call"}]
    r = flowstate.run(scenario("rl:Fixed", flows=flows, params={"total_bps": 2e6}), seed=1)
    gcc, sctp = rates(r)
    assert 0.6 < gcc < 1.4 and 0.6 < sctp < 1.4, (gcc, sctp)


def test_the_example_reproduces_the_built_in_simple_fse():
    """examples/simple_fse.py against `fse-simple` on examples/simple_fse.toml (two GCC
    flows, priorities 1 and 2, 60 s): each flow's throughput within 2 % of the built-in
    one's (in fact the same run: the same trace hash), and the high-priority flow gets
    about twice the low one's."""
    ours = flowstate.run(str(EXAMPLES / "simple_fse.toml"), seed=1)
    scen = load_toml(EXAMPLES / "simple_fse.toml")
    scen["coupling"] = {"mechanism": "fse-simple"}
    builtin = flowstate.run(scen, seed=1)
    for mine, theirs in zip(rates(ours), rates(builtin)):
        assert mine == pytest.approx(theirs, rel=0.02)
    # Same operations in the same order: the very same run.
    assert ours.trace_hashes == builtin.trace_hashes and ours.trace_hashes[0] is not None
    low, high = rates(ours)
    assert 1.7 < high / low < 2.3, (low, high)
    assert sum(rates(ours)) > 2.0


def test_the_example_runs_from_the_cli(tmp_path):
    out = tmp_path / "out"
    done = flowstate_cli("run", str(EXAMPLES / "simple_fse.toml"), "--out", out, "--set", "duration=5s", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (out / "summary.json").is_file()


def test_a_sweep_scenario_dict_keeps_the_rule_file(tmp_path):
    """The dict path (sweeps, the catalogue): a relative rule file is made absolute from
    the scenario's folder, so the dict runs from anywhere."""
    scen = load_toml(EXAMPLES / "simple_fse.toml")
    assert Path(scen["coupling"]["rule"].rpartition(":")[0]).is_absolute()
    scen["duration"] = "3s"
    r = flowstate.run(scen, seed=1)
    assert all(x > 0 for x in rates(r))


@pytest.mark.parametrize(
    ("answer", "fragment"),
    [
        ("lambda flows: {99: 1e6}", "flow id 99 is not in the group (its flows are 1, 2)"),
        ("lambda flows: {flows[0].id: float('nan')}", "flow 1's allowance is NaN: it must be a rate in bit/s, a finite number >= 0"),
        ("lambda flows: {flows[0].id: -5}", "flow 1's allowance is -5: it must be a rate in bit/s"),
        ("lambda flows: [1e6, 1e6]", "on_report returned a list at simulated time 1."),
        ("lambda flows: {flows[0].id: 'fast'}", "returned a str as flow 1's allowance"),
        ("lambda flows: {'a': 1e6}", "returned a dict with the key 'a' (a str): keys are the flows' ids"),
    ],
)
def test_a_bad_answer_is_one_line(rules, answer, fragment):
    import rl

    rl.Answer.value = eval(answer)
    with pytest.raises(flowstate.CouplingRuleError) as e:
        flowstate.run(scenario("rl:Answer", duration="3s"))
    message = str(e.value)
    assert "\n" not in message and fragment in message, message
    assert message.startswith("coupling rule rl:Answer"), message


def test_on_register_returns_nothing(rules):
    with pytest.raises(flowstate.CouplingRuleError, match="on_register returned allowances: it returns None"):
        flowstate.run(scenario("rl:Joins", duration="2s"))


@pytest.mark.parametrize(
    ("rule", "extra", "fragment"),
    [
        ("rl:NoReport", {}, "coupling.rule: rl:NoReport has no method on_report(now_s, flow, flows)"),
        ("rl:Missing", {}, "coupling.rule: module 'rl' has no class 'Missing'"),
        ("norule:X", {}, "coupling.rule: no module named 'norule': put norule.py next to the scenario file or on PYTHONPATH, or write rule = "),
        ("missing.py:X", {}, "coupling.rule: rule file missing.py not found"),
        ("rl:BadKinds", {}, "flow_kinds must name \"rate\", \"window\" or both"),
        ("rl:Fixed", {"params": {"seed": 3}}, "params.seed: the seed is the group's own"),
        ("rl:Fixed", {"options": {"x": 1}}, "coupling.options.x: a Python coupling rule takes params"),
        ("rl:Fixed", {"gcc_report": "fast"}, "coupling.gcc_report: expected \"target\""),
    ],
)
def test_a_bad_rule_is_one_line(rules, rule, extra, fragment):
    with pytest.raises(flowstate.FlowstateError) as e:
        flowstate.run(scenario(rule, duration="2s", **extra))
    assert "\n" not in str(e.value) and fragment in str(e.value), str(e.value)


def test_rule_fields_belong_to_the_python_mechanism(rules):
    s = scenario("rl:Fixed")
    s["coupling"]["mechanism"] = "fse"
    with pytest.raises(flowstate.ScenarioError, match=r"coupling.rule: only mechanism = \"python\""):
        flowstate.check_scenario(s)
    del s["coupling"]["rule"]
    s["coupling"]["mechanism"] = "python"
    with pytest.raises(flowstate.ScenarioError, match="coupling.rule: mechanism = \"python\" needs the rule's class"):
        flowstate.check_scenario(s)


def test_an_exception_keeps_the_rules_traceback_and_the_time(rules):
    with pytest.raises(ZeroDivisionError) as e:
        flowstate.run(scenario("rl:Boom", duration="4s"))
    assert "raised by coupling rule rl:Boom.on_report at simulated time 2.0" in e.value.__notes__[0]
    assert e.traceback[-1].path.name == "rl.py"
    (rules / "s.toml").write_text(
        'name = "s"\nduration = "4s"\n[link]\ncapacity = "2Mbps"\ndelay = "20ms"\nqueue = "100ms"\n'
        '[coupling]\nmechanism = "python"\nrule = "rl:Boom"\n'
        '[[flows]]\nname = "x"\nkind = "gcc"\n[[flows]]\nname = "y"\nkind = "gcc"\n'
    )
    done = flowstate_cli("run", "s.toml", "--out", "out", cwd=rules)
    assert done.returncode == 1
    assert "ZeroDivisionError" in done.stderr and 'rl.py", line' in done.stderr
    assert "at simulated time 2.0" in done.stderr
    # The user's frames only; FLOWSTATE_DEBUG=1 shows flowstate's own too.
    assert "flowstate/cli" not in done.stderr and "simulation.py" not in done.stderr, done.stderr
    debug = subprocess.run(
        [sys.executable, "-m", "flowstate", "run", "s.toml", "--out", "out2"],
        capture_output=True, text=True, cwd=rules, env={**os.environ, "FLOWSTATE_DEBUG": "1"},
    )
    assert debug.returncode == 1 and "flowstate/cli" in debug.stderr and 'rl.py", line' in debug.stderr


def test_check_scenario_finds_the_rule_without_making_it(rules):
    flowstate.check_scenario(scenario("rl:Boom"))
    with pytest.raises(flowstate.ScenarioError, match="has no class 'Nope'"):
        flowstate.check_scenario(scenario("rl:Nope"))


def test_a_bad_rule_from_the_cli_is_one_line(rules):
    (rules / "s.toml").write_text(
        'name = "s"\nduration = "2s"\n[link]\ncapacity = "2Mbps"\ndelay = "20ms"\nqueue = "100ms"\n'
        '[coupling]\nmechanism = "python"\nrule = "rl:NoReport"\n[[flows]]\nname = "x"\nkind = "gcc"\n'
    )
    assert_one_line_error(flowstate_cli("run", "s.toml", "--out", "out", cwd=rules), "has no method on_report")


def test_a_catalogue_experiment_with_a_python_flow_and_a_python_rule(tmp_path):
    """An experiment folder whose scenario has a `kind = "python"` flow and a Python
    coupling rule (files next to the scenario) reproduces, and its claim is checked."""
    import io
    import json
    import shutil

    from flowstate.cli import reproduce as reproduce_command

    root = tmp_path / "catalogue"
    folder = root / "own-rule"
    folder.mkdir(parents=True)
    shutil.copy(EXAMPLES / "simple_fse.py", folder / "simple_fse.py")
    shutil.copy(EXAMPLES / "aimd.py", folder / "aimd.py")
    (folder / "base.toml").write_text(
        'name = "own"\nduration = "10s"\n[link]\ncapacity = "3Mbps"\ndelay = "25ms"\nqueue = "200ms"\n'
        '[coupling]\nmechanism = "python"\nrule = "simple_fse.py:SimpleFse"\n'
        '[[flows]]\nname = "gcc1"\nkind = "gcc"\npriority = 1\n'
        '[[flows]]\nname = "mine"\nkind = "python"\ncontroller = "aimd.py:Aimd"\ngroup = "call"\npriority = 2\n'
    )
    (folder / "experiment.toml").write_text(
        'id = "own-rule"\npaper_id = "000"\nreference = "Fig. 5"\ntitle = "A Python rule"\n'
        'description = "a GCC flow and a python flow coupled by the simple FSE written in Python"\n'
        'finding = "The coupled flows use the link."\nruns = 1\n'
        '[[variants]]\nname = "rule"\nlabel = "simple FSE in Python"\nscenario = "base.toml"\n'
        '[[claims]]\ntext = "the link is used"\ncheck = "{rule:aggregate.utilization} >= 0.5"\n'
    )
    out = tmp_path / "out"
    stdout = io.StringIO()
    status = reproduce_command.main(
        [], all_=True, short=True, out=str(out), catalogue_dir=str(root), stdout=stdout, stderr=io.StringIO()
    )
    assert status == 0, stdout.getvalue()
    results = json.loads((out / "own-rule" / "results.json").read_text())
    assert [c["status"] for c in results["claims"]] == ["holds"], results["claims"]
