"""A real run's summary and time series, in the shape ``flowstate run`` writes
(docs/SCENARIOS.md, "Outputs"), measured at the bottleneck itself.

Each packet the IP-level bottleneck saw is given to a flow (:class:`Classifier`):
RTP by its SSRC (the SSRC and the RTX SSRC getStats gives each video flow: RTX also
carries probing padding; an SSRC no flow names goes to the only video flow when there
is one), DTLS (a data
channel's SCTP, RFC 8261) to the data flows, TCP by the flow's server port; RTCP,
STUN and anything else is overhead: it counts towards utilization, not to a flow.

Per flow, over the scenario's measurement window and in 0.5 s bins:

- ``throughput_mbps``: bytes leaving the bottleneck (the simulator: bytes delivered
  by the link); ``send_rate_mbps``: bytes offered to it;
- ``queuing_delay_ms``: each packet's wait in the drop-tail queue (the model's own
  figure, as in the simulator);
- ``loss_ratio``, ``sent_packets``, ``lost_packets``: offered, and dropped at the
  bottleneck (tail drop or the link's random loss);
- ``rtt_ms``: a video flow's from getStats (remote-inbound-rtp roundTripTime, from
  RTCP); a TCP flow's from TCP_INFO (tcpi_rtt, the kernel's smoothed RTT); a data
  channel's is the *path* RTT of its packets (forward transit through the
  bottleneck plus the reverse propagation delay): Chromium exposes no SCTP RTT;
- ``goodput_mbps``: data channels: bytes the receiving page got (payload, getStats);
  TCP: bytes the sink read; video: null (the simulator has none either).

Two data channels share one DTLS association, so the bottleneck cannot tell their
packets apart: the DTLS bytes of each bin are split between them in proportion to
the bytes each channel's getStats reports sent in that bin.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from flowstate.browser.plan import FlowPlan

BIN_S = 0.5
OVERHEAD = "(overhead)"
# The data channels' packets, before they are split between the data flows.
DATA = "(data)"


@dataclass
class Samples:
    """Time-stamped samples (scenario seconds) from outside the bottleneck."""

    # flow -> [(t, rtt_ms)]
    rtt: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    # flow -> [(t, cumulative bytes)] of goodput (data: received payload; tcp: sink)
    delivered: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    # flow -> [(t, cumulative bytes sent by the application)] (data channels)
    app_sent: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    # flow -> [(t, target bit/s)] (video: GCC's target)
    target: dict[str, list[tuple[float, float]]] = field(default_factory=dict)


class Classifier:
    """Which flow a forward packet belongs to."""

    def __init__(self, flows: list[FlowPlan], ssrcs: dict[int, str], data_classes: tuple[str, ...] = ("dtls",)) -> None:
        self.ssrcs = dict(ssrcs)
        self.data_classes = data_classes
        videos = [f.name for f in flows if f.transport == "video"]
        self.only_video = videos[0] if len(videos) == 1 else None
        self.datas = [f.name for f in flows if f.transport == "data"]
        self.tcp_ports = {f.tcp_port: f.name for f in flows if f.transport == "tcp" and f.tcp_port}

    def __call__(self, cls: str, ssrc: Optional[int], dst_port: int) -> str:
        if cls == "rtp":
            name = self.ssrcs.get(ssrc) if ssrc is not None else None
            return name or self.only_video or OVERHEAD
        if cls in self.data_classes and self.datas:
            return DATA
        if cls == "tcp":
            return self.tcp_ports.get(dst_port, OVERHEAD)
        return OVERHEAD


def _jain(xs: np.ndarray) -> float:
    """Jain's index (sum x)^2 / (n sum x^2); 1 for an empty or all-zero set (metrics.rs jain_index)."""
    s2 = float((xs**2).sum()) if xs.size else 0.0
    return float(xs.sum() ** 2 / (xs.size * s2)) if s2 > 0 else 1.0


def _stats(values: np.ndarray) -> Optional[dict[str, float]]:
    if values.size == 0:
        return None
    return {
        "mean": float(values.mean()),
        "p50": float(np.percentile(values, 50)),
        "p95": float(np.percentile(values, 95)),
    }


def _in(times: np.ndarray, a: float, b: float) -> np.ndarray:
    return (times >= a) & (times < b)


def _rate_between(series: list[tuple[float, float]], a: float, b: float) -> Optional[float]:
    """Mean rate (Mbit/s) of a cumulative byte counter between ``a`` and ``b``,
    from its samples nearest inside the interval; None without two samples."""
    pts = [(t, v) for t, v in series if a <= t <= b]
    if len(pts) < 2 or pts[-1][0] <= pts[0][0]:
        return None
    return (pts[-1][1] - pts[0][1]) * 8 / (pts[-1][0] - pts[0][0]) / 1e6


def summarize(
    *,
    scenario: str,
    seed: int,
    duration_s: float,
    window: tuple[float, float],
    capacity_mbps: Any,
    reverse_delay_s: float,
    flows: list[FlowPlan],
    records: dict[str, list],
    offset_s: float,
    ssrcs: dict[int, str],
    samples: Samples,
    data_classes: tuple[str, ...] = ("dtls",),
) -> tuple[dict[str, Any], list[dict[str, Any]], list[str]]:
    """(summary, timeseries rows, each record's owner) of one real run. ``records``
    are the forward direction's columns from the bottleneck; ``offset_s`` turns their
    microseconds into scenario seconds; ``capacity_mbps(a, b)`` gives the link's mean
    capacity over [a, b); packets of ``data_classes`` belong to the data flows."""
    classify = Classifier(flows, ssrcs, data_classes)
    arrival = np.asarray(records["arrival_us"], dtype=float) / 1e6 + offset_s
    dep_raw = records["departure_us"]
    delivered = np.array([d is not None for d in dep_raw], dtype=bool)
    departure = np.array([d if d is not None else np.nan for d in dep_raw], dtype=float) / 1e6 + offset_s
    size = np.asarray(records["size"], dtype=float)
    qdelay_ms = np.asarray(records["queue_delay_us"], dtype=float) / 1e3
    ce_marked = np.asarray(records.get("ce_marked") or [False] * arrival.size, dtype=bool)
    owner = np.array(
        [classify(c, s, p) for c, s, p in zip(records["class"], records["ssrc"], records["dst_port"])],
        dtype=object,
    )
    w0, w1 = window
    names = [f.name for f in flows]
    # Per-bin weights of each data flow in the DTLS bytes (see the module docstring).
    n_bins = max(1, int(math.ceil(duration_s / BIN_S)))
    data_weights = _data_weights(classify.datas, samples, n_bins)

    def owned(name: str) -> tuple[np.ndarray, np.ndarray]:
        """(mask of packets, weight per packet) of flow ``name``."""
        f = next(f for f in flows if f.name == name)
        if f.transport == "data":
            mask = owner == DATA
            bins = np.clip((arrival[mask] // BIN_S).astype(int), 0, n_bins - 1)
            weight = np.zeros(arrival.size)
            weight[mask] = data_weights[name][bins]
            return mask, weight
        mask = owner == name
        return mask, mask.astype(float)

    flow_rows = []
    window_len = max(w1 - w0, 1e-9)
    owned_by = {n: owned(n) for n in names}
    for f in flows:
        mask, weight = owned_by[f.name]
        sent_w = _in(arrival, w0, w1) & mask
        recv_w = delivered & _in(departure, w0, w1) & mask
        sent_pkts = float(weight[sent_w].sum())
        lost_pkts = float(weight[sent_w & ~delivered].sum())
        if f.transport == "data":
            path_rtt = (departure[recv_w] - arrival[recv_w] + reverse_delay_s) * 1e3
            rtt = _stats(path_rtt)
        else:
            rtt = _stats(np.array([v for t, v in samples.rtt.get(f.name, []) if w0 <= t < w1]))
        goodput = _rate_between(samples.delivered.get(f.name, []), w0, w1) if f.transport != "video" else None
        flow_rows.append(
            {
                "name": f.name,
                "kind": f.kind,
                "priority": f.priority,
                "throughput_mbps": float((size[recv_w] * weight[recv_w]).sum() * 8 / window_len / 1e6),
                "send_rate_mbps": float((size[sent_w] * weight[sent_w]).sum() * 8 / window_len / 1e6),
                "goodput_mbps": goodput,
                "rtt_ms": rtt,
                "queuing_delay_ms": _stats(qdelay_ms[recv_w]),
                "loss_ratio": lost_pkts / sent_pkts if sent_pkts > 0 else 0.0,
                "sent_packets": int(round(sent_pkts)),
                "lost_packets": int(round(lost_pkts)),
            }
        )
    total = sum(r["throughput_mbps"] for r in flow_rows)
    total_prio = sum(f.priority for f in flows)
    for r, f in zip(flow_rows, flows):
        r["share"] = r["throughput_mbps"] / total if total > 0 else 0.0
        r["priority_share"] = f.priority / total_prio if total_prio > 0 else 0.0
        r["n_dd"] = None
        if f.ecn != "off":
            # As the simulator's summary: the flow's data packets delivered CE-marked
            # (here: marked by the bottleneck, whole run). No `ecn_responses`: a real
            # sender's reductions are not seen here (kernel TCP's ECN state is in
            # tcp.json).
            mask, weight = owned_by[f.name]
            r["ce_marks"] = int(round(float(weight[mask & delivered & ce_marked].sum())))
    all_w = _in(arrival, w0, w1)
    fwd_recv = delivered & _in(departure, w0, w1)
    if hasattr(capacity_mbps, "prepare"):
        capacity_mbps.prepare([b * BIN_S for b in range(n_bins + 1)])
    cap_bits = capacity_mbps(w0, w1) * 1e6 * (w1 - w0)
    xs = np.array([r["throughput_mbps"] for r in flow_rows])
    jain = _jain(xs)
    # metrics.rs weighted_jain_index: Jain's index of throughput / priority_share.
    shares = np.array([r["priority_share"] for r in flow_rows])
    weighted_jain = _jain(xs[shares > 0] / shares[shares > 0]) if xs.size else 1.0
    summary = {
        "scenario": scenario,
        "seed": seed,
        "duration_s": duration_s,
        "window_s": [w0, w1],
        "flows": flow_rows,
        "aggregate": {
            "utilization": float(size[fwd_recv].sum() * 8 / cap_bits) if cap_bits > 0 else 0.0,
            "jain_index": jain,
            "weighted_jain_index": weighted_jain,
            "throughput_mbps": float(xs.sum()),
            "loss_ratio": float((all_w & ~delivered).sum() / all_w.sum()) if all_w.sum() else 0.0,
            "queuing_delay_ms": float(qdelay_ms[fwd_recv].mean()) if fwd_recv.any() else None,
        },
        "events": int(arrival.size),
    }
    rows = _timeseries(
        flows, owned_by, arrival, departure, delivered, size, qdelay_ms, samples, n_bins, capacity_mbps, seed, reverse_delay_s
    )
    return summary, rows, [str(o) for o in owner]


def _data_weights(datas: list[str], samples: Samples, n_bins: int) -> dict[str, np.ndarray]:
    """Per bin, each data flow's part of the DTLS bytes: its application bytes sent
    in the bin over all data flows' (equal parts in a bin where none reports)."""
    if not datas:
        return {}
    sent = np.zeros((len(datas), n_bins))
    for i, name in enumerate(datas):
        pts = samples.app_sent.get(name, [])
        for (t0, v0), (t1, v1) in zip(pts, pts[1:]):
            b = int(t1 // BIN_S)
            if 0 <= b < n_bins and v1 > v0:
                sent[i, b] += v1 - v0
    totals = sent.sum(axis=0)
    weights = np.where(totals > 0, sent / np.where(totals > 0, totals, 1), 1.0 / len(datas))
    return {name: weights[i] for i, name in enumerate(datas)}


def _timeseries(
    flows, owned_by, arrival, departure, delivered, size, qdelay_ms, samples, n_bins, capacity_mbps, seed, reverse_delay_s
):  # noqa: ANN001 - the arrays of summarize()
    rows = []
    for b in range(n_bins):
        t0, t1 = b * BIN_S, (b + 1) * BIN_S
        for f in flows:
            mask, weight = owned_by[f.name]
            sent = mask & _in(arrival, t0, t1)
            recv = mask & delivered & _in(departure, t0, t1)
            rtts = [v for t, v in samples.rtt.get(f.name, []) if t0 <= t < t1]
            if f.transport == "data":
                rtts = list((departure[recv] - arrival[recv] + reverse_delay_s) * 1e3)
            targets = [v for t, v in samples.target.get(f.name, []) if t0 <= t < t1]
            goodput = _rate_between(samples.delivered.get(f.name, []), t0, t1)
            rows.append(
                {
                    "run": 0,
                    "seed": seed,
                    "time_s": t0,
                    "flow": f.name,
                    "send_rate_mbps": float((size[sent] * weight[sent]).sum() * 8 / BIN_S / 1e6),
                    "throughput_mbps": float((size[recv] * weight[recv]).sum() * 8 / BIN_S / 1e6),
                    "goodput_mbps": goodput,
                    "queuing_delay_ms": float(qdelay_ms[recv].mean()) if recv.any() else None,
                    "rtt_ms": float(np.mean(rtts)) if len(rtts) else None,
                    "sent_packets": int(round(weight[sent].sum())),
                    "lost_packets": int(round(weight[sent & ~delivered].sum())),
                    "capacity_mbps": capacity_mbps(t0, t1),
                    "target_mbps": float(np.mean(targets)) / 1e6 if targets else None,
                }
            )
    return rows
