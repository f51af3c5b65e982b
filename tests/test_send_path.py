"""Issue 21: the `send_time_ms` and `fec_delay_ms` overrides of gcc flows (Chromium's
send path as its delay-based detector sees it, flowstate_core::endpoint::send_path):
off by default, on they change a run, and a bad value is a one-line error."""

from __future__ import annotations

import pytest
from gcc_support import gcc_lossy


def _gcc_lossy(overrides: dict, loss: float = 0.03) -> dict:
    return gcc_lossy("send-path", overrides, loss)


def test_defaults_change_nothing_and_each_option_changes_the_run():
    import flowstate

    fec = {"chromium_fec": True}
    base = flowstate.run(_gcc_lossy(fec), seed=1, runs=1)
    off = flowstate.run(_gcc_lossy({**fec, "send_time_ms": False}), seed=1, runs=1)
    assert base.trace_hashes == off.trace_hashes
    ms = flowstate.run(_gcc_lossy({**fec, "send_time_ms": True}), seed=1, runs=1)
    held = flowstate.run(_gcc_lossy({**fec, "fec_delay_ms": 5.4}), seed=1, runs=1)
    assert ms.trace_hashes != base.trace_hashes
    assert held.trace_hashes != base.trace_hashes


@pytest.mark.parametrize(
    "overrides, words",
    [
        ({"fec_delay_ms": 5.0}, "needs chromium_fec"),
        ({"chromium_fec": True, "fec_delay_ms": -1.0}, "fec_delay_ms: must be a number > 0"),
        ({"chromium_fec": True, "fec_delay_ms": 0.05}, "between 0.1 and 1000"),
        ({"chromium_fec": True, "fec_delay_ms": 2000.0}, "between 0.1 and 1000"),
        ({"send_time_ms": "yes"}, "send_time_ms"),
    ],
)
def test_bad_values_are_one_line(overrides, words):
    import flowstate

    with pytest.raises(Exception) as e:
        flowstate.run(_gcc_lossy(overrides), seed=1, runs=1)
    msg = str(e.value)
    assert words in msg and "\n" not in msg, msg
