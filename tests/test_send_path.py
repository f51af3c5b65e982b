"""The `send_time_ms` and `fec_delay_ms` overrides of gcc flows (Chromium's
send path as its delay-based detector sees it, flowstate_core::endpoint::send_path):
on by default in `chromium-m156` (off in the paper-era presets), switched they change a
run, and a bad value is a one-line error."""

from __future__ import annotations

import pytest
from gcc_support import gcc_lossy


def _gcc_lossy(overrides: dict, loss: float = 0.03) -> dict:
    return gcc_lossy("send-path", overrides, loss)


def test_defaults_are_the_presets_and_each_option_changes_the_run():
    import flowstate

    # chromium-m156: whole-ms send times and ULPFEC 5.4 ms behind its frame by default.
    base = flowstate.run(_gcc_lossy({}), seed=1, runs=1)
    said = flowstate.run(_gcc_lossy({"send_time_ms": True, "fec_delay_ms": 5.4}), seed=1, runs=1)
    assert base.trace_hashes == said.trace_hashes
    exact = flowstate.run(_gcc_lossy({"send_time_ms": False}), seed=1, runs=1)
    at_once = flowstate.run(_gcc_lossy({"fec_delay_ms": 0}), seed=1, runs=1)
    assert exact.trace_hashes != base.trace_hashes
    assert at_once.trace_hashes != base.trace_hashes
    # Without FEC the preset's delay has nothing to hold (no error).
    no_fec = flowstate.run(_gcc_lossy({"chromium_fec": False}), seed=1, runs=1)
    assert no_fec.trace_hashes != base.trace_hashes
    # The paper-era chromium preset: neither by default, each on request.
    def old(o):
        return flowstate.run({**_gcc_lossy(o), "flows": [{**_gcc_lossy(o)["flows"][0], "preset": "chromium"}]},
                             seed=1, runs=1).trace_hashes
    fec = {"chromium_fec": True}
    assert old(fec) == old({**fec, "send_time_ms": False}) == old({**fec, "fec_delay_ms": 0})
    # (send_time_ms changes nothing there: the budget pacer sends on its 5 ms ticks, whole
    # milliseconds already.)
    assert old({**fec, "send_time_ms": True}) == old(fec)
    assert old({**fec, "fec_delay_ms": 5.4}) != old(fec)


@pytest.mark.parametrize(
    "overrides, words",
    [
        ({"chromium_fec": False, "fec_delay_ms": 5.0}, "needs chromium_fec"),
        ({"fec_delay_ms": -1.0}, "fec_delay_ms: must be a number > 0"),
        ({"fec_delay_ms": 0.05}, "between 0.1 and 1000"),
        ({"fec_delay_ms": 2000.0}, "between 0.1 and 1000"),
        ({"send_time_ms": "yes"}, "send_time_ms"),
    ],
)
def test_bad_values_are_one_line(overrides, words):
    import flowstate

    with pytest.raises(Exception) as e:
        flowstate.run(_gcc_lossy(overrides), seed=1, runs=1)
    msg = str(e.value)
    assert words in msg and "\n" not in msg, msg
