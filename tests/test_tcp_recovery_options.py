"""The tcp kinds' recovery options from a scenario: `prr` (RFC 6937) recovers with
SACK's pipe, so without `sack` it is a one-line error naming the fix; with it the
option changes the run (a drop-tail overflow is recovered differently) and the run
stays a pure function of (scenario, seed)."""

from __future__ import annotations

import pytest

import flowstate
from flowstate import ScenarioError


def scenario(**overrides: object) -> dict:
    return {
        "name": "tcp-recovery",
        "duration": "20s",
        "link": {"capacity": "2Mbps", "delay": "50ms", "queue": "50kB"},
        "flows": [{"name": "tcp", "kind": "tcp-newreno", "overrides": overrides}],
        "measure": {"start": "5s"},
    }


def test_prr_without_sack_is_a_one_line_error_naming_the_fix():
    with pytest.raises(ScenarioError) as e:
        flowstate.run(scenario(prr=True))
    message = str(e.value)
    assert "\n" not in message and "overrides.prr" in message and "sack = true" in message, message


def test_prr_changes_the_recovery_and_is_deterministic():
    rfc6675 = flowstate.run(scenario(sack=True), seed=1)
    prr = flowstate.run(scenario(sack=True, prr=True), seed=1)
    assert prr.trace_hashes != rfc6675.trace_hashes
    assert prr.trace_hashes == flowstate.run(scenario(sack=True, prr=True), seed=1).trace_hashes
    # Both fill the link; PRR keeps sending through a recovery.
    for r in (rfc6675, prr):
        assert r.summary["flows"][0]["throughput_mbps"] > 1.6, r.summary["flows"][0]
