"""One real run of a scenario: namespaces, the IP-level bottleneck, kernel TCP flows
and two Chromium browsers (or the testbed's own endpoints), driven on the scenario's
clock, measured at the bottleneck, and everything torn down on every exit path.

:func:`run_real` is the entry point (``flowstate browser`` calls it once per run).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from flowstate import _native
from flowstate.browser.ecn_counters import add_ecn
from flowstate.browser.kernel_tcp import KernelTcp
from flowstate.browser.measure import Samples, summarize
from flowstate.browser.plan import STACKS, Plan
from flowstate.browser.video_quality import add_video_quality, frames_with_flows, write_frames
from flowstate.output_files import (
    BROWSER_FILE,
    FRAMES_FILE,
    GETSTATS_FILE,
    TCP_LOG_FILE,
    bottleneck_pcap,
    bottleneck_records,
    rtc_event_log,
)
from flowstate.browser.topology import (
    RECEIVER_IP,
    SENDER_IP,
    Topology,
    install_signal_handlers,
    restore_signal_handlers,
)

# How often the driver fetches getStats samples from the page during a run (each
# fetch is one Playwright round trip; the page samples every STATS_INTERVAL_S).
FETCH_EVERY_S = 5.0
# Both pages sample getStats this often: 2.5 samples per 0.5 s bin, so a freeze that
# Chromium counts (inbound-rtp freezeCount) lands in its bin or the next
# (docs/BROWSER.md, "Frames and freezes").
STATS_INTERVAL_S = 0.2
# Extra time after the last scenario second for the last samples to arrive.
TAIL_S = 0.3


@dataclass
class RealRun:
    """What one run produced: the summary and time series in ``flowstate run``'s shape,
    and the raw material behind them."""

    summary: dict[str, Any]
    series: list[dict[str, Any]]
    bottleneck: dict[str, Any]
    getstats: list[dict[str, Any]] = field(default_factory=list)
    tcp: dict[str, Any] = field(default_factory=dict)
    setup: dict[str, Any] = field(default_factory=dict)
    interrupted: Optional[str] = None
    #: Per browser role, its RTC event logs (one per peer connection), when asked for.
    event_logs: dict[str, list[bytes]] = field(default_factory=dict)
    #: The receiver page's render callbacks, one per frame, with their flow (frames.csv).
    frames: list[dict[str, Any]] = field(default_factory=list)

    @property
    def not_engaged(self) -> list[str]:
        """The SCReAM v2 flows that never showed ECT(1) in this run: Chromium's call
        stayed on goog_cc (browser.json ``scream_v2_engaged``)."""
        return [name for name, ok in (self.setup.get("scream_v2_engaged") or {}).items() if not ok]

    def raw(self) -> dict[str, Any]:
        """The run as :class:`flowstate.simulation.RunResult` takes it."""
        columns: dict[str, list[Any]] = {}
        for row in self.series:
            for k, v in row.items():
                if k not in ("run", "seed"):
                    columns.setdefault(k, []).append(v)
        return {
            "seed": self.summary["seed"],
            "summary_json": json.dumps(self.summary),
            "series": columns,
            "trace_hash": None,
        }

    def write_extras(self, folder: Path) -> list[Path]:
        """The bottleneck's records (CSV) and captures, getStats samples, TCP logs,
        the set-up (browser.json) and the browsers' RTC event logs into ``folder``."""
        folder.mkdir(parents=True, exist_ok=True)
        paths = []
        for direction in ("forward", "reverse"):
            d = self.bottleneck[direction]
            pcap = folder / bottleneck_pcap(direction)
            pcap.write_bytes(d["capture"])
            csv = folder / bottleneck_records(direction)
            _write_records(csv, d["records"], d.get("flow"))
            paths += [pcap, csv]
        for role, logs in self.event_logs.items():
            for k, log in enumerate(logs, start=1):
                path = folder / rtc_event_log(role, k)
                path.write_bytes(log)
                paths.append(path)
        extra = {
            GETSTATS_FILE: self.getstats,
            BROWSER_FILE: {**self.setup, "interrupted": self.interrupted},
        }
        if self.tcp:
            extra[TCP_LOG_FILE] = self.tcp
        for name, doc in extra.items():
            (folder / name).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
            paths.append(folder / name)
        if self.frames:
            write_frames(folder / FRAMES_FILE, self.frames)
            paths.append(folder / FRAMES_FILE)
        return paths


def _write_records(path: Path, cols: dict[str, list], flows: Optional[list[str]]) -> None:
    import csv

    names = list(cols)
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(names + (["flow"] if flows is not None else []))
        for i in range(len(cols[names[0]]) if names else 0):
            row = ["" if cols[n][i] is None else cols[n][i] for n in names]
            w.writerow(row + ([flows[i]] if flows is not None else []))


def chromium_version(chromium: str) -> str:
    try:
        p = subprocess.run([chromium, "--version"], capture_output=True, text=True, timeout=20)
        return p.stdout.strip() or p.stderr.strip()
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"unknown ({e})"


def run_real(
    plan: Plan,
    text: str,
    file: str,
    *,
    seed: int,
    stack: str = "chromium",
    prefix: str = "fsb",
    chromium: str = "/usr/bin/chromium",
    workdir: Optional[Path] = None,
    say: Callable[[str], None] = lambda s: print(s, file=sys.stderr, flush=True),
    event_log: bool = False,
) -> RealRun:
    """Run ``plan`` (made from the scenario ``text``) once in real time. With
    ``event_log`` (Chromium only) each browser's RTC event log is kept
    (`RealRun.event_logs`)."""
    if stack not in STACKS:
        raise ValueError(f"--stack: one of {', '.join(STACKS)}, got {stack!r}")
    own_tmp = workdir is None
    work = Path(tempfile.mkdtemp(prefix="flowstate-browser-")) if own_tmp else workdir
    assert work is not None
    try:
        return _run(
            plan, text, file, seed=seed, stack=stack, prefix=prefix, chromium=chromium, work=work, say=say,
            event_log=event_log,
        )
    finally:
        if own_tmp:
            shutil.rmtree(work, ignore_errors=True)


def _run(plan, text, file, *, seed, stack, prefix, chromium, work, say, event_log=False) -> RealRun:  # noqa: ANN001, C901
    samples = Samples()
    getstats: list[dict[str, Any]] = []
    frames: list[dict[str, Any]] = []
    ssrcs: dict[int, str] = {}
    interrupted: Optional[str] = None
    setup: dict[str, Any] = {
        "stack": stack,
        "kernel": platform.release(),
        "ignored_fields": plan.ignored,
        "coupling": plan.coupling,
        "field_trials": plan.force_fieldtrials if stack == "chromium" else None,
        "seed": seed,
        # The machine's 1-, 5- and 15-minute load averages as the run starts and ends: a
        # loaded machine distorts a real-time run (docs/BROWSER.md).
        "loadavg_start": list(os.getloadavg()),
    }
    with ExitStack() as stack_:
        stack_.callback(restore_signal_handlers, install_signal_handlers())
        topo = stack_.enter_context(Topology(prefix))
        n = topo.names
        if plan.tcp_ecn is not None:
            # The namespaces' own setting: the host's stays untouched.
            topo.set_tcp_ecn(plan.tcp_ecn)
        setup["tcp_ecn"] = plan.tcp_ecn
        tcps: dict[str, KernelTcp] = {}
        for f in plan.tcps:
            tcps[f.name] = KernelTcp(
                kind=f.kind, port=f.tcp_port, sender_ns=n.sender, receiver_ns=n.receiver, receiver_ip=RECEIVER_IP
            )
            stack_.callback(tcps[f.name].close)
        # The call is set up (ICE, DTLS, SCTP) over the router's plain forwarding; the
        # bottleneck starts only then, so that its clock (capacity schedules, traces,
        # records) and the scenario's start at the same moment: t0.
        media = _start_media(plan, stack, stack_, n, chromium, work, text, file, seed, setup, say, event_log)
        emu = _native.IpBottleneck(
            text, file, seed=seed, netns=n.router, forward_device=n.forward_tun, reverse_device=n.reverse_tun
        )
        emu_report: dict[str, Any] = {}

        def stop_emu() -> None:
            if not emu_report:
                emu_report.update(emu.stop())

        stack_.callback(stop_emu)
        topo.route_through(n.forward_tun, n.reverse_tun)
        t0 = emu.start_unix_s
        setup["routed_after_s"] = time.time() - t0
        media.begin()
        say(f"flowstate browser: running {plan.name} for {plan.duration_s:g} s ({stack})")
        try:
            last_fetch = time.time()
            for at, action, f in plan.events():
                _sleep_until(t0 + at, media, getstats_sink=getstats, last_fetch=[last_fetch])
                _apply(action, f, media, tcps)
                say(f"  {at:7.1f} s  {action} {f.name} ({f.kind})")
                if action == "start" and f.transport == "video" and media.call is not None:
                    time.sleep(0.5)
                    ssrcs.update({v: k for k, v in media.call.ssrcs().items()})
            _sleep_until(t0 + plan.duration_s + TAIL_S, media, getstats_sink=getstats, last_fetch=[last_fetch])
        except KeyboardInterrupt:
            interrupted = "Ctrl-C"
        except Exception as e:  # noqa: BLE001 - a Terminated signal or a browser crash: keep what was measured
            interrupted = f"{type(e).__name__}: {e}"
            if type(e).__name__ not in ("Terminated", "ChromiumError"):
                raise
        for t in tcps.values():
            t.stop()
        if event_log and media.call is not None and interrupted is None:
            from flowstate.browser.chromium import EVENT_LOG_FLUSH_S

            try:  # the browsers write the run's last events before the page closes
                time.sleep(EVENT_LOG_FLUSH_S)
            except KeyboardInterrupt:
                interrupted = "Ctrl-C"
        if media.call is not None:
            try:
                ssrcs.update({v: k for k, v in media.call.ssrcs().items()})
                getstats[:] = media.call.stats()
                frames[:] = media.call.frames()
            except Exception as e:  # noqa: BLE001 - a crashed browser: its samples are lost, the bottleneck's are not
                interrupted = interrupted or f"browser: {e}"
        stop_emu()
        setup["realtime"] = emu_report.get("realtime")
        setup["loadavg_end"] = list(os.getloadavg())
        setup["t0_unix_s"] = t0
        setup["ssrcs"] = {str(k): v for k, v in ssrcs.items()}
        if media.testbed is not None:
            setup["testbed_summary"] = media.testbed_summary()
    # Outside the ExitStack: every namespace, browser and socket is gone, and every
    # browser has closed its peer connection, so its event log is complete.
    logs: dict[str, list[bytes]] = {}
    if event_log and media.call is not None:
        from flowstate.browser.chromium import event_logs

        dirs = list(media.call.workdirs.values())
        logs = {role: [p.read_bytes() for d in dirs for p in event_logs(d, role)] for role in ("sender", "receiver")}
        setup["rtc_event_logs"] = {role: len(v) for role, v in logs.items()}
    _samples_from_getstats(getstats, t0, samples)
    # Retransmissions and probing padding use each video flow's RTX SSRC.
    ssrcs.update({int(s["rtx_ssrc"]): s["flow"] for s in getstats if s.get("kind") == "video" and s.get("rtx_ssrc")})
    tcp_logs = {}
    for name, t in tcps.items():
        samples.rtt[name] = [(ts - t0, v) for ts, v in t.log.rtt_ms]
        samples.delivered[name] = [(ts - t0, v) for ts, v in t.log.received]
        tcp_logs[name] = {
            "rtt_ms": t.log.rtt_ms,
            "cwnd": t.log.cwnd,
            "received": t.log.received,
            "error": t.log.error,
            **t.log.ecn_state(),
        }
    forward = emu_report["forward"]
    offset = emu_report["start_unix_us"] / 1e6 - t0
    if media.testbed is not None:
        ssrcs.update(media.testbed_ssrcs(forward["records"]))
    summary, series, owners = summarize(
        scenario=plan.name,
        seed=seed,
        duration_s=plan.duration_s,
        window=plan.window,
        capacity_mbps=plan.capacity_mbps,
        reverse_delay_s=plan.reverse_delay_s,
        flows=plan.flows,
        records=forward["records"],
        offset_s=offset,
        ssrcs=ssrcs,
        samples=samples,
        data_classes=("udp",) if media.testbed is not None else ("dtls",),
    )
    forward["flow"] = owners
    frames = frames_with_flows(frames, getstats, ssrcs)
    add_video_quality(summary, series, plan.flows, getstats, frames, ssrcs=ssrcs, t0=t0, window=plan.window)
    engaged = add_ecn(summary, plan.flows, getstats, ssrcs, forward["records"], owners, offset)
    if engaged:
        setup["scream_v2_engaged"] = engaged
    own = setup.get("testbed_summary")
    if own:
        # The testbed's endpoints measure their own RTT (from RTCP feedback / SACKs):
        # use it where the bottleneck gives none (the video flows of --stack flowstate).
        own_rtt = {f["name"]: f.get("rtt_ms") for f in own.get("flows", [])}
        for f in summary["flows"]:
            if f["rtt_ms"] is None and own_rtt.get(f["name"]):
                f["rtt_ms"] = own_rtt[f["name"]]
    return RealRun(summary, series, emu_report, getstats, tcp_logs, setup, interrupted, logs, frames)


@dataclass
class _Media:
    """The media side of a run: a Chromium call, the testbed, or nothing (TCP only)."""

    call: Any = None
    testbed: Any = None

    def begin(self) -> None:
        """At the scenario's time zero: the testbed starts its own schedule (Chromium's
        flows are started one by one by the driver)."""
        if self.testbed is not None:
            self.testbed.start()

    def testbed_summary(self) -> Any:
        return self.testbed.result() if self.testbed is not None else None

    def testbed_ssrcs(self, records: dict[str, list]) -> dict[int, str]:
        return self.testbed.ssrcs(records) if self.testbed is not None else {}


def _start_media(plan, stack, stack_, n, chromium, work, text, file, seed, setup, say, event_log=False) -> _Media:  # noqa: ANN001
    if not (plan.videos or plan.datas):
        return _Media()
    if stack == "flowstate":
        from flowstate.browser.own_stack import OwnStack

        tb = OwnStack(plan, text, file, seed=seed, sender=(n.sender, SENDER_IP), receiver=(n.receiver, RECEIVER_IP))
        stack_.callback(tb.close)
        return _Media(testbed=tb)
    from flowstate.browser.calls import CallGroup
    from flowstate.browser.y4m import write_clip

    setup["chromium"] = chromium_version(chromium)
    calls = plan.calls
    say(f"flowstate browser: {setup['chromium']}, connecting" + (f" {len(calls)} calls" if len(calls) > 1 else ""))
    for c in calls:
        if c.force_fieldtrials:
            say(f"flowstate browser: field trials {c.force_fieldtrials}" + (f" (call {c.group})" if len(calls) > 1 else ""))
    if len(calls) > 1:
        setup["calls"] = [
            {"group": c.group, "flows": [f.name for f in c.flows], "field_trials": c.force_fieldtrials} for c in calls
        ]
    clip = write_clip(work / "clips")
    call = CallGroup(
        calls,
        clip=clip,
        sender_netns=n.sender,
        receiver_netns=n.receiver,
        workdir=work,
        chromium=chromium,
        stats_interval_s=STATS_INTERVAL_S,
        coupling=plan.coupling,
        event_log=event_log,
    )
    stack_.enter_context(call)
    call.connect()
    setup["clip"] = clip.name
    return _Media(call=call)


def _apply(action: str, f: Any, media: _Media, tcps: dict[str, KernelTcp]) -> None:
    if f.transport == "tcp":
        (tcps[f.name].start if action == "start" else tcps[f.name].stop)()
    elif media.testbed is not None:
        pass  # the testbed runs its flows on the scenario's own schedule
    elif f.transport == "video":
        (media.call.start_video if action == "start" else media.call.stop_video)(f.name)
    else:
        (media.call.start_data if action == "start" else media.call.stop_data)(f.name)


def _sleep_until(t: float, media: _Media, *, getstats_sink: list, last_fetch: list) -> None:
    """Sleep until Unix time ``t``, fetching getStats samples every FETCH_EVERY_S (so
    a crash late in a run loses little) and checking the testbed is alive."""
    while True:
        now = time.time()
        if now >= t:
            return
        if media.call is not None and now - last_fetch[0] >= FETCH_EVERY_S:
            getstats_sink[:] = media.call.stats()
            last_fetch[0] = now
        if media.testbed is not None:
            media.testbed.check()
        time.sleep(min(0.05, t - now))


def _samples_from_getstats(getstats: list[dict[str, Any]], t0: float, samples: Samples) -> None:
    """getStats samples as scenario-time series: video RTT (remote-inbound-rtp
    roundTripTime), GCC's target (the candidate pair's availableOutgoingBitrate, given
    to every video flow of its call: GCC has one target per transport), data channels' bytes sent
    and received."""
    videos = sorted({s["flow"] for s in getstats if s.get("kind") == "video"})
    for s in getstats:
        t = s["t_unix_s"] - t0
        kind = s.get("kind")
        if kind == "video" and s.get("rtt_s") is not None:
            samples.rtt.setdefault(s["flow"], []).append((t, s["rtt_s"] * 1e3))
        elif kind == "transport" and s.get("available_outgoing_bitrate_bps") is not None:
            # One target per call: its own video flows' (calls.py), else every video's.
            for v in s.get("flows") or videos:
                samples.target.setdefault(v, []).append((t, s["available_outgoing_bitrate_bps"]))
        elif kind == "data":
            if s.get("bytes_sent") is not None:
                samples.app_sent.setdefault(s["flow"], []).append((t, s["bytes_sent"]))
            if s.get("bytes_received") is not None and s.get("received_t_unix_s") is not None:
                samples.delivered.setdefault(s["flow"], []).append((s["received_t_unix_s"] - t0, s["bytes_received"]))
