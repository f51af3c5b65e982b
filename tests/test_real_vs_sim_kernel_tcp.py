"""Issue 21: `real_vs_sim.py --kernel-tcp` runs the simulated TCP competitor on Linux's
defaults (sack, timestamps, linux_rto; hystart in CUBIC), what the real competitor runs
(docs/REPRODUCTION.md, "rfc8867-5.6: the x0.6 and the TCP RTT's x0.79 are the
competitor's loss recovery"); without it the scenario's RFC defaults stay."""

from __future__ import annotations

import sys

from script_support import SCRIPTS


def _real_vs_sim():
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    import real_vs_sim

    return real_vs_sim


def _tcp_overrides(doc: dict) -> dict:
    (tcp,) = [f for f in doc["flows"] if str(f.get("kind", "")).startswith("tcp")]
    return dict(tcp.get("overrides") or {})


def test_kernel_tcp_sets_linux_defaults_on_the_competitor_only():
    m = _real_vs_sim()
    case = next(c for c in m.CASES if c.name == "rfc8867-5.6")
    plain = m.scenario_doc(case, chromium_preset=True, side=m.SimSide("chromium-m156"))
    kernel = m.scenario_doc(case, chromium_preset=True, side=m.SimSide("chromium-m156", kernel_tcp=True))
    assert not {"sack", "timestamps", "linux_rto", "hystart"} & _tcp_overrides(plain).keys()
    assert _tcp_overrides(kernel) == {**_tcp_overrides(plain), "sack": True, "timestamps": True,
                                      "linux_rto": True, "hystart": True}
    # the video flow is untouched
    assert [f for f in plain["flows"] if not f["kind"].startswith("tcp")] == [
        f for f in kernel["flows"] if not f["kind"].startswith("tcp")
    ]
    assert "kernel-tcp" in m.SimSide("chromium-m156", kernel_tcp=True).tag
    assert "kernel-tcp" not in m.SimSide("chromium-m156").tag


def test_the_kernel_competitor_runs_and_differs():
    import flowstate

    m = _real_vs_sim()
    case = next(c for c in m.CASES if c.name == "rfc8867-5.6")
    docs = []
    for kernel in (False, True):
        doc = m.scenario_doc(case, chromium_preset=True, side=m.SimSide("chromium-m156", kernel_tcp=kernel))
        docs.append(flowstate.run(doc, seed=1, runs=1))
    assert docs[0].trace_hashes != docs[1].trace_hashes
