"""The `loss_v2_padding` override of gcc flows (Chromium's padding while
loss-based BWE v2 increases with padding, flowstate_core::gcc::padding): on by default in
`chromium-m156`, off it changes a lossy run (the flow pads), off by itself with M125's
loss-based BWE v2, and asked for without `loss_v2_m150` it is a one-line error."""

from __future__ import annotations

import pytest
from gcc_support import assert_on_by_default, gcc_lossy


def _gcc_lossy(overrides: dict, loss: float = 0.03) -> dict:
    return gcc_lossy("loss-v2-padding", overrides, loss)


def test_default_pads_and_off_changes_the_run():
    assert_on_by_default(_gcc_lossy, "loss_v2_padding")


def test_m125_loss_v2_switches_the_presets_padding_off():
    import flowstate

    m125 = flowstate.run(_gcc_lossy({"loss_v2_m150": False}), seed=1, runs=1)
    off = flowstate.run(_gcc_lossy({"loss_v2_m150": False, "loss_v2_padding": False}), seed=1, runs=1)
    assert m125.trace_hashes == off.trace_hashes


@pytest.mark.parametrize(
    "overrides, words",
    [
        ({"loss_v2_m150": False, "loss_v2_padding": True}, "needs loss_v2_m150"),
        ({"loss_v2_m150": True, "loss_v2_padding": "yes"}, "loss_v2_padding"),
    ],
)
def test_bad_values_are_one_line(overrides, words):
    import flowstate

    with pytest.raises(Exception) as e:
        flowstate.run(_gcc_lossy(overrides), seed=1, runs=1)
    msg = str(e.value)
    assert words in msg and "\n" not in msg, msg
