"""The `chromium_fec` override of gcc flows (Chromium's encoder-side protection,
flowstate_core::fec): on by default in `chromium-m156`, and it sends ULPFEC packets
once the receiver reports loss, and a bad value is a one-line error."""

from __future__ import annotations

import pytest
from gcc_support import assert_on_by_default, gcc_lossy


def _gcc_lossy(overrides: dict, loss: float = 0.03) -> dict:
    return gcc_lossy("fec", overrides, loss)


def test_chromium_fec_default_on_and_off_changes_a_lossy_run():
    assert_on_by_default(_gcc_lossy, "chromium_fec")


def test_chromium_fec_without_loss_sends_no_fec():
    import flowstate

    off = flowstate.run(_gcc_lossy({"chromium_fec": False}, loss=0.0), seed=1, runs=1)
    on = flowstate.run(_gcc_lossy({}, loss=0.0), seed=1, runs=1)
    # Without loss no FEC is sent (no FEC packets: fec::sender_tests in flowstate-core);
    # what differs is only the encoder's per-packet overhead, by packet rate under
    # `chromium_fec` (M150's `CalculateOverheadRate`) instead of packets per frame: the
    # throughput within 3 %.
    t_off = off.summary["flows"][0]["throughput_mbps"]
    t_on = on.summary["flows"][0]["throughput_mbps"]
    assert abs(t_on / t_off - 1) < 0.03, (t_on, t_off)


def test_chromium_fec_not_a_bool_is_one_line():
    import flowstate

    with pytest.raises(Exception) as e:
        flowstate.run(_gcc_lossy({"chromium_fec": "yes"}), seed=1, runs=1)
    msg = str(e.value)
    assert "flows[0].overrides.chromium_fec" in msg and "\n" not in msg
