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
    """One run: the forward bottleneck's counters and records of the TCP data
    segments, and the sender's TCP log (its ECN state at the end)."""

    counters: dict[str, int]
    # Per data segment (sender -> receiver, in arrival order): its wait in the queue
    # (the sojourn time the discipline sees), the codepoint it arrived with, whether
    # the link marked it CE, its arrival (s since the bottleneck's start), whether the
    # link served it.
    sojourn_ms: np.ndarray
    ecn: list[str]
    ce_marked: np.ndarray
    arrival_s: np.ndarray
    served: np.ndarray
    tcp: TcpLog
    seconds: float
    realtime: bool

    def summary(self, since_s: float = 0.0) -> dict[str, Any]:
        """Sojourn p50 / p95 (ms), segments, ECN-capable segments and marks per second
        over the segments arriving after ``since_s``, plus the TCP sender's ECN state."""
        keep = self.arrival_s >= since_s
        span = max(self.seconds - since_s, 1e-9)
        soj = self.sojourn_ms[keep & self.served]
        return {
            "segments": int(keep.sum()),
            "ecn_capable": int(sum(1 for e, k in zip(self.ecn, keep) if k and e != "not-ect")),
            "marks": int(self.ce_marked[keep].sum()),
            "marks_per_s": float(self.ce_marked[keep].sum() / span),
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
    rec = fwd["records"]
    data = np.array(
        [proto == 6 and port == PORT for proto, port in zip(rec["protocol"], rec["dst_port"])], dtype=bool
    )
    idx = np.flatnonzero(data)
    return EcnPathRun(
        counters=dict(fwd["counters"]),
        sojourn_ms=np.asarray(rec["queue_delay_us"], dtype=float)[idx] / 1e3,
        ecn=[rec["ecn"][i] for i in idx],
        ce_marked=np.asarray(rec["ce_marked"], dtype=bool)[idx],
        arrival_s=np.asarray(rec["arrival_us"], dtype=float)[idx] / 1e6,
        served=np.array([rec["model_departure_us"][i] is not None for i in idx], dtype=bool),
        tcp=log,
        seconds=seconds,
        realtime=bool(report["realtime"]),
    )
