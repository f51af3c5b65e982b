"""What the tests of Chromium 156's gcc options share (issue 21): the scenario (one
`chromium-m156` GCC flow alone on a 1 Mbit/s link with random loss, 20 s) and the check
that an option is off by default and changes a run when on."""

from __future__ import annotations


def gcc_lossy(name: str, overrides: dict, loss: float = 0.03) -> dict:
    """The scenario, named ``name``, with ``overrides`` on the gcc flow and ``loss`` on
    the link."""
    return {
        "name": name,
        "duration": "20s",
        "link": {"capacity": "1Mbps", "delay": "25ms", "queue": "300ms", "loss": loss},
        "flows": [{"name": "gcc", "kind": "gcc", "preset": "chromium-m156", "overrides": overrides}],
    }


def assert_off_by_default(scenario, option: str, value=True, base: dict | None = None):
    """The gcc option ``option`` is off by default: a run of ``scenario(overrides)``
    without it is the run with it set to False, and the run with it set to ``value``
    differs (``base``: overrides under all three). Returns the default and the ``value``
    runs (seed 1) for further checks."""
    import flowstate

    base = base or {}
    default = flowstate.run(scenario(base), seed=1, runs=1)
    off = flowstate.run(scenario({**base, option: False}), seed=1, runs=1)
    on = flowstate.run(scenario({**base, option: value}), seed=1, runs=1)
    assert default.trace_hashes == off.trace_hashes, f"{option} = false changes the default run"
    assert on.trace_hashes != default.trace_hashes, f"{option} = {value!r} changes nothing"
    return default, on
