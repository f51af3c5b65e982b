"""Issue 21: the `loss_v2_padding` override of gcc flows (Chromium's padding while
loss-based BWE v2 increases with padding, flowstate_core::gcc::padding): off by default,
on it changes a lossy run (the flow pads), and without `loss_v2_m150` it is a one-line
error."""

from __future__ import annotations

import pytest
from gcc_support import gcc_lossy


def _gcc_lossy(overrides: dict, loss: float = 0.03) -> dict:
    return gcc_lossy("loss-v2-padding", overrides, loss)


def test_default_changes_nothing_and_the_option_changes_the_run():
    import flowstate

    m150 = {"loss_v2_m150": True}
    base = flowstate.run(_gcc_lossy(m150), seed=1, runs=1)
    off = flowstate.run(_gcc_lossy({**m150, "loss_v2_padding": False}), seed=1, runs=1)
    assert base.trace_hashes == off.trace_hashes
    on = flowstate.run(_gcc_lossy({**m150, "loss_v2_padding": True}), seed=1, runs=1)
    assert on.trace_hashes != base.trace_hashes


@pytest.mark.parametrize(
    "overrides, words",
    [
        ({"loss_v2_padding": True}, "needs loss_v2_m150"),
        ({"loss_v2_m150": True, "loss_v2_padding": "yes"}, "loss_v2_padding"),
    ],
)
def test_bad_values_are_one_line(overrides, words):
    import flowstate

    with pytest.raises(Exception) as e:
        flowstate.run(_gcc_lossy(overrides), seed=1, runs=1)
    msg = str(e.value)
    assert words in msg and "\n" not in msg, msg
