"""The `nada`, `scream` and `ledbat` flow kinds (RFC 8698, RFC 8298, RFC 6817) from Python: they run through
`flowstate.run`, `flowstate list-options` shows every RFC constant with its default, and
a bad override is a one-line ScenarioError naming the key."""

from __future__ import annotations

import pytest

import flowstate
from flowstate import ScenarioError, _native

KINDS = ("nada", "scream", "ledbat")


def scenario(kind: str, **overrides: object) -> dict:
    return {
        "name": f"py-{kind}",
        "duration": "20s",
        "link": {"capacity": "1Mbps", "delay": "50ms", "queue": "300ms"},
        "flows": [{"name": kind, "kind": kind, "overrides": overrides}],
        "measure": {"start": "10s"},
    }


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_runs_and_uses_the_link(kind: str) -> None:
    r = flowstate.run(scenario(kind), seed=1)
    flow = r.summary["flows"][0]
    assert flow["kind"] == kind
    assert flow["throughput_mbps"] > 0.6, flow
    assert flow["rtt_ms"]["mean"] > 100.0, flow
    assert r.trace_hashes == flowstate.run(scenario(kind), seed=1).trace_hashes


def test_every_rfc_constant_is_listed_with_its_default() -> None:
    defs = _native.definitions()
    kinds = {k["name"]: k for k in defs["flow_kinds"]}
    assert {"nada", "scream", "ledbat"} <= set(kinds)
    assert kinds["nada"]["coupling"] == "rate" and kinds["ledbat"]["coupling"] == "window"
    keys = {(o["key"], tuple(o["applies_to"])): o for o in defs["overrides"]}
    want = {
        ("overrides.x_ref_ms", ("nada",)): "10",
        ("overrides.kappa", ("nada",)): "0.5",
        ("overrides.qdelay_target_ms", ("scream",)): "100",
        ("overrides.beta_loss", ("scream",)): "0.8",
        ("overrides.target_ms", ("ledbat",)): "100",
        ("overrides.base_history", ("ledbat",)): "10",
    }
    for k, default in want.items():
        assert k in keys, k
        assert keys[k]["default"] == default, (k, keys[k]["default"])


@pytest.mark.parametrize(
    "kind, overrides, field",
    [
        ("nada", {"kappa": -1.0}, "flows[0].overrides.kappa"),
        ("nada", {"max_rate": "100kbps"}, "flows[0].overrides.max_rate"),
        ("nada", {"frame_interval_noise": 0.15}, "flows[0].overrides.frame_interval_noise"),
        ("nada", {"perfect_codec": True, "frame_interval_noise": 2.0}, "flows[0].overrides.frame_interval_noise"),
        ("scream", {"beta_loss": 2.0}, "flows[0].overrides.beta_loss"),
        ("ledbat", {"target_ms": 150.0}, "flows[0].overrides.target_ms"),
        ("ledbat", {"kappa": 0.5}, "flows[0].overrides"),
    ],
)
def test_bad_overrides_are_one_line_errors(kind: str, overrides: dict, field: str) -> None:
    with pytest.raises(ScenarioError) as e:
        flowstate.run(scenario(kind, **overrides))
    message = str(e.value)
    assert "\n" not in message and field in message, message
