"""The `rtcp_report_random` override of gcc flows (libwebrtc RTCPSender's
randomized receiver-report gaps, flowstate_core::endpoint::report_schedule): on by
default in `chromium-m156`, off in the paper-era presets, it changes a lossy run, each
seed draws its own gaps, and a bad value is a one-line error."""

from __future__ import annotations

import pytest
from gcc_support import assert_default, assert_on_by_default, gcc_lossy


def _lossy(overrides: dict, preset: str = "chromium-m156") -> dict:
    doc = gcc_lossy("rtcp-report", overrides, 0.03)
    doc["flows"][0]["preset"] = preset
    return doc


def test_on_in_chromium_m156_off_in_the_paper_era_preset():
    assert_on_by_default(_lossy, "rtcp_report_random")
    assert_default(lambda o: _lossy(o, "chromium"), "rtcp_report_random", False, True)


def test_the_draws_follow_the_seed():
    import flowstate

    a = flowstate.run(_lossy({}), seed=1, runs=2)
    b = flowstate.run(_lossy({}), seed=1, runs=2)
    assert a.trace_hashes == b.trace_hashes
    assert len(set(a.trace_hashes)) == 2


def test_a_bad_value_is_one_line():
    import flowstate

    with pytest.raises(Exception) as e:
        flowstate.run(_lossy({"rtcp_report_random": "sometimes"}), seed=1, runs=1)
    msg = str(e.value)
    assert "rtcp_report_random" in msg and "\n" not in msg, msg
