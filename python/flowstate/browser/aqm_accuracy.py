"""The real paths under a marking queue discipline against the simulator
(docs/BENCHMARKS.md, "ECN and AQM on the real paths").

Two comparisons, each a real run and the simulator's run of the same scenario:

- :func:`ip_vs_sim`: a kernel TCP CUBIC connection with ECN through the IP-level
  bottleneck (``flowstate browser``'s path) against the simulator's ``tcp-cubic``
  with ``ecn = "ect0"``;
- :func:`testbed_vs_sim`: the testbed's own ECN-capable SCTP flow over real UDP
  through the emulator against the same flow simulated.

Reported for each side over the measurement window: the sojourn time of the data
packets in the queue (p50 / p95, what the discipline controls), CE marks per second,
drops, and the flow's throughput. Real: from the bottleneck's per-packet records;
simulated: from summary.json (``links[0].queue``, ``flows[0]``).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def scenario(discipline: str, capacity_mbps: float, delay_ms: float, seconds: float, kind: str, start_s: float) -> dict[str, Any]:
    """One ECN-capable flow of ``kind`` on a dumbbell under ``discipline``."""
    return {
        "name": f"ecn-{discipline}-{kind}",
        "duration": f"{seconds}s",
        "link": {
            "capacity": f"{capacity_mbps}Mbps",
            "delay": f"{delay_ms}ms",
            "queue": {"discipline": discipline, "limit": "1000pkt"},
        },
        "flows": [{"name": "f", "kind": kind, "ecn": "ect0"}],
        "measure": {"start": f"{start_s}s"},
    }


def simulated(doc: dict[str, Any], seed: int) -> dict[str, Any]:
    """The simulator's figures of ``doc`` with ``seed``."""
    import flowstate

    s = flowstate.run(doc, seed=seed).summary
    link = s["links"][0]
    q = link.get("queue") or {}
    w0, w1 = s["window_s"]
    soj = q.get("classic_sojourn_ms") or {}
    f = s["flows"][0]
    return {
        "sojourn_ms_p50": soj.get("p50"),
        "sojourn_ms_p95": soj.get("p95"),
        "marks_per_s": (q.get("aqm_marks", 0) + q.get("step_marks", 0)) / max(w1 - w0, 1e-9),
        "drops": q.get("aqm_drops", 0) + q.get("overlimit_drops", 0),
        "throughput_mbps": f["throughput_mbps"],
    }


def _from_records(rec: dict[str, list], keep: np.ndarray, window_s: float) -> dict[str, Any]:
    """Figures of the records selected by ``keep`` (data packets arriving in the window)."""
    served = np.array([d is not None for d in rec["model_departure_us"]], dtype=bool)
    soj = np.asarray(rec["queue_delay_us"], dtype=float)[keep & served] / 1e3
    marked = np.asarray(rec["ce_marked"], dtype=bool)
    size = np.asarray(rec["size"], dtype=float)
    return {
        "sojourn_ms_p50": float(np.percentile(soj, 50)) if soj.size else None,
        "sojourn_ms_p95": float(np.percentile(soj, 95)) if soj.size else None,
        "marks_per_s": float(marked[keep].sum() / window_s),
        "drops": int((keep & ~served).sum()),
        "throughput_mbps": float(size[keep & served].sum() * 8 / window_s / 1e6),
    }


def ip_vs_sim(*, discipline: str = "codel", capacity_mbps: float = 10, delay_ms: float = 20, seconds: float = 20,
              start_s: float = 2, seed: int = 1, prefix: str = "fsaqm") -> dict[str, Any]:
    """Kernel CUBIC with ECN through the IP-level bottleneck, and the simulator's
    ``tcp-cubic`` with ``ecn = "ect0"`` (needs root)."""
    from flowstate import _native
    from flowstate.browser import ecn_path

    doc = scenario(discipline, capacity_mbps, delay_ms, seconds, "tcp-cubic", start_s)
    text = _native.scenario_toml(doc)
    run = ecn_path.run(text, seconds=seconds, tcp_ecn=1, prefix=prefix, seed=seed)
    real = _from_records(run.records, run.segments(start_s), seconds - start_s)
    real["tcp"] = run.tcp.ecn_state()
    return {"path": "ip", "discipline": discipline, "seed": seed, "real": real, "sim": simulated(doc, seed)}


def testbed_vs_sim(*, discipline: str = "codel", capacity_mbps: float = 4, delay_ms: float = 20, seconds: float = 20,
                   start_s: float = 2, seed: int = 1, kind: str = "sctp") -> dict[str, Any]:
    """The testbed's ECN-capable ``kind`` flow over real UDP through the emulator, and
    the same flow simulated."""
    from flowstate.cli.testbed import testbed

    doc = scenario(discipline, capacity_mbps, delay_ms, seconds, kind, start_s)
    r = testbed(doc, seed=seed)
    rec = r.bottleneck_records["forward"]
    arrival = np.asarray(rec["arrival_us"], dtype=float) / 1e6
    ecn_capable = np.array([e != "not-ect" for e in rec["ecn"]], dtype=bool)
    keep = ecn_capable & (arrival >= start_s) & (arrival < seconds)
    real = _from_records(rec, keep, seconds - start_s)
    real["ce_marks_at_receiver"] = r.summary["flows"][0].get("ce_marks")
    real["ecn_responses"] = r.summary["flows"][0].get("ecn_responses")
    return {"path": "testbed", "discipline": discipline, "kind": kind, "seed": seed, "real": real,
            "sim": simulated(doc, seed)}
