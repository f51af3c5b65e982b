"""The `nack_rtx` override of gcc flows (Chromium's NACK/RTX retransmissions,
flowstate_core::endpoint::nack and ::rtx): off by default (the run is unchanged), on it
changes a lossy run (the flow retransmits), and a bad value is a one-line error."""

from __future__ import annotations

import pytest
from gcc_support import assert_off_by_default, gcc_lossy


def _gcc_lossy(overrides: dict, loss: float = 0.03) -> dict:
    return gcc_lossy("nack-rtx", overrides, loss)


def test_default_changes_nothing_and_the_option_changes_the_run():
    assert_off_by_default(_gcc_lossy, "nack_rtx")


def test_bad_values_are_one_line():
    import flowstate

    with pytest.raises(Exception) as e:
        flowstate.run(_gcc_lossy({"nack_rtx": "yes"}), seed=1, runs=1)
    msg = str(e.value)
    assert "nack_rtx" in msg and "\n" not in msg, msg
