"""What the tests of Chromium 156's gcc options share (docs/ALGORITHMS.md, GCC's Chromium options): the scenario (one
`chromium-m156` GCC flow alone on a 1 Mbit/s link with random loss, 20 s) and the checks
that an option has its default (on in `chromium-m156` for the send chain, off for the
others) and changes a run when switched."""

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


def assert_default(scenario, option: str, default, other, base: dict | None = None):
    """The gcc option ``option`` defaults to ``default``: a run of ``scenario(overrides)``
    without it is the run with it set to ``default``, and the run with it set to
    ``other`` differs (``base``: overrides under all three). Returns the default and the
    ``other`` runs (seed 1) for further checks."""
    import flowstate

    base = base or {}
    unset = flowstate.run(scenario(base), seed=1, runs=1)
    same = flowstate.run(scenario({**base, option: default}), seed=1, runs=1)
    changed = flowstate.run(scenario({**base, option: other}), seed=1, runs=1)
    assert unset.trace_hashes == same.trace_hashes, f"{option} = {default!r} changes the default run"
    assert changed.trace_hashes != unset.trace_hashes, f"{option} = {other!r} changes nothing"
    return unset, changed


def assert_off_by_default(scenario, option: str, value=True, base: dict | None = None):
    """``option`` is off by default and ``value`` changes the run: (default, on) runs."""
    return assert_default(scenario, option, False, value, base)


def assert_on_by_default(scenario, option: str, base: dict | None = None):
    """``option`` is on by default (`chromium-m156`'s send chain) and ``false`` changes
    the run: (default, off) runs."""
    return assert_default(scenario, option, True, False, base)
