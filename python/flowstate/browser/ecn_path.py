"""Kernel TCP with ECN through the IP-level bottleneck under a marking queue
discipline: CE marks from the link model reach a real TCP, which reacts
(docs/BROWSER.md, "ECN on the real path").

:func:`run` builds the three namespaces, sets ``net.ipv4.tcp_ecn`` in the sender and
receiver namespaces (each namespace has its own copy: the host's setting is never
touched, and the namespaces' go with them), starts the IP-level bottleneck with the
scenario's ``[link]`` (its ``queue`` table names the discipline, e.g. ``{ discipline =
"codel" }``), runs one kernel bulk connection for ``seconds`` and returns what the
bottleneck and the TCP sender saw. Every resource is released on every exit path.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from flowstate import _native
from flowstate.browser.kernel_tcp import KernelTcp, TcpLog
from flowstate.browser.topology import RECEIVER_IP, Topology

PORT = 7000


@dataclass
class EcnPathRun:
    """One run: the forward bottleneck's counters and per-packet records (the
    binding's columns, every packet in arrival order), and the sender's TCP log (its
    ECN state at the end)."""

    counters: dict[str, int]
    records: dict[str, list]
    tcp: TcpLog
    seconds: float
    realtime: bool

    def segments(self, since_s: float) -> np.ndarray:
        """Mask of the TCP data direction's packets (to the sink's port) arriving at or
        after ``since_s``."""
        rec = self.records
        data = np.array([p == 6 and d == PORT for p, d in zip(rec["protocol"], rec["dst_port"])], dtype=bool)
        return data & (np.asarray(rec["arrival_us"], dtype=float) / 1e6 >= since_s)

    def summary(self, since_s: float = 0.0) -> dict[str, Any]:
        """Over the sender's segments arriving after ``since_s``: how many, how many
        ECN-capable, CE marks (and per second), the sojourn time (p50 / p95, ms, of the
        segments the link served: the wait the discipline sees); plus the TCP sender's
        ECN state and the bottleneck's counters."""
        rec = self.records
        keep = self.segments(since_s)
        served = np.array([d is not None for d in rec["model_departure_us"]], dtype=bool)
        soj = np.asarray(rec["queue_delay_us"], dtype=float)[keep & served] / 1e3
        marks = int(np.asarray(rec["ce_marked"], dtype=bool)[keep].sum())
        span = max(self.seconds - since_s, 1e-9)
        return {
            "segments": int(keep.sum()),
            "ecn_capable": int(sum(1 for e, k in zip(rec["ecn"], keep) if k and e != "not-ect")),
            "marks": marks,
            "marks_per_s": marks / span,
            "sojourn_ms_p50": float(np.percentile(soj, 50)) if soj.size else None,
            "sojourn_ms_p95": float(np.percentile(soj, 95)) if soj.size else None,
            "tcp": self.tcp.ecn_state(),
            "counters": self.counters,
            "realtime": self.realtime,
        }


def run(
    scenario: str,
    *,
    seconds: float,
    tcp_ecn: int = 1,
    kind: str = "tcp-cubic",
    prefix: str = "fsecn",
    seed: int = 1,
) -> EcnPathRun:
    """One kernel ``kind`` connection for ``seconds`` through the scenario's links with
    ``net.ipv4.tcp_ecn = tcp_ecn`` on both ends (needs root; see the module docstring)."""
    with Topology(prefix) as t:
        n = t.names
        t.set_tcp_ecn(tcp_ecn)
        emu = _native.IpBottleneck(
            scenario,
            "ecn-path",
            seed=seed,
            netns=n.router,
            forward_device=n.forward_tun,
            reverse_device=n.reverse_tun,
            snap=0,
        )
        report = None
        try:
            t.route_through(n.forward_tun, n.reverse_tun)
            tcp = KernelTcp(kind=kind, port=PORT, sender_ns=n.sender, receiver_ns=n.receiver, receiver_ip=RECEIVER_IP)
            try:
                tcp.start()
                time.sleep(seconds)
                tcp.stop()
            finally:
                tcp.close()
        finally:
            report = emu.stop()
    return _from_report(report, tcp.log, seconds)


def _from_report(report: dict, log: TcpLog, seconds: float) -> EcnPathRun:
    fwd = report["forward"]
    return EcnPathRun(
        counters=dict(fwd["counters"]),
        records=fwd["records"],
        tcp=log,
        seconds=seconds,
        realtime=bool(report["realtime"]),
    )
