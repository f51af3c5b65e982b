"""`python` and `onnx` flows: a controller written in Python (or an ONNX policy) sets a
flow's rate in the simulator, from `flowstate run` and `flowstate.run()`; bad
controllers are one-line errors, exceptions keep their traceback, runs are deterministic."""

from __future__ import annotations

import json
import math
import sys
import textwrap
from pathlib import Path

import pytest

import flowstate
from cli_support import assert_one_line_error, flowstate as flowstate_cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

LINK = {"capacity": "2Mbps", "delay": "25ms", "queue": "100ms"}


def scenario(flows, duration="20s", **extra):
    return {"name": "pyctl", "duration": duration, "link": dict(LINK), "flows": flows, **extra}


def python_flow(controller, name="x", **extra):
    return {"name": name, "kind": "python", "controller": controller, **extra}


@pytest.fixture()
def controllers(tmp_path, monkeypatch):
    """A module `ctl` of test controllers in a folder that is the current one."""
    (tmp_path / "ctl.py").write_text(
        textwrap.dedent(
            """
            import math, random

            class Constant:
                def __init__(self, rate=1e6):
                    self.rate = rate
                def on_feedback(self, fb):
                    return self.rate

            class Seeded:
                def __init__(self, seed):
                    self.random = random.Random(seed)
                def on_feedback(self, fb):
                    return self.random.uniform(5e5, 1.5e6)

            class Recorder:
                seen = []
                def on_feedback(self, fb):
                    Recorder.seen.append((fb.now_s, len(fb), sum(fb.lost), fb.rtt_s, fb.target_bps,
                                          fb.allowance_bps, list(fb.ecn)))
                    return (8e5, 1.6e6)

            class Nan:
                def on_feedback(self, fb):
                    return math.nan if fb.now_s > 1 else 1e6

            class Negative:
                def on_feedback(self, fb):
                    return -5.0

            class Text:
                def on_feedback(self, fb):
                    return "fast"

            class Boom:
                def on_feedback(self, fb):
                    if fb.now_s > 2.5:
                        raise ZeroDivisionError("the controller's own bug")
                    return 1e6

            class NoMethod:
                pass
            """
        )
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "ctl", raising=False)
    yield tmp_path
    sys.modules.pop("ctl", None)


def test_a_python_controller_sets_the_rate(controllers):
    r = flowstate.run(scenario([python_flow("ctl:Constant", params={"rate": 1.2e6})]), seed=1)
    f = r.summary["flows"][0]
    assert f["kind"] == "python"
    assert 1.1 < f["throughput_mbps"] < 1.25, f["throughput_mbps"]


def test_feedback_carries_the_packets_rtt_and_pacing(controllers):
    import ctl

    ctl.Recorder.seen.clear()
    flowstate.run(scenario([python_flow("ctl:Recorder")], duration="3s"), seed=1)
    seen = ctl.Recorder.seen
    # One report every 60 ms (the default feedback interval) once packets arrive.
    assert 40 <= len(seen) <= 50, len(seen)
    now, packets, lost, rtt, target, allowance, ecn = seen[-1]
    # 0.8 Mbit/s paced at 1.6: 1200-byte packets, ~5 per 60 ms report.
    assert 4 <= packets <= 6 and lost == 0 and allowance is None
    assert rtt == pytest.approx(0.05, abs=0.01) and target == 8e5
    assert ecn == [0] * packets


def test_the_aimd_example_behaves_like_the_built_in_aimd():
    """examples/aimd.py (the rule of `rap`: +1 packet per RTT, halve on loss) against the
    built-in rap flow on the same 60 s scenario: throughput within 15 %, loss below 10 %."""
    ours = flowstate.run(str(EXAMPLES / "aimd.toml"), seed=1).summary["flows"][0]
    from flowstate.overrides import load_toml

    scen = load_toml(EXAMPLES / "aimd.toml")
    scen["flows"] = [{"name": "rap", "kind": "rap"}]
    rap = flowstate.run(scen, seed=1).summary["flows"][0]
    assert ours["throughput_mbps"] == pytest.approx(rap["throughput_mbps"], rel=0.15)
    assert ours["throughput_mbps"] > 1.5
    assert ours["loss_ratio"] < 0.10


def test_an_ecn_capable_python_flow_sees_its_packets_ecn_bits(controllers):
    import ctl

    ctl.Recorder.seen.clear()
    r = flowstate.run(scenario([python_flow("ctl:Recorder", ecn="ect0")], duration="2s"), seed=1)
    assert {b for *_, ecn in ctl.Recorder.seen for b in ecn} == {2}  # ECT(0); the drop-tail link never marks
    assert r.summary["flows"][0]["ce_marks"] == 0 and "ecn_responses" not in r.summary["flows"][0]


def test_runs_are_a_function_of_the_scenario_and_seed(controllers):
    s = scenario([python_flow("ctl:Seeded"), {"name": "tcp", "kind": "tcp-cubic", "start": "2s"}])
    a, b = flowstate.run(s, seed=4), flowstate.run(s, seed=4)
    assert a.runs[0]["flows"] == b.runs[0]["flows"]
    assert a.trace_hashes == b.trace_hashes and a.trace_hashes[0] is not None
    c = flowstate.run(s, seed=5)
    assert c.trace_hashes != a.trace_hashes


def test_python_flows_are_coupled(controllers):
    flows = [
        python_flow("ctl:Constant", name="a", group="g", priority=1, params={"rate": 3e6}),
        python_flow("ctl:Constant", name="b", group="g", priority=3, params={"rate": 3e6}),
    ]
    r = flowstate.run(scenario(flows, coupling={"mechanism": "fse"}), seed=1)
    a, b = (f["throughput_mbps"] for f in r.summary["flows"])
    assert a > 0.1 and b / a > 1.5, (a, b)


@pytest.mark.parametrize(
    ("controller", "fragment"),
    [
        ("ctl:Nan", "returned nan (the target rate must be a finite number >= 0 bit/s, got NaN) at simulated time 1."),
        ("ctl:Negative", "returned -5.0 (the target rate must be a finite number >= 0 bit/s, got -5)"),
        ("ctl:Text", "returned a str at simulated time"),
        ("ctl:NoMethod", "flows[0].controller: ctl:NoMethod has no method on_feedback(feedback)"),
        ("ctl:Missing", "flows[0].controller: module 'ctl' has no class 'Missing' (it defines Boom"),
        ("nomodule:X", "flows[0].controller: no module named 'nomodule': put nomodule.py next to the scenario"),
        ("missing.py:X", "flows[0].controller: controller file missing.py not found"),
    ],
)
def test_a_bad_controller_is_one_line(controllers, controller, fragment):
    with pytest.raises(flowstate.FlowstateError) as e:
        flowstate.run(scenario([python_flow(controller)], duration="3s"))
    assert "\n" not in str(e.value) and fragment in str(e.value), str(e.value)
    (controllers / "s.toml").write_text(
        f'name = "s"\nduration = "3s"\n[link]\ncapacity = "2Mbps"\ndelay = "20ms"\nqueue = "100ms"\n'
        f'[[flows]]\nname = "x"\nkind = "python"\ncontroller = "{controller}"\n'
    )
    assert_one_line_error(flowstate_cli("run", "s.toml", "--out", "out", cwd=controllers), fragment)


def test_an_exception_keeps_the_controllers_traceback_and_the_time(controllers):
    with pytest.raises(ZeroDivisionError) as e:
        flowstate.run(scenario([python_flow("ctl:Boom")], duration="5s"))
    assert "raised by flows[0] (x): ctl:Boom at simulated time 2.5" in e.value.__notes__[0]
    assert e.traceback[-1].path.name == "ctl.py"
    (controllers / "s.toml").write_text(
        'name = "s"\nduration = "5s"\n[link]\ncapacity = "2Mbps"\ndelay = "20ms"\nqueue = "100ms"\n'
        '[[flows]]\nname = "x"\nkind = "python"\ncontroller = "ctl:Boom"\n'
    )
    done = flowstate_cli("run", "s.toml", "--out", "out", cwd=controllers)
    assert done.returncode == 1
    assert "ZeroDivisionError: the controller's own bug" in done.stderr and "panicked" not in done.stderr
    assert 'ctl.py", line' in done.stderr and "at simulated time 2.5" in done.stderr


def test_check_scenario_finds_the_class_without_making_it(controllers):
    flowstate.check_scenario(scenario([python_flow("ctl:Boom")]))
    with pytest.raises(flowstate.ScenarioError, match="has no class 'Nope'"):
        flowstate.check_scenario(scenario([python_flow("ctl:Nope")]))


def test_a_controller_file_next_to_the_scenario(tmp_path, monkeypatch):
    folder = tmp_path / "exp"
    folder.mkdir()
    (folder / "mine.py").write_text("class C:\n    def on_feedback(self, fb):\n        return 7e5\n")
    (folder / "s.toml").write_text(
        'name = "s"\nduration = "5s"\n[link]\ncapacity = "2Mbps"\ndelay = "20ms"\nqueue = "100ms"\n'
        '[[flows]]\nname = "x"\nkind = "python"\ncontroller = "mine.py:C"\n'
    )
    monkeypatch.chdir(tmp_path)
    r = flowstate.run(folder / "s.toml")
    assert r.summary["flows"][0]["throughput_mbps"] == pytest.approx(0.7, rel=0.1)
    out = tmp_path / "out"
    done = flowstate_cli("run", str(folder / "s.toml"), "--out", out, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads((out / "summary.json").read_text())["flows"][0]["kind"] == "python"


def make_onnx(path: Path, stateful: bool) -> None:
    """A linear estimator of the MMSys 2024 signature: 1.1 x the newest short MI's
    receiving rate, at least 300 kbit/s (and, stateful, the state fed through)."""
    np = pytest.importorskip("numpy")
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    w = np.zeros((150, 1), dtype=np.float32)
    w[0, 0] = 1.1
    nodes = [
        helper.make_node("Reshape", ["obs", "shape"], ["flat"]),
        helper.make_node("MatMul", ["flat", "w"], ["y"]),
        helper.make_node("Max", ["y", "floor"], ["y2"]),
        helper.make_node("Reshape", ["y2", "out_shape"], ["estimate"]),
    ]
    inputs = [helper.make_tensor_value_info("obs", TensorProto.FLOAT, [1, 1, 150])]
    outputs = [helper.make_tensor_value_info("estimate", TensorProto.FLOAT, [1, 1, 1])]
    if stateful:
        nodes += [helper.make_node("Identity", ["hidden_states"], ["h"]), helper.make_node("Identity", ["cell_states"], ["c"])]
        inputs += [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 1]) for n in ("hidden_states", "cell_states")]
        outputs += [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 1]) for n in ("h", "c")]
    init = [
        numpy_helper.from_array(w, "w"),
        numpy_helper.from_array(np.array([1, 150], dtype=np.int64), "shape"),
        numpy_helper.from_array(np.array([1, 1, 1], dtype=np.int64), "out_shape"),
        numpy_helper.from_array(np.array([[300e3]], dtype=np.float32), "floor"),
    ]
    graph = helper.make_graph(nodes, "estimator", inputs, outputs, init)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


@pytest.mark.parametrize("stateful", [False, True])
def test_an_onnx_policy_runs_as_a_flow(tmp_path, stateful):
    pytest.importorskip("onnxruntime")
    model = tmp_path / "m.onnx"
    make_onnx(model, stateful)
    flows = [{"name": "bwe", "kind": "onnx", "controller": str(model)}]
    r = flowstate.run(scenario(flows), seed=1)
    f = r.summary["flows"][0]
    assert f["kind"] == "onnx" and 1.2 < f["throughput_mbps"] < 2.01, f["throughput_mbps"]
    same = flowstate.run(scenario([python_flow(f"onnx:{model}", name="bwe")]), seed=1)
    assert same.summary["flows"][0]["throughput_mbps"] == f["throughput_mbps"]


def test_an_onnx_file_that_is_not_a_model_is_one_line(tmp_path):
    pytest.importorskip("onnxruntime")
    bad = tmp_path / "bad.onnx"
    bad.write_text("not a model")
    with pytest.raises(flowstate.FlowstateError) as e:
        flowstate.run(scenario([{"name": "bwe", "kind": "onnx", "controller": str(bad)}], duration="2s"))
    assert "not an ONNX model onnxruntime can run" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(flowstate.ScenarioError, match="ONNX model nothere.onnx not found"):
        flowstate.check_scenario(scenario([{"name": "bwe", "kind": "onnx", "controller": "nothere.onnx"}]))


def test_the_mmsys_observation_layout():
    pytest.importorskip("numpy")
    from flowstate.observation import MmsysObservation

    class Fb:  # one report: 5 packets of 1000 B sent every 10 ms, 20 ms one-way, the 4th lost
        send_time_s = [0.95, 0.96, 0.97, 0.98, 0.99]
        arrival_time_s = [0.97, 0.98, 0.99, math.nan, 1.0]
        size_bytes = [1000] * 5
        report_time_s = 1.0

    obs = MmsysObservation().update([Fb()], 1.0, 1e6)
    assert obs.shape == (150,)
    assert obs[0] == pytest.approx(4 * 1000 * 8 / 0.06)  # receiving rate, newest short MI
    assert obs[10] == 4 and obs[20] == 4000  # packets, bytes
    assert obs[50] == pytest.approx(10.0, abs=1e-3)  # smallest one-way delay seen, ms (0.99 -> 1.0)
    assert obs[100] == pytest.approx(0.2)  # loss ratio: 1 of 5 sent in the MI
    assert obs[120] == 1 and obs[130] == 0 and obs[140] == 0  # video, audio, probing
    assert obs[1] == 0  # the MI before: nothing arrived
