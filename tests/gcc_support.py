"""The scenario the tests of Chromium 156's gcc options share (issue 21): one
`chromium-m156` GCC flow alone on a 1 Mbit/s link with random loss, 20 s."""

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
