"""A scenario's ``tcp-cubic`` / ``tcp-newreno`` flows as kernel TCP bulk transfers
between the sender and receiver namespaces (the papers' iperf flows).

Each flow is one connection: a sink in the receiver namespace that reads and counts,
and a source in the sender namespace that writes as fast as the socket takes from
``start`` to ``stop`` with the congestion control set per socket (TCP_CONGESTION:
``cubic`` / ``reno``). The source samples TCP_INFO every :data:`SAMPLE_S` for the
kernel's smoothed RTT and cwnd, and keeps the last sample's ECN state: whether ECN was
negotiated (RFC 3168 section 6.1.1; the namespaces' ``net.ipv4.tcp_ecn``), the
retransmissions and the segments delivered with a CE mark (``tcpi_delivered_ce``, the
sender's count of CE-marked segments echoed by ECE). Threads only; every socket is
closed by :meth:`KernelTcp.close`.
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from typing import Optional

from flowstate.browser.netns_socket import socket_in

KERNEL_CC = {"tcp-cubic": "cubic", "tcp-newreno": "reno"}
SAMPLE_S = 0.1
BLOCK = b"\0" * (1 << 16)
# struct tcp_info (linux/tcp.h): 8 one-byte fields (tcpi_options the 6th, byte 5), then
# u32s: tcpi_rtt byte 68, tcpi_snd_ssthresh 76, tcpi_snd_cwnd 80, tcpi_total_retrans 100;
# then u64s from byte 104 and, since Linux 4.19, tcpi_delivered_ce at byte 196.
_TCP_INFO_LEN = 232
_OPTIONS_AT, _RTT_AT, _SSTHRESH_AT, _CWND_AT, _RETRANS_AT, _DELIVERED_CE_AT = 5, 68, 76, 80, 100, 196
# tcpi_options bits (linux/tcp.h TCPI_OPT_ECN, TCPI_OPT_ECN_SEEN).
_OPT_ECN, _OPT_ECN_SEEN = 8, 16


@dataclass
class TcpLog:
    """What one connection measured; times are ``time.time()`` seconds."""

    rtt_ms: list[tuple[float, float]] = field(default_factory=list)
    cwnd: list[tuple[float, int]] = field(default_factory=list)
    received: list[tuple[float, int]] = field(default_factory=list)  # cumulative bytes
    error: Optional[str] = None
    # The last TCP_INFO sample's ECN and loss state (see the module docstring); None
    # before the first sample, or a field the kernel does not report.
    ecn: Optional[bool] = None
    ecn_seen: Optional[bool] = None
    total_retrans: Optional[int] = None
    delivered_ce: Optional[int] = None
    ssthresh: Optional[int] = None

    def ecn_state(self) -> dict:
        """The ECN and loss fields, for tcp.json."""
        return {
            k: getattr(self, k) for k in ("ecn", "ecn_seen", "total_retrans", "delivered_ce", "ssthresh")
        }


class KernelTcp:
    """One bulk connection from ``sender_ns`` to ``receiver_ip:port`` in ``receiver_ns``."""

    def __init__(self, *, kind: str, port: int, sender_ns: str, receiver_ns: str, receiver_ip: str) -> None:
        if kind not in KERNEL_CC:
            raise ValueError(f"kernel TCP: kind must be one of {sorted(KERNEL_CC)}, got {kind!r}")
        self.cc = KERNEL_CC[kind]
        self.port = port
        self.receiver_ip = receiver_ip
        self.log = TcpLog()
        self._stop = threading.Event()
        self._listener = socket_in(receiver_ns)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((receiver_ip, port))
        self._listener.listen(1)
        self._listener.settimeout(0.2)
        self._source = socket_in(sender_ns)
        self._source.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, self.cc.encode())
        self._threads: list[threading.Thread] = []
        self._sink_thread = threading.Thread(target=self._sink, name=f"tcp-sink-{port}", daemon=True)
        self._sink_thread.start()

    def start(self) -> None:
        """Connect and write until :meth:`stop`."""
        t = threading.Thread(target=self._send, name=f"tcp-source-{self.port}", daemon=True)
        self._threads.append(t)
        t.start()

    def stop(self) -> None:
        self._stop.set()

    def close(self) -> None:
        self._stop.set()
        for t in [self._sink_thread, *self._threads]:
            t.join(timeout=3)
        for s in (self._source, self._listener):
            try:
                s.close()
            except OSError:
                pass

    def _sink(self) -> None:
        total = 0
        conn = None
        try:
            while conn is None and not self._stop.is_set():
                try:
                    conn, _ = self._listener.accept()
                except socket.timeout:
                    continue
            if conn is None:
                return
            conn.settimeout(0.2)
            with conn:
                while True:
                    try:
                        data = conn.recv(1 << 16)
                    except socket.timeout:
                        if self._stop.is_set():
                            return
                        continue
                    if not data:
                        return
                    total += len(data)
                    now = time.time()
                    if not self.log.received or now - self.log.received[-1][0] >= SAMPLE_S:
                        self.log.received.append((now, total))
        except OSError as e:
            self.log.error = f"sink: {e}"
        finally:
            self.log.received.append((time.time(), total))

    def _send(self) -> None:
        s = self._source
        try:
            s.settimeout(5.0)
            s.connect((self.receiver_ip, self.port))
            s.settimeout(SAMPLE_S)
            next_sample = 0.0
            while not self._stop.is_set():
                try:
                    s.send(BLOCK)
                except socket.timeout:
                    pass
                now = time.time()
                if now >= next_sample:
                    self._sample(now)
                    next_sample = now + SAMPLE_S
            self._sample(time.time())
            s.shutdown(socket.SHUT_WR)
        except OSError as e:
            if not self._stop.is_set():
                self.log.error = f"source: {e}"

    def _sample(self, now: float) -> None:
        info = self._source.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_LEN)
        if len(info) >= _CWND_AT + 4:
            (rtt_us,) = struct.unpack_from("I", info, _RTT_AT)
            (cwnd,) = struct.unpack_from("I", info, _CWND_AT)
            self.log.rtt_ms.append((now, rtt_us / 1e3))
            self.log.cwnd.append((now, cwnd))
            options = info[_OPTIONS_AT]
            self.log.ecn = bool(options & _OPT_ECN)
            self.log.ecn_seen = bool(options & _OPT_ECN_SEEN)
            (self.log.ssthresh,) = struct.unpack_from("I", info, _SSTHRESH_AT)
        if len(info) >= _RETRANS_AT + 4:
            (self.log.total_retrans,) = struct.unpack_from("I", info, _RETRANS_AT)
        if len(info) >= _DELIVERED_CE_AT + 4:
            (self.log.delivered_ce,) = struct.unpack_from("I", info, _DELIVERED_CE_AT)
