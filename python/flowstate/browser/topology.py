"""The path a real browser or kernel TCP runs over: three network namespaces.

::

    [P-snd] 10.81.1.2 --veth-- 10.81.1.1 [P-rtr] 10.81.2.1 --veth-- 10.81.2.2 [P-rcv]
                                    |           |
                        TUN P-fwd (forward)   TUN P-rev (reverse)

The router namespace forwards IP packets (``ip_forward``). Policy routing by input
interface sends everything arriving from the sender's veth into the forward TUN
device and everything from the receiver's veth into the reverse one; the IP-level
bottleneck (``flowstate._native.IpBottleneck``, crates/flowstate-emu/src/ip/) reads
them there, applies the scenario's link model and writes them back, and the main
routing table forwards them on. The shaper therefore sits in the router, never on the
sender's own device (a shaper there is met by the device's socket buffers and TCP's
small-queue limits, which push back before the shaper's queue fills).

``mode="tbf"`` replaces the emulator with a kernel ``tbf`` on the router's egress
towards the receiver (no delay: this kernel has no netem): the cross-check of the
emulator's rate accuracy.

Everything is removed on every exit path: :class:`Topology` is a context manager, an
``atexit`` hook covers an unhandled exception, and :func:`install_signal_handlers`
turns SIGTERM/SIGHUP into an exception so the same cleanup runs. A run killed with
SIGKILL leaves its namespaces; the next run with the same prefix removes them first.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
from dataclasses import dataclass
from typing import Optional

SENDER_IP = "10.81.1.2"
ROUTER_SENDER_SIDE_IP = "10.81.1.1"
ROUTER_RECEIVER_SIDE_IP = "10.81.2.1"
RECEIVER_IP = "10.81.2.2"
# Routing tables of the router's two policy rules.
FORWARD_TABLE = 101
REVERSE_TABLE = 102
DEFAULT_PREFIX = "fsb"


class TopologyError(Exception):
    """A set-up step failed or cannot run here: one line naming what is missing."""


@dataclass(frozen=True)
class Names:
    """Namespace and device names of one topology (interface names <= 15 bytes)."""

    prefix: str

    @property
    def sender(self) -> str:
        return f"{self.prefix}-snd"

    @property
    def router(self) -> str:
        return f"{self.prefix}-rtr"

    @property
    def receiver(self) -> str:
        return f"{self.prefix}-rcv"

    @property
    def namespaces(self) -> tuple[str, str, str]:
        return (self.sender, self.router, self.receiver)

    # veth pairs: sender <-> router, router <-> receiver.
    @property
    def sender_veth(self) -> str:
        return f"{self.prefix}-s0"

    @property
    def router_sender_veth(self) -> str:
        return f"{self.prefix}-s1"

    @property
    def router_receiver_veth(self) -> str:
        return f"{self.prefix}-r1"

    @property
    def receiver_veth(self) -> str:
        return f"{self.prefix}-r0"

    @property
    def forward_tun(self) -> str:
        return f"{self.prefix}-fwd"

    @property
    def reverse_tun(self) -> str:
        return f"{self.prefix}-rev"


def check_prefix(prefix: str) -> str:
    if not (1 <= len(prefix) <= 8 and prefix.replace("-", "").isalnum()):
        raise TopologyError(f"namespace prefix: 1-8 letters, digits or '-', got {prefix!r}")
    return prefix


def preflight() -> None:
    """Raise TopologyError unless this process can build the path: root, iproute2,
    /dev/net/tun."""
    if os.geteuid() != 0:
        raise TopologyError("needs root (network namespaces and TUN devices); run it with sudo")
    if shutil.which("ip") is None:
        raise TopologyError("needs iproute2 ('ip' not found)")
    if not os.path.exists("/dev/net/tun"):
        raise TopologyError("needs /dev/net/tun (the tun kernel module)")


def _run(*cmd: str) -> None:
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise TopologyError(f"{' '.join(cmd)}: {(p.stderr or p.stdout).strip()}")


def _sysctl(ns: str, key: str, value: str) -> None:
    _run("ip", "netns", "exec", ns, "sysctl", "-q", "-w", f"{key}={value}")


def remove(names: Names) -> None:
    """Delete the namespaces (and with them every device and route in them); quiet
    when they do not exist."""
    for ns in names.namespaces:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


class Topology:
    """Sender, router and receiver namespaces joined by veth pairs (see the module
    docstring). ``with Topology(prefix) as t:`` builds it and removes it on exit."""

    def __init__(self, prefix: str = DEFAULT_PREFIX, *, mode: str = "emulator") -> None:
        if mode not in ("emulator", "tbf"):
            raise TopologyError(f"topology mode: 'emulator' or 'tbf', got {mode!r}")
        self.names = Names(check_prefix(prefix))
        self.mode = mode
        self._up = False

    def __enter__(self) -> "Topology":
        self.up()
        return self

    def __exit__(self, *exc: object) -> None:
        self.down()

    def up(self) -> None:
        preflight()
        n = self.names
        remove(n)  # leftovers of a run that was killed
        atexit.register(self.down)
        self._up = True
        for ns in n.namespaces:
            _run("ip", "netns", "add", ns)
            _run("ip", "-n", ns, "link", "set", "lo", "up")
            # IPv4 only: link-local IPv6 candidates would only slow ICE down.
            _sysctl(ns, "net.ipv6.conf.all.disable_ipv6", "1")
            _sysctl(ns, "net.ipv6.conf.default.disable_ipv6", "1")
        for a, a_ns, b, b_ns in (
            (n.sender_veth, n.sender, n.router_sender_veth, n.router),
            (n.receiver_veth, n.receiver, n.router_receiver_veth, n.router),
        ):
            _run("ip", "link", "add", a, "netns", a_ns, "type", "veth", "peer", "name", b, "netns", b_ns)
        for ns, dev, addr in (
            (n.sender, n.sender_veth, SENDER_IP),
            (n.router, n.router_sender_veth, ROUTER_SENDER_SIDE_IP),
            (n.router, n.router_receiver_veth, ROUTER_RECEIVER_SIDE_IP),
            (n.receiver, n.receiver_veth, RECEIVER_IP),
        ):
            _run("ip", "-n", ns, "addr", "add", f"{addr}/24", "dev", dev)
            _run("ip", "-n", ns, "link", "set", dev, "up")
        _run("ip", "-n", n.sender, "route", "add", "default", "via", ROUTER_SENDER_SIDE_IP)
        _run("ip", "-n", n.receiver, "route", "add", "default", "via", ROUTER_RECEIVER_SIDE_IP)
        _sysctl(n.router, "net.ipv4.ip_forward", "1")
        # Packets written back into a TUN device arrive on an interface the reverse
        # path check would not expect; turn it off (new devices inherit "default").
        for scope in ("all", "default"):
            _sysctl(n.router, f"net.ipv4.conf.{scope}.rp_filter", "0")

    def route_through(self, forward_device: str, reverse_device: str) -> None:
        """Send every packet arriving from the sender into ``forward_device`` and every
        packet from the receiver into ``reverse_device`` (devices the IP bottleneck has
        just created in the router namespace)."""
        n = self.names
        for dev in (forward_device, reverse_device):
            _sysctl(n.router, f"net.ipv4.conf.{dev}.rp_filter", "0")
        for iif, dev, table in (
            (n.router_sender_veth, forward_device, FORWARD_TABLE),
            (n.router_receiver_veth, reverse_device, REVERSE_TABLE),
        ):
            _run("ip", "-n", n.router, "route", "add", "default", "dev", dev, "table", str(table))
            _run("ip", "-n", n.router, "rule", "add", "iif", iif, "lookup", str(table), "pref", str(table))

    def set_tcp_ecn(self, mode: int) -> None:
        """``net.ipv4.tcp_ecn`` in the sender and receiver namespaces (0: never, 1:
        request ECN on outgoing connections and accept it, 2: accept only, the kernel's
        default; RFC 3168 section 6.1.1). Each namespace has its own copy of the
        setting, so the host's stays as it is, and it goes with the namespaces."""
        if mode not in (0, 1, 2):
            raise TopologyError(f"net.ipv4.tcp_ecn: 0, 1 or 2, got {mode!r}")
        for ns in (self.names.sender, self.names.receiver):
            _sysctl(ns, "net.ipv4.tcp_ecn", str(mode))

    def add_tbf(self, rate_bps: float, limit_bytes: int, burst_bytes: int = 1600) -> None:
        """A kernel tbf on the router's egress towards the receiver (mode "tbf")."""
        n = self.names
        _run(
            "ip", "netns", "exec", n.router, "tc", "qdisc", "add", "dev", n.router_receiver_veth, "root", "tbf",
            "rate", f"{int(rate_bps)}bit", "burst", str(burst_bytes), "limit", str(limit_bytes),
        )

    def tbf_counters(self) -> dict:
        """The tbf's own counters (``tc -s -j``)."""
        import json

        n = self.names
        p = subprocess.run(
            ["ip", "netns", "exec", n.router, "tc", "-s", "-j", "qdisc", "show", "dev", n.router_receiver_veth],
            capture_output=True,
            text=True,
        )
        try:
            q = json.loads(p.stdout)[0]
        except (ValueError, IndexError):
            return {}
        return {k: q.get(k) for k in ("kind", "bytes", "packets", "drops", "overlimits", "backlog", "qlen")}

    def down(self) -> None:
        if self._up:
            remove(self.names)
            self._up = False
        atexit.unregister(self.down)


class Terminated(Exception):
    """SIGTERM or SIGHUP arrived: unwind so every clean-up runs."""


def install_signal_handlers() -> Optional[dict]:
    """Turn SIGTERM and SIGHUP into :class:`Terminated` (Ctrl-C already raises
    KeyboardInterrupt); returns the previous handlers for :func:`restore_signal_handlers`."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None

    def raise_terminated(signum: int, _frame: object) -> None:
        raise Terminated(f"stopped by signal {signal.Signals(signum).name}")

    previous = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        previous[sig] = signal.signal(sig, raise_terminated)
    return previous


def restore_signal_handlers(previous: Optional[dict]) -> None:
    for sig, handler in (previous or {}).items():
        signal.signal(sig, handler)
