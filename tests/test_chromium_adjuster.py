"""The `chromium_adjuster` override of gcc flows (Chromium's encoder bitrate
adjuster, flowstate_core::endpoint::encoder_adjuster): on by default in `chromium-m156`,
off it changes a run, and a bad value is a one-line error."""

from __future__ import annotations

import pytest
from gcc_support import assert_on_by_default


def _gcc(overrides: dict) -> dict:
    return {
        "name": "adjuster",
        "duration": "20s",
        "link": {"capacity": "300kbps", "delay": "25ms", "queue": "300ms"},
        "flows": [{"name": "gcc", "kind": "gcc", "preset": "chromium-m156", "overrides": overrides}],
    }


def test_chromium_adjuster_default_on_and_off_changes_a_run():
    assert_on_by_default(_gcc, "chromium_adjuster")


def test_chromium_adjuster_not_a_bool_is_one_line():
    import flowstate

    with pytest.raises(Exception) as e:
        flowstate.run(_gcc({"chromium_adjuster": "yes"}), seed=1, runs=1)
    msg = str(e.value)
    assert "flows[0].overrides.chromium_adjuster" in msg and "\n" not in msg
