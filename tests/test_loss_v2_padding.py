"""Issue 21: the `loss_v2_padding` override of gcc flows (Chromium's padding while
loss-based BWE v2 increases with padding, flowstate_core::gcc::padding): off by default,
on it changes a lossy run (the flow pads), and without `loss_v2_m150` it is a one-line
error."""

from __future__ import annotations

import pytest
from gcc_support import assert_off_by_default, gcc_lossy


def _gcc_lossy(overrides: dict, loss: float = 0.03) -> dict:
    return gcc_lossy("loss-v2-padding", overrides, loss)


def test_default_changes_nothing_and_the_option_changes_the_run():
    assert_off_by_default(_gcc_lossy, "loss_v2_padding", base={"loss_v2_m150": True})


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
