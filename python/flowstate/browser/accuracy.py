"""How exactly the IP-level bottleneck does what its model says, measured with UDP
through the real path (docs/BENCHMARKS.md, "IP-level bottleneck accuracy").

A constant-bit-rate UDP sender in the sender namespace offers ``load`` x the capacity
(1200-byte payloads, each stamped with ``time.time_ns()``, one clock for every
namespace); a receiver in the receiver namespace takes each arrival's kernel
timestamp (SO_TIMESTAMPNS). Reported:

- ``rate_error``: the IP bytes the emulator wrote out while its queue stayed
  backlogged, over that time, against the configured capacity (relative);
  ``rate_error_end_to_end``: the same from the receiver's arrivals (also moved by
  the Python load generator's own pauses, which let the queue run empty);
- ``timing_error_us``: p50 / p99 of the emulator's own lateness, the time it wrote a
  packet out minus the time its model said the packet leaves;
- ``excess_delay_us``: p50 / p99 of each packet's measured one-way delay minus the
  model's (arrival at the bottleneck to the model's departure): what the host adds
  (sockets, veth, forwarding, the TUN read);
- ``queue_ms``: the one-way delay's median in the saturated part minus the link's
  propagation delay: the standing queue the drop-tail limit allows.

``mode="tbf"`` sends the same load through a kernel ``tbf`` on the router's egress
instead (no propagation delay), for the cross-check of rate and queue.
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from typing import Any

import numpy as np

from flowstate import _native
from flowstate.browser.netns_socket import socket_in
from flowstate.browser.topology import RECEIVER_IP, Topology

PAYLOAD = 1200
IP_UDP_HEADER = 28
PORT = 9100
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
# Packets sent per pacing tick (a Python sender cannot wake every 150 us).
TICK_S = 0.002


def _scenario(capacity_mbps: float, delay_ms: float, queue_ms: float) -> str:
    return f"""
name = "accuracy"
duration = "600s"
[link]
capacity = "{capacity_mbps}Mbps"
delay = "{delay_ms}ms"
queue = "{queue_ms}ms"
[[flows]]
name = "x"
kind = "cbr"
overrides = {{ rate = "1Mbps" }}
"""


def _sender(sock: socket.socket, rate_bps: float, seconds: float) -> int:
    per_tick = rate_bps * TICK_S / 8 / (PAYLOAD + IP_UDP_HEADER)
    credit, sent, seq = 0.0, 0, 0
    pad = b"\0" * (PAYLOAD - 12)
    start = time.monotonic()
    next_tick = start
    while True:
        now = time.monotonic()
        if now - start >= seconds:
            return sent
        if now < next_tick:
            time.sleep(next_tick - now)
            continue
        next_tick += TICK_S
        credit += per_tick
        while credit >= 1:
            credit -= 1
            sock.sendto(struct.pack("!IQ", seq, time.time_ns()) + pad, (RECEIVER_IP, PORT))
            seq += 1
            sent += 1


def _receiver(sock: socket.socket, stop: threading.Event, log: list) -> None:
    """Log (seq, sent ns, received ns) with the kernel's receive timestamp
    (SO_TIMESTAMPNS), so this thread's own scheduling does not count."""
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    sock.settimeout(0.1)
    while not stop.is_set():
        try:
            data, anc, _, _ = sock.recvmsg(2048, 64)
        except socket.timeout:
            continue
        now = time.time_ns()
        for level, kind, value in anc:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(value) >= 16:
                sec, nsec = struct.unpack_from("qq", value)
                now = sec * 1_000_000_000 + nsec
        seq, sent = struct.unpack_from("!IQ", data)
        log.append((seq, sent, now))


def measure(
    capacity_mbps: float,
    *,
    seconds: float = 10.0,
    delay_ms: float = 20.0,
    queue_ms: float = 100.0,
    load: float = 1.5,
    mode: str = "emulator",
    prefix: str = "fsacc",
) -> dict[str, Any]:
    """One accuracy run (needs root); see the module docstring."""
    capacity = capacity_mbps * 1e6
    with Topology(prefix, mode=mode) as t:
        n = t.names
        emu = None
        if mode == "emulator":
            emu = _native.IpBottleneck(
                _scenario(capacity_mbps, delay_ms, queue_ms),
                "accuracy",
                seed=1,
                netns=n.router,
                forward_device=n.forward_tun,
                reverse_device=n.reverse_tun,
                snap=0,
            )
            t.route_through(n.forward_tun, n.reverse_tun)
        else:
            delay_ms = 0.0
            t.add_tbf(capacity, int(capacity * queue_ms / 1e3 / 8))
        rx = socket_in(n.receiver, socket.SOCK_DGRAM)
        rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        rx.bind((RECEIVER_IP, PORT))
        tx = socket_in(n.sender, socket.SOCK_DGRAM)
        tx.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 << 20)
        log: list[tuple[int, int, int]] = []
        stop = threading.Event()
        reader = threading.Thread(target=_receiver, args=(rx, stop, log), daemon=True)
        reader.start()
        sent = _sender(tx, capacity * load, seconds)
        time.sleep(delay_ms / 1e3 + queue_ms / 1e3 + 0.2)
        stop.set()
        reader.join()
        tx.close()
        rx.close()
        report = emu.stop() if emu is not None else None
        tbf = t.tbf_counters() if mode == "tbf" else None
    return _figures(capacity, seconds, delay_ms, log, sent, report, tbf, mode)


def _figures(capacity, seconds, delay_ms, log, sent, report, tbf, mode) -> dict[str, Any]:  # noqa: ANN001
    arr = np.array(log, dtype=np.int64) if log else np.zeros((0, 3), dtype=np.int64)
    owd_ms = (arr[:, 2] - arr[:, 1]) / 1e6
    recv_s = (arr[:, 2] - arr[:, 2].min()) / 1e9 if arr.size else np.zeros(0)
    # Saturated part: skip the first second (the queue filling) and the tail.
    steady = (recv_s >= 1.0) & (recv_s <= seconds - 0.5)
    span = recv_s[steady].max() - recv_s[steady].min() if steady.sum() > 1 else 0.0
    delivered_bps = (steady.sum() - 1) * (PAYLOAD + IP_UDP_HEADER) * 8 / span if span > 0 else 0.0
    out: dict[str, Any] = {
        "mode": mode,
        "capacity_mbps": capacity / 1e6,
        "seconds": seconds,
        "sent": sent,
        "received": int(arr.shape[0]),
        "delivered_mbps": delivered_bps / 1e6,
        "rate_error": delivered_bps / capacity - 1 if mode == "tbf" else None,
        "rate_error_end_to_end": delivered_bps / capacity - 1,
        "queue_ms": float(np.median(owd_ms[steady]) - delay_ms) if steady.any() else None,
        "owd_ms_p50": float(np.median(owd_ms)) if owd_ms.size else None,
    }
    if report is not None:
        rec = report["forward"]["records"]
        dep = np.array([d if d is not None else -1 for d in rec["departure_us"]], dtype=np.int64)
        model = np.array([d if d is not None else -1 for d in rec["model_departure_us"]], dtype=np.int64)
        ok = (dep >= 0) & (model >= 0)
        late = dep[ok] - model[ok]
        out["timing_error_us"] = {"p50": float(np.percentile(late, 50)), "p99": float(np.percentile(late, 99))}
        # The rate the emulator wrote packets out at while its queue was never empty
        # (every packet waited): independent of the load generator's hiccups.
        size = np.asarray(rec["size"], dtype=float)
        waited = np.asarray(rec["queue_delay_us"]) > 0
        t_dep = dep / 1e6
        in_steady = ok & waited & (t_dep >= 1.0) & (t_dep <= seconds - 0.5)
        if in_steady.sum() > 2:
            idx = np.flatnonzero(in_steady)
            span_s = t_dep[idx[-1]] - t_dep[idx[0]]
            emu_bps = size[idx[1:]].sum() * 8 / span_s if span_s > 0 else 0.0
            out["emulator_mbps"] = emu_bps / 1e6
            out["rate_error"] = emu_bps / capacity - 1
        out["realtime"] = report["realtime"]
        out["queue_drops"] = report["forward"]["counters"]["queue_drops"]
        # Excess one-way delay: measured minus the model's, for the packets of the
        # flow (the k-th delivered UDP packet of the records is the k-th received).
        # (By port: the payload's first byte, the sequence number's, would make
        # RFC 7983 call many of them STUN.)
        udp = np.array([proto == 17 and p == PORT for proto, p in zip(rec["protocol"], rec["dst_port"])]) & ok
        model_owd_us = (model[udp] - np.asarray(rec["arrival_us"], dtype=np.int64)[udp]).astype(float)
        by_seq = arr[np.argsort(arr[:, 0])] if arr.size else arr
        m = min(model_owd_us.size, by_seq.shape[0])
        if m:
            measured_us = (by_seq[:m, 2] - by_seq[:m, 1]) / 1e3
            excess = measured_us - model_owd_us[:m]
            out["excess_delay_us"] = {"p50": float(np.percentile(excess, 50)), "p99": float(np.percentile(excess, 99))}
    if tbf is not None:
        out["tbf"] = tbf
    return out
