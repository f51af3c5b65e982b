"""The `chromium_feedback_cadence` and `feedback_peer_rate` overrides of gcc
flows (Chromium 156's transport-feedback schedule, flowstate_core::gcc::feedback_cadence):
on by default in `chromium-m156` (off in the paper-era presets), switched they change
a run, and a bad value is a one-line error."""

from __future__ import annotations

import pytest
from gcc_support import assert_on_by_default


def _gcc(overrides: dict, preset: str = "chromium-m156") -> dict:
    return {
        "name": "feedback-cadence",
        "duration": "20s",
        "link": {"capacity": "1Mbps", "delay": "25ms", "queue": "300ms"},
        "flows": [{"name": "gcc", "kind": "gcc", "preset": preset, "overrides": overrides}],
    }


def test_default_changes_nothing_and_the_cadence_changes_the_run():
    import flowstate

    on, _ = assert_on_by_default(_gcc, "chromium_feedback_cadence")
    # 300 kbit/s is the default peer rate: saying so changes nothing; 100 kbit/s does
    # (a report every 109.375 ms instead of 62.5).
    same = flowstate.run(_gcc({"chromium_feedback_cadence": True, "feedback_peer_rate": "300kbps"}), seed=1, runs=1)
    assert same.trace_hashes == on.trace_hashes
    slow = flowstate.run(_gcc({"chromium_feedback_cadence": True, "feedback_peer_rate": "100kbps"}), seed=1, runs=1)
    assert slow.trace_hashes != on.trace_hashes
    # The paper-era chromium preset takes it too.
    old = flowstate.run(_gcc({"chromium_feedback_cadence": True}, "chromium"), seed=1, runs=1)
    assert old.trace_hashes != flowstate.run(_gcc({}, "chromium"), seed=1, runs=1).trace_hashes


@pytest.mark.parametrize(
    "overrides, preset, words",
    [
        ({"feedback_peer_rate": "300kbps"}, "chromium", "needs chromium_feedback_cadence"),
        ({"chromium_feedback_cadence": False, "feedback_peer_rate": "300kbps"}, "chromium-m156",
         "needs chromium_feedback_cadence"),
        ({"chromium_feedback_cadence": True}, "paper", "sends no transport-wide feedback"),
        ({"chromium_feedback_cadence": "yes"}, "chromium-m156", "chromium_feedback_cadence"),
        ({"chromium_feedback_cadence": True, "feedback_peer_rate": "fast"}, "chromium-m156", "feedback_peer_rate"),
    ],
)
def test_bad_values_are_one_line(overrides, preset, words):
    import flowstate

    with pytest.raises(Exception) as e:
        flowstate.run(_gcc(overrides, preset), seed=1, runs=1)
    msg = str(e.value)
    assert words in msg and "\n" not in msg, msg
