#!/usr/bin/env python3
"""Run a scenario's media flows on the testbed against *kernel* TCP flows, through a
*kernel* tbf bottleneck: the papers' testbed set-up (Linux TCP CUBIC from iperf, a
tbf shaper, a fixed delay) with flowstate's own GCC / SCTP endpoints.

    sudo .venv/bin/python scripts/kernel_bottleneck.py SCENARIO.toml [--set KEY=VALUE ...]
        [--out DIR] [--seed N] [--duration S] [--prefix P] [--burst BYTES]

The path (needs root, iproute2 and /dev/net/tun; no netem needed):

    [P-snd] 10.79.0.1 (tun P-s) --tbf--> delay line (this script, user space) --> (tun P-r) 10.79.0.2 [P-rcv]
                                 <----------------- delay line <------------------

- The bottleneck is a kernel ``tbf`` qdisc on the sender namespace's TUN device:
  ``rate`` = the scenario's ``[link] capacity``, ``limit`` = its queue in bytes
  (``"30kB"``; ``"Npkt"`` counts 1500-byte packets; a queue in ms is converted at the
  capacity), ``burst`` = ``--burst`` (default 1600 bytes: one packet).
- The one-way delay ``[link] delay`` is added in both directions by a user-space
  delay line between the two TUN devices (this kernel has no netem). The reverse path
  is not shaped.
- The scenario's ``tcp-cubic`` / ``tcp-newreno`` flows run as kernel TCP (``cubic`` /
  ``reno``) bulk transfers from ``start`` to ``stop`` (Python sockets, one connection
  each); every other flow runs on the testbed (``flowstate testbed --netns``) with its
  sender in ``P-snd`` and its receiver in ``P-rcv``.

Writes into DIR the testbed's outputs (summary.json, timeseries.csv, pcaps,
testbed.json) and ``kernel_bottleneck.json``: per flow the throughput over the
scenario's measurement window (kernel TCP: bytes delivered to the sink), each flow's
share, the tbf's counters and the set-up. The testbed's time zero is taken as the
moment the run is launched; the kernel TCP flows start at their times after it
(within a few ms of the testbed's own start).

Limits: one run at a time per prefix; the delay line's timing is that of a Python
process (sub-millisecond on an idle machine); kernel TCP is the host's (its version,
HyStart, and TSO/GSO settings are those of this kernel, reported in the JSON).
"""

from __future__ import annotations

import argparse
import ctypes
import fcntl
import heapq
import json
import os
import platform
import select
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SENDER_IP = "10.79.0.1"
RECEIVER_IP = "10.79.0.2"
TCP_PORT_BASE = 7000
KERNEL_CC = {"tcp-cubic": "cubic", "tcp-newreno": "reno"}
TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
CLONE_NEWNET = 0x40000000


class Fail(Exception):
    """Bad input or a failed set-up step: printed as one line."""


# ---------------------------------------------------------------- units of the scenario


def seconds(value: Any, what: str) -> float:
    """``"25ms"``, ``"100s"`` or a number of seconds (flowstate.derived's parser)."""
    from flowstate.derived import DerivedError, parse_time

    try:
        return parse_time(value)
    except DerivedError as e:
        raise Fail(f"{what}: {e}") from None


def rate_bps(value: Any, what: str) -> float:
    """A constant rate such as ``"1Mbps"`` in bit/s (flowstate.derived's parser)."""
    from flowstate.derived import DerivedError, parse_rate_mbps

    try:
        return parse_rate_mbps(value) * 1e6
    except DerivedError as e:
        raise Fail(f"{what}: {e}") from None


def queue_bytes(value: Any, capacity_bps: float) -> int:
    text = str(value).strip()
    for suffix, scale in (("kB", 1000), ("MB", 1_000_000), ("B", 1), ("pkt", 1500)):
        if text.endswith(suffix):
            try:
                return int(float(text[: -len(suffix)]) * scale)
            except ValueError:
                break
    if text.endswith("ms") or text.endswith("s"):
        return int(seconds(text, "link.queue") * capacity_bps / 8)
    raise Fail(f"link.queue: expected \"30kB\", \"20pkt\" or \"240ms\", got {value!r}")


# ---------------------------------------------------------------- namespaces and the path


def sh(*cmd: str) -> str:
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise Fail(f"{' '.join(cmd)}: {p.stderr.strip() or p.stdout.strip()}")
    return p.stdout


def names(prefix: str) -> dict[str, str]:
    return {"snd": f"{prefix}-snd", "rcv": f"{prefix}-rcv", "stun": f"{prefix}-s", "rtun": f"{prefix}-r"}


def down(prefix: str) -> None:
    for ns in (names(prefix)["snd"], names(prefix)["rcv"]):
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def up(prefix: str, rate: float, limit: int, burst: int) -> None:
    n = names(prefix)
    down(prefix)
    for ns in (n["snd"], n["rcv"]):
        sh("ip", "netns", "add", ns)
        sh("ip", "-n", ns, "link", "set", "lo", "up")
    for ns, dev, ip, peer in ((n["snd"], n["stun"], SENDER_IP, RECEIVER_IP), (n["rcv"], n["rtun"], RECEIVER_IP, SENDER_IP)):
        sh("ip", "-n", ns, "tuntap", "add", "dev", dev, "mode", "tun")
        sh("ip", "-n", ns, "addr", "add", ip, "peer", peer, "dev", dev)
        sh("ip", "-n", ns, "link", "set", dev, "up")
    sh(
        "ip", "netns", "exec", n["snd"], "tc", "qdisc", "add", "dev", n["stun"], "root", "tbf",
        "rate", f"{int(rate)}bit", "burst", str(burst), "limit", str(limit),
    )


def tbf_stats(prefix: str) -> dict[str, Any]:
    n = names(prefix)
    out = sh("ip", "netns", "exec", n["snd"], "tc", "-s", "-j", "qdisc", "show", "dev", n["stun"])
    q = json.loads(out)[0]
    return {k: q.get(k) for k in ("kind", "bytes", "packets", "drops", "overlimits", "backlog", "qlen", "options")}


# ---------------------------------------------------------------- the delay line (child process)

_libc = ctypes.CDLL(None, use_errno=True)


def _setns(ns: str) -> None:
    fd = os.open(f"/run/netns/{ns}", os.O_RDONLY)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns {ns}")
    finally:
        os.close(fd)


def _open_tun(ns: str, dev: str) -> int:
    _setns(ns)
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", dev.encode(), IFF_TUN | IFF_NO_PI))
    os.set_blocking(fd, False)
    return fd


def delay_line(prefix: str, delay: float) -> None:
    """Carry IP packets between the two TUN devices, each `delay` seconds late, in
    order; until SIGTERM."""
    n = names(prefix)
    a = _open_tun(n["snd"], n["stun"])
    b = _open_tun(n["rcv"], n["rtun"])
    peer = {a: b, b: a}
    pending: list[tuple[float, int, int, bytes]] = []
    seq = 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print("ready", flush=True)
    while True:
        now = time.monotonic()
        while pending and pending[0][0] <= now:
            _, _, out, data = heapq.heappop(pending)
            try:
                os.write(out, data)
            except OSError:
                pass  # the device went away at the end of the run
        timeout = max(0.0, pending[0][0] - time.monotonic()) if pending else 0.5
        ready, _, _ = select.select([a, b], [], [], timeout)
        for fd in ready:
            while True:
                try:
                    data = os.read(fd, 65535)
                except BlockingIOError:
                    break
                seq += 1
                heapq.heappush(pending, (time.monotonic() + delay, seq, peer[fd], data))


# ---------------------------------------------------------------- kernel TCP (child processes)


def tcp_sink(port: int, until: float, out: str) -> None:
    """Accept one connection; log (monotonic time, bytes) per read until `until`."""
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((RECEIVER_IP, port))
    ls.listen(1)
    ls.settimeout(max(0.1, until - time.monotonic()))
    log: list[tuple[float, int]] = []
    try:
        conn, _ = ls.accept()
        conn.settimeout(0.2)
        while time.monotonic() < until:
            try:
                data = conn.recv(1 << 16)
            except socket.timeout:
                continue
            if not data:
                break
            log.append((time.monotonic(), len(data)))
    except socket.timeout:
        pass
    Path(out).write_text(json.dumps(log), encoding="utf-8")


def tcp_source(port: int, cc: str, start: float, stop: float) -> None:
    """Bulk-send from monotonic time `start` to `stop` with congestion control `cc`."""
    time.sleep(max(0.0, start - time.monotonic()))
    s = socket.socket()
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    s.settimeout(1.0)
    for _ in range(50):
        try:
            s.connect((RECEIVER_IP, port))
            break
        except (ConnectionRefusedError, socket.timeout):
            time.sleep(0.1)
    block = b"\0" * (1 << 16)
    while time.monotonic() < stop:
        try:
            s.send(block)
        except socket.timeout:
            continue
        except OSError:
            break
    s.close()


# ---------------------------------------------------------------- the run


def run(args: argparse.Namespace) -> dict[str, Any]:
    from flowstate.overrides import load_toml, with_overrides
    from flowstate.testbed_command import testbed

    scenario = load_toml(args.scenario)
    sets = {}
    for item in args.set or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise Fail(f"--set: expected KEY=VALUE, got '{item}'")
        try:
            sets[key] = json.loads(value)
        except json.JSONDecodeError:
            sets[key] = value
    scenario = with_overrides(scenario, sets)
    link = scenario.get("link", {})
    if "capacity" not in link:
        raise Fail("link.capacity: the kernel path needs a constant capacity (no capacity_schedule)")
    rate = rate_bps(link["capacity"], "link.capacity")
    delay = seconds(link.get("delay", 0), "link.delay")
    limit = queue_bytes(link.get("queue", "300ms"), rate)
    duration = args.duration or seconds(scenario["duration"], "duration")
    measure_from = seconds(scenario.get("measure", {}).get("start", 0), "measure.start")
    kernel = [f for f in scenario["flows"] if f.get("kind") in KERNEL_CC]
    media = [f for f in scenario["flows"] if f.get("kind") not in KERNEL_CC]
    if not media:
        raise Fail("the scenario has no flow for the testbed (only kernel TCP flows)")
    scenario["flows"] = media
    scenario["duration"] = f"{duration}s"

    n = names(args.prefix)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    up(args.prefix, rate, limit, args.burst)
    children: list[subprocess.Popen] = []
    me = [sys.executable, os.path.abspath(__file__)]
    try:
        line = subprocess.Popen(me + ["--delay-line", args.prefix, str(delay)], stdout=subprocess.PIPE, text=True)
        children.append(line)
        if line.stdout is None or line.stdout.readline().strip() != "ready":
            raise Fail("the delay line did not start")
        t0 = time.monotonic() + 1.0  # the children start within this second
        sinks = []
        for i, f in enumerate(kernel):
            start = t0 + seconds(f.get("start", 0), f"flows.{f['name']}.start")
            stop = t0 + min(seconds(f.get("stop", duration), f"flows.{f['name']}.stop"), duration)
            log = out / f"kernel-{f['name']}.json"
            port = TCP_PORT_BASE + i
            children.append(subprocess.Popen(
                ["ip", "netns", "exec", n["rcv"]] + me + ["--tcp-sink", str(port), str(t0 + duration), str(log)]))
            children.append(subprocess.Popen(
                ["ip", "netns", "exec", n["snd"]] + me
                + ["--tcp-source", str(port), KERNEL_CC[f["kind"]], str(start), str(stop)]))
            sinks.append((f, log))
        time.sleep(max(0.0, t0 - time.monotonic()))
        result = testbed(
            scenario, seed=args.seed, duration=duration, netns=((n["snd"], SENDER_IP), (n["rcv"], RECEIVER_IP))
        )
        tbf = tbf_stats(args.prefix)
        for c in children[1:]:
            c.wait(timeout=30)
    finally:
        for c in children:
            if c.poll() is None:
                c.terminate()
        for c in children:
            try:
                c.wait(timeout=5)
            except subprocess.TimeoutExpired:
                c.kill()
        down(args.prefix)
    result.write_all(out)
    window = duration - measure_from
    flows: dict[str, dict[str, Any]] = {}
    for f in result.summary["flows"]:
        flows[f["name"]] = {"kind": f["kind"], "where": "testbed", "throughput_mbps": f["throughput_mbps"]}
    for f, log in sinks:
        records = json.loads(log.read_text(encoding="utf-8")) if log.exists() else []
        got = sum(b for t, b in records if t0 + measure_from <= t < t0 + duration)
        flows[f["name"]] = {
            "kind": f["kind"],
            "where": f"kernel TCP ({KERNEL_CC[f['kind']]})",
            "throughput_mbps": got * 8 / window / 1e6,
        }
    total = sum(v["throughput_mbps"] or 0.0 for v in flows.values())
    for v in flows.values():
        v["share"] = (v["throughput_mbps"] or 0.0) / total if total > 0 else None
    report = {
        "scenario": scenario.get("name"),
        "set": sets,
        "seed": args.seed,
        "duration_s": duration,
        "measure_from_s": measure_from,
        "path": {"rate_bps": rate, "limit_bytes": limit, "burst_bytes": args.burst, "one_way_delay_s": delay},
        "kernel": platform.release(),
        "flows": flows,
        "utilization": total * 1e6 / rate,
        "tbf": tbf,
    }
    (out / "kernel_bottleneck.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return report


def main(argv: list[str]) -> int:
    if argv[:1] == ["--delay-line"]:
        delay_line(argv[1], float(argv[2]))
        return 0
    if argv[:1] == ["--tcp-sink"]:
        tcp_sink(int(argv[1]), float(argv[2]), argv[3])
        return 0
    if argv[:1] == ["--tcp-source"]:
        tcp_source(int(argv[1]), argv[2], float(argv[3]), float(argv[4]))
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("scenario", metavar="SCENARIO.toml")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="scenario override (as flowstate sweep)")
    p.add_argument("--out", default="out/kernel-bottleneck", metavar="DIR")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--duration", type=float, metavar="S", help="default: the scenario's")
    p.add_argument("--prefix", default="fskb", help="namespace / device prefix (at most 8 characters)")
    p.add_argument("--burst", type=int, default=1600, help="tbf bucket in bytes (default 1600)")
    args = p.parse_args(argv)
    try:
        if os.geteuid() != 0:
            raise Fail("needs root (network namespaces, tc, /dev/net/tun)")
        if not 1 <= len(args.prefix) <= 8:
            raise Fail(f"--prefix: 1 to 8 characters, got '{args.prefix}'")
        report = run(args)
    except Fail as e:
        print(f"kernel_bottleneck: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 - scenario errors from flowstate, OS errors
        print(f"kernel_bottleneck: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    for name, f in report["flows"].items():
        print(f"{name:>8} {f['where']:<20} {f['throughput_mbps']:.3f} Mbit/s  share {f['share']:.2f}")
    print(f"utilization {report['utilization']:.2f}; tbf drops {report['tbf'].get('drops')}; wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
