"""The `loss_v2_m150` override of gcc flows (loss-based BWE v2 with WebRTC M150's
defaults, libwebrtc 068e6ba696): on by default in `chromium-m156`, off (M125's) it
changes a lossy run, a preset
without loss-based BWE v2 and a bad value are one-line errors."""

from __future__ import annotations

import pytest
from gcc_support import assert_on_by_default


def _gcc(overrides: dict, preset: str = "chromium-m156") -> dict:
    return {
        "name": "lossv2",
        "duration": "20s",
        "link": {"capacity": "500kbps", "delay": "25ms", "queue": "30ms"},
        "flows": [{"name": "gcc", "kind": "gcc", "preset": preset, "overrides": overrides},
                  {"name": "tcp", "kind": "tcp-cubic"}],
    }


def test_loss_v2_m150_default_on_and_off_changes_a_run():
    assert_on_by_default(_gcc, "loss_v2_m150")


@pytest.mark.parametrize("overrides,preset", [({"loss_v2_m150": "yes"}, "chromium-m156"),
                                              ({"loss_v2_m150": True}, "chromium"),
                                              ({"loss_v2_m150": True, "loss_based_v2": False}, "chromium-m156")])
def test_loss_v2_m150_bad_input_is_one_line(overrides, preset):
    import flowstate

    with pytest.raises(Exception) as e:
        flowstate.run(_gcc(overrides, preset), seed=1, runs=1)
    msg = str(e.value)
    assert "loss_v2_m150" in msg and "\n" not in msg
