"""Two real, unmodified Chromium browsers in a WebRTC call, driven with Playwright.

The sender browser sends one VP8 video track per `VideoFlow` and one data channel per
`DataFlow`, all on ONE RTCPeerConnection (so one 5-tuple, one GCC, one SCTP
association, as in a real application); the receiver browser answers. Each browser runs
in its own network namespace when one is given: Playwright launches a wrapper script that
runs ``ip netns exec NS CHROMIUM "$@"`` and its pipe still reaches the browser
(REAL-CHROMIUM.md, "A path that works"). The SDP is carried between the two pages by
``page.evaluate`` once ICE gathering is complete: no signalling server.

The in-page code is ``page.js`` (same directory). The sender page samples ``getStats``
every ``stats_interval_s`` itself, so sampling does not depend on how often Python asks;
`ChromiumCall.stats` fetches the samples.

Every browser is killed on `ChromiumCall.close`, also when Playwright hangs or is gone:
the wrapper records the browser's process id, and Playwright starts each browser as the
leader of its own process group (every zygote, renderer, GPU and utility process is in
it; Chromium's crash handlers are not, and exit with the browser), so killing that group
leaves nothing. Ctrl-C is Python's to handle (``handle_sigint=False``): Playwright's
driver would otherwise close the browsers itself, and the interrupted call would fail
with "Target closed" instead of raising KeyboardInterrupt.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import signal
import threading
import time
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

PAGE_JS = Path(__file__).with_name("page.js")

#: Chromium switches (REAL-CHROMIUM.md, "Media and data"). Playwright adds its own
#: (``--headless``, ``--no-sandbox``, ``--remote-debugging-pipe``, a ``--disable-features``
#: list, ...); the wrapper merges every ``--disable-features`` into one, because Chromium
#: keeps only the last of a repeated switch.
CHROMIUM_SWITCHES = (
    "--no-sandbox",  # runs as root here
    "--use-fake-ui-for-media-stream",  # getUserMedia without a permission prompt
    "--use-fake-device-for-media-stream",
    "--disable-background-timer-throttling",  # the writers and the sampler run on timers
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
    "--disable-features=WebRtcHideLocalIpsWithMdns",  # plain host candidates, no mDNS names
    # No network outside: without these Chromium keeps trying its update and sync hosts.
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-gpu",
    "--disable-quic",
)

#: Chromium's field trials, all in one switch: ``Name/Group/Name2/Group2/``, a trial's
#: parameters inside its group (``WebRTC-Bwe-ScreamV2/Enabled,MinRefWindow:100/``;
#: checked on Chromium 156).
FIELD_TRIALS_SWITCH = "--force-fieldtrials"

#: Chromium's local WebRTC event logging (content_switches.cc kWebRtcLocalEventLogging):
#: every peer connection's RTC event log goes to a file in the given directory, as with
#: chrome://webrtc-internals' "create diagnostic event log" (checked headless, Chromium
#: 156: libwebrtc's new format, rtc_event_log2.proto; the log is complete once the page
#: closes its peer connection, which `ChromiumCall.close` does first).
EVENT_LOG_SWITCH = "--webrtc-event-logging"
#: Chromium writes a peer connection's event log in batches, one every 5 s; closing the
#: page right after a run lost the last batch (up to 4.5 s of events) in 4 of 9 runs
#: (Chromium 156, real runs with --rtc-event-log), so a run that keeps the log waits this
#: long after its end before the browsers close.
EVENT_LOG_FLUSH_S = 6.0


def event_log_dir(workdir: Path, role: str) -> Path:
    """Where the ``role`` browser ("sender", "receiver") writes its RTC event logs."""
    return Path(workdir) / f"{role}-event-log"


def event_logs(workdir: Path, role: str) -> list[Path]:
    """The RTC event log files the ``role`` browser wrote, oldest first (one per peer
    connection; none when logging was off or the browser did not start)."""
    folder = event_log_dir(workdir, role)
    if not folder.is_dir():
        return []
    return sorted((p for p in folder.iterdir() if p.is_file()), key=lambda p: (p.stat().st_mtime, p.name))


#: Longest page call (connect's own waits are bounded inside the page, below this).
CALL_TIMEOUT_S = 60.0
#: How long a graceful Playwright close may take before the process group is killed.
CLOSE_GRACE_S = 5.0
#: How long to wait for a killed process group to disappear.
KILL_WAIT_S = 5.0


@dataclass(frozen=True)
class VideoFlow:
    """One video track from the fake camera; ``max_rate_bps`` becomes the encoding's
    maxBitrate (None: Chromium's default)."""

    name: str
    max_rate_bps: Optional[float]
    priority: float = 1.0


@dataclass(frozen=True)
class DataFlow:
    """One ordered, reliable data channel; ``rate_bps`` None is a greedy writer, else the
    application writes at that rate (token bucket)."""

    name: str
    rate_bps: Optional[float]
    priority: float = 1.0


#: js/flowstate-coupling, loaded into the sender page when the call is coupled.
COUPLING_JS = Path(__file__).resolve().parents[3] / "js" / "flowstate-coupling" / "index.js"


class ChromiumError(Exception):
    """A one-line reason the call cannot go on: no Chromium, no Playwright, a page that
    failed, ICE that failed..."""


@dataclass
class _Browser:
    """One launched browser: its Playwright context, its page and the process id of the
    browser process (the leader of its process group)."""

    context: Any
    page: Any
    pid: int


class ChromiumCall:
    """A WebRTC call between two Chromium browsers. Use as a context manager: `close`
    runs on every exit path and never leaves a Chromium process behind.

    ``workdir`` receives the call page (call.html), and per role ("sender",
    "receiver") the launch wrapper (ROLE-chromium.sh), the browser's process id
    (ROLE.pid) and a fresh profile (ROLE-profile/); with ``event_log``, also the
    browser's WebRTC event log (libwebrtc's RTC event log, protobuf; one file per peer
    connection) in ROLE-event-log/ (`event_log_dir`), complete once `close` returns."""

    def __init__(
        self,
        *,
        videos: list[VideoFlow],
        datas: list[DataFlow],
        clip: Path,
        sender_netns: Optional[str],
        receiver_netns: Optional[str],
        workdir: Path,
        chromium: str = "/usr/bin/chromium",
        stats_interval_s: float = 0.2,
        coupling: Optional[dict[str, Any]] = None,
        event_log: bool = False,
        field_trials: Optional[str] = None,
        playwright: Any = None,
    ):
        names = [f.name for f in videos] + [f.name for f in datas]
        for i, name in enumerate(names):
            if name == "*" or name in names[:i]:
                # Samples are keyed by flow name; "*" is the transport's.
                raise ChromiumError(f"flow names must be unique and not '*': {name!r}")
        self.videos = {f.name: f for f in videos}
        self.datas = {f.name: f for f in datas}
        self.clip = Path(clip)
        self.netns = {"sender": sender_netns, "receiver": receiver_netns}
        self.workdir = Path(workdir)
        self.chromium = chromium
        self.stats_interval_s = stats_interval_s
        #: ``{"intervalMs", "config"}``: the sender page runs js/flowstate-coupling.
        self.coupling = coupling
        #: Each browser writes its RTC event log into `event_log_dir` (workdir, role).
        self.event_log = event_log
        #: ``--force-fieldtrials``' value for both browsers (plan.Plan.force_fieldtrials).
        self.field_trials = field_trials
        #: A started Playwright shared with other calls (calls.CallGroup), which its
        #: owner stops; None: this call starts its own and stops it on `close`.
        self._shared_playwright = playwright
        self._playwright: Any = None
        self._browsers: dict[str, _Browser] = {}
        self._pids: dict[str, int] = {}
        self._unkilled: list[int] = []
        self._samples: list[dict] = []
        self._frames: list[dict] = []
        self._received: dict[str, list[tuple[float, int]]] = {f.name: [] for f in datas}

    def __enter__(self) -> ChromiumCall:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def browser_pids(self) -> dict[str, int]:
        """The process id of each browser launched so far ("sender", "receiver"), each
        the leader of its process group. Kept after `close` so a caller can check that
        they are gone."""
        return dict(self._pids)

    def connect(self, timeout_s: float = 30) -> None:
        """Launch both browsers, negotiate, and return once ICE and DTLS are connected
        and every data channel is open. On any failure or interrupt (Ctrl-C too),
        everything launched is closed before the exception propagates."""
        try:
            self._connect(time.monotonic() + timeout_s)
        except BaseException:
            self.close()
            raise

    def _connect(self, deadline: float) -> None:
        self._check_inputs()
        if self._shared_playwright is not None:
            self._playwright = self._shared_playwright
        else:
            sync_playwright = _import_playwright()
            self._playwright = sync_playwright().start()
        page_url = _write_page(self.workdir, coupling_js=_coupling_source() if self.coupling is not None else None)
        for role in ("sender", "receiver"):
            self._launch(role, page_url, deadline)
        setup = {"videos": list(self.videos), "datas": list(self.datas),
                 "statsIntervalMs": round(self.stats_interval_s * 1000)}
        for role in ("sender", "receiver"):
            self._call(role, "setup", "(a) => flowstate.setup(a)", {"role": role, **setup})
        offer = self._call("sender", "offer", "(ms) => flowstate.offer(ms)", _ms_left(deadline))
        answer = self._call("receiver", "answer", "([sdp, ms]) => flowstate.answer(sdp, ms)",
                            [offer, _ms_left(deadline)])
        self._call("sender", "accept", "(sdp) => flowstate.accept(sdp)", answer)
        for role in ("sender", "receiver"):
            self._call(role, "connect", "(ms) => flowstate.connected(ms)", _ms_left(deadline))
        if self.coupling is not None:
            arg = {
                "intervalMs": self.coupling["intervalMs"],
                "config": self.coupling.get("config", {}),
                "videos": [{"name": f.name, "priority": f.priority, "maxBitrate": f.max_rate_bps}
                           for f in self.videos.values()],
                "datas": [{"name": f.name, "priority": f.priority} for f in self.datas.values()],
            }
            self._call("sender", "start coupling", "(a) => flowstate.startCoupling(a)", arg)

    def _check_inputs(self) -> None:
        """Fail with one line before launching anything, rather than with a browser log."""
        if not (os.path.isfile(self.chromium) and os.access(self.chromium, os.X_OK)):
            raise ChromiumError(f"no Chromium executable at {self.chromium}")
        try:
            with open(self.clip, "rb") as f:
                magic = f.read(10)
        except OSError as e:
            raise ChromiumError(f"cannot read the video clip {self.clip}: {e.strerror}") from None
        if magic != b"YUV4MPEG2 ":
            raise ChromiumError(f"the video clip {self.clip} is not a Y4M file")
        for role, ns in self.netns.items():
            if ns is not None and not Path("/run/netns", ns).exists():
                raise ChromiumError(f"no network namespace {ns!r} for the {role}")

    def _launch(self, role: str, page_url: str, deadline: float) -> None:
        """Launch one browser with a fresh profile and open the call page in it."""
        profile = self.workdir / f"{role}-profile"
        shutil.rmtree(profile, ignore_errors=True)
        pidfile = self.workdir / f"{role}.pid"
        pidfile.unlink(missing_ok=True)
        wrapper = _write_wrapper(self.workdir / f"{role}-chromium.sh", self.chromium,
                                 self.netns[role], pidfile)
        args = [*CHROMIUM_SWITCHES, f"--use-file-for-fake-video-capture={self.clip.resolve()}"]
        if self.field_trials:
            # One switch holds every trial (Chromium keeps only the last of a repeated one).
            args.append(f"{FIELD_TRIALS_SWITCH}={self.field_trials}")
        if self.event_log:
            logs = event_log_dir(self.workdir, role)
            shutil.rmtree(logs, ignore_errors=True)
            logs.mkdir(parents=True)
            args.append(f"{EVENT_LOG_SWITCH}={logs.resolve()}")
        try:
            context = self._playwright.chromium.launch_persistent_context(
                str(profile), executable_path=str(wrapper), headless=True, args=args,
                timeout=_ms_left(deadline), handle_sigint=False)
        except Exception as e:
            raise ChromiumError(f"{role} browser did not start: {_launch_failure(e)}") from None
        finally:
            # Read even after a failed launch: the process may be there all the same.
            if pidfile.exists():
                self._pids[role] = int(pidfile.read_text())
                self._unkilled.append(self._pids[role])
        page = context.pages[0] if context.pages else context.new_page()
        self._browsers[role] = _Browser(context, page, self._pids[role])
        try:
            page.goto(page_url)
        except Exception as e:
            raise ChromiumError(f"{role} page did not load: {_one_line(e)}") from None

    def _call(self, role: str, what: str, expression: str, arg: Any = None) -> Any:
        """Evaluate in one page; a page error becomes a one-line ChromiumError.
        Playwright's evaluate has no timeout: a watchdog kills the browser's process
        group if a call takes more than CALL_TIMEOUT_S (a hung renderer), so the call
        fails instead of blocking the run for ever."""
        if role not in self._browsers:
            raise ChromiumError(f"the call is not connected ({what})")
        pid = self._browsers[role].pid
        watchdog = threading.Timer(CALL_TIMEOUT_S, _kill_group, args=(pid,))
        watchdog.daemon = True
        watchdog.start()
        try:
            return self._browsers[role].page.evaluate(expression, arg)
        except Exception as e:
            hung = " (no answer within %.0f s: browser killed)" % CALL_TIMEOUT_S if not watchdog.is_alive() else ""
            raise ChromiumError(f"{role} page: {what}: {_one_line(e)}{hung}") from None
        finally:
            watchdog.cancel()

    def start_video(self, name: str) -> None:
        """Send a clone of the fake-camera track on this flow's transceiver, then cap it
        at the flow's maxBitrate."""
        flow = self._video(name)
        self._call("sender", f"start video {name}", "([n, r]) => flowstate.startVideo(n, r)",
                   [name, flow.max_rate_bps])

    def stop_video(self, name: str) -> None:
        """replaceTrack(null): the transceiver stays negotiated and sends nothing."""
        self._video(name)
        self._call("sender", f"stop video {name}", "(n) => flowstate.stopVideo(n)", name)

    def start_data(self, name: str) -> None:
        """Start the flow's writer (greedy or paced; page.js). Starting a running writer
        does nothing."""
        flow = self._data(name)
        self._call("sender", f"start data {name}", "([n, r]) => flowstate.startData(n, r)",
                   [name, flow.rate_bps])

    def stop_data(self, name: str) -> None:
        """Stop writing; what the channel has buffered still drains."""
        self._data(name)
        self._call("sender", f"stop data {name}", "(n) => flowstate.stopData(n)", name)

    def _video(self, name: str) -> VideoFlow:
        if name not in self.videos:
            raise ChromiumError(f"no video flow named {name!r}")
        return self.videos[name]

    def _data(self, name: str) -> DataFlow:
        if name not in self.datas:
            raise ChromiumError(f"no data flow named {name!r}")
        return self.datas[name]

    def stats(self) -> list[dict]:
        """All samples so far, oldest first (a new list each call; after `close`, those
        fetched before it: call this once more before closing). Each is a flat dict
        with ``t_unix_s`` (the sender page's Date.now() when sampled), ``flow`` and
        ``kind``; a field Chromium did not report is None.

        - kind "video", per video flow: ssrc, rtx_ssrc (outbound-rtp rtxSsrc: the SSRC
          of its RTX retransmissions), bytes_sent (outbound-rtp bytesSent: RTP
          payload), header_bytes_sent (headerBytesSent), packets_sent,
          retransmitted_bytes_sent, target_bitrate_bps (targetBitrate: the encoder's),
          frame_width, frame_height, frames_per_second, quality_limitation_reason,
          the encoder's counters (frames_encoded, frames_sent, key_frames_encoded,
          huge_frames_sent, frames_dropped (absent from outbound-rtp in Chromium 156:
          None), qp_sum, total_encoded_bytes_target, total_encode_time_s,
          quality_limitation_durations (a dict of seconds per reason),
          quality_limitation_resolution_changes, encoder_implementation, nack_count,
          pli_count, fir_count: outbound-rtp's fields of those names), the capturer's
          (source_frames, source_frames_per_second, source_width, source_height: the
          media-source stats of the track), rtt_s (remote-inbound-rtp roundTripTime
          for that SSRC, from RTCP), sending (a track is on the sender); with RFC 8888
          feedback, ECN: packets_sent_with_ect1 (outbound-rtp packetsSentWithEct1),
          packets_with_bleached_ect1_marking and packets_reported_as_lost
          (remote-inbound-rtp packetsWithBleachedEct1Marking, packetsReportedAsLost).
        - kind "transport", flow "*": available_outgoing_bitrate_bps and current_rtt_s
          of the selected candidate pair (availableOutgoingBitrate: GCC's target;
          currentRoundTripTime: from STUN consent checks).
        - kind "data", per data flow: bytes_sent (data-channel bytesSent: message
          payload, ~9 % below the bytes on the wire), messages_sent, buffered_amount
          (RTCDataChannel.bufferedAmount), writing; and bytes_received, the receiver
          page's count of payload bytes delivered to its onmessage, as of
          received_t_unix_s, its latest sample not after t_unix_s (the two pages sample
          independently, at the same interval, on the same clock).
        - kind "inbound-video", flow "*", from the receiver page: each inbound-rtp video
          stream's bytes_received, header_bytes_received, packets_received,
          packets_lost, fec_packets_received, fec_bytes_received,
          fec_packets_discarded, retransmitted_packets_received,
          retransmitted_bytes_received, frames_received, frames_decoded,
          key_frames_decoded, frames_dropped, nack_count, pli_count (the W3C fields of
          those names), with its ssrc and mid; and the frame timing and quality
          counters: frames_rendered (framesRendered: absent in Chromium 156, None),
          frames_per_second, frame_width, frame_height, freeze_count,
          total_freezes_duration_s, pause_count, total_pauses_duration_s,
          total_inter_frame_delay_s, total_squared_inter_frame_delay_s2,
          jitter_buffer_delay_s, jitter_buffer_target_delay_s,
          jitter_buffer_minimum_delay_s, jitter_buffer_emitted_count,
          total_decode_time_s, total_processing_delay_s, total_assembly_time_s,
          frames_assembled_from_multiple_packets; and ECN as received,
          packets_received_with_ect1 and packets_received_with_ce (inbound-rtp
          packetsReceivedWithEct1, packetsReceivedWithCe; None without RFC 8888).

        The receiver page's render callbacks are fetched at the same time: `frames`.
        """
        if "sender" in self._browsers:
            fresh = self._call("sender", "stats", "() => flowstate.takeSamples()")
            # Fetched after the sender's: every receiver sample up to the newest sender
            # sample's time is already there.
            inbound = []
            for r in self._call("receiver", "stats", "() => flowstate.takeSamples()"):
                if r.get("kind") == "inbound-video":
                    inbound.append(r)
                else:
                    self._received[r["flow"]].append((r["t_unix_s"], r["bytes_received"]))
            self._samples += [self._merge_received(s) for s in fresh] + inbound
            self._frames += self._call("receiver", "frames", "() => flowstate.takeFrames()")
        return list(self._samples)

    def frames(self) -> list[dict]:
        """Every frame the receiver page was called back for so far, oldest first, as
        fetched by the last `stats` call: one dict per requestVideoFrameCallback on a
        remote video (page.js renderRemote) with mid, presented_frames,
        callback_unix_s, presentation_unix_s, expected_display_unix_s,
        capture_unix_s and receive_unix_s (None when Chromium gives none),
        rtp_timestamp, width, height."""
        return list(self._frames)

    def _merge_received(self, sample: dict) -> dict:
        if sample["kind"] != "data":
            return sample
        received = self._received[sample["flow"]]
        i = bisect_right(received, (sample["t_unix_s"], float("inf")))
        t, count = received[i - 1] if i else (None, None)
        return {**sample, "bytes_received": count, "received_t_unix_s": t}

    def ssrcs(self) -> dict[str, int]:
        """Each video flow's RTP SSRC (outbound-rtp ssrc), to classify packets at the
        bottleneck. Chromium 156 reports an outbound-rtp for every negotiated sender
        once connected, before any track; a flow without one has no entry. (RTX
        retransmissions use a second SSRC: the samples' ``rtx_ssrc``.)"""
        got = self._call("sender", "ssrcs", "() => flowstate.ssrcs()")
        return {name: int(ssrc) for name, ssrc in got.items()}

    def close(self) -> None:
        """Close both browsers and Playwright. Idempotent; never raises (it runs on
        error paths). A browser that does not close within CLOSE_GRACE_S is killed
        with its whole process group."""
        browsers, self._browsers = self._browsers, {}
        # One grace period for both browsers, not one after the other.
        killers = [_killer(browser.pid) for browser in browsers.values()]
        for browser in browsers.values():
            _close_gracefully(browser)
        for killer in killers:
            killer.cancel()
        # Once only: a later close must not signal a process group whose id was reused.
        launched, self._unkilled = self._unkilled, []
        for pid in launched:
            _kill_group(pid)
        playwright, self._playwright = self._playwright, None
        if playwright is not None and playwright is not self._shared_playwright:
            _forget_abandoned_calls(playwright)
            try:
                playwright.stop()
            except Exception:  # the driver may be gone already
                pass


def _forget_abandoned_calls(playwright: Any) -> None:
    """A call interrupted by Ctrl-C leaves its task pending on Playwright's event loop;
    it fails once the browser is gone, and asyncio would print that failure as "Task
    exception was never retrieved" at exit. Retrieve it instead: the interrupt is the
    error the caller sees. (``_loop`` is the sync API's event loop.)"""
    loop = getattr(playwright, "_loop", None)
    if loop is None or loop.is_closed():
        return
    for task in asyncio.all_tasks(loop):
        task.add_done_callback(lambda t: t.cancelled() or t.exception())


def _killer(pgid: int) -> threading.Timer:
    """A started timer that kills the process group after CLOSE_GRACE_S. If a graceful
    close hangs, the kill ends it: Playwright sees the browser exit and returns."""
    timer = threading.Timer(CLOSE_GRACE_S, _kill_group, args=(pgid,))
    timer.daemon = True
    timer.start()
    return timer


def _close_gracefully(browser: _Browser) -> None:
    """Close the page's peer connection (the receiver sees the call end, not a
    timeout), then the browser through Playwright. Errors are ignored: the page or the
    whole Playwright driver may be gone already."""
    try:
        browser.page.evaluate("() => flowstate.close()")
    except Exception:
        pass
    try:
        browser.context.close()
    except Exception:
        pass


def _kill_group(pgid: int) -> None:
    """SIGKILL the process group and wait until none of it runs (a zombie waiting for
    its parent to reap it counts as gone)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + KILL_WAIT_S
    while _group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)


def _group_alive(pgid: int) -> bool:
    """Whether a process of the group is still running, from /proc/PID/stat (state is
    the third field, pgrp the fifth; the command name before them may contain spaces)."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def _write_wrapper(path: Path, chromium: str, netns: Optional[str], pidfile: Path) -> Path:
    """The executable Playwright launches: records its process id (exec keeps it, so it
    is the browser's), merges every --disable-features into one, and execs Chromium,
    in the namespace if one is given (``ip netns exec`` execs too)."""
    prefix = f"ip netns exec {shlex.quote(netns)} " if netns else ""
    path.write_text(
        "#!/bin/sh\n"
        "# Written by flowstate.browser.chromium for one run.\n"
        f"echo $$ > {shlex.quote(str(pidfile))}\n"
        'disabled=""\n'
        "for a do\n"
        "  shift\n"
        '  case "$a" in\n'
        '    --disable-features=*) disabled="$disabled${disabled:+,}${a#--disable-features=}" ;;\n'
        '    *) set -- "$@" "$a" ;;\n'
        "  esac\n"
        "done\n"
        f'exec {prefix}{shlex.quote(chromium)} "$@" ${{disabled:+"--disable-features=$disabled"}}\n'
    )
    path.chmod(0o755)
    return path


def _coupling_source() -> str:
    """js/flowstate-coupling's index.js (one-line error when this checkout has none)."""
    try:
        return COUPLING_JS.read_text()
    except OSError as e:
        raise ChromiumError(f"cannot read the coupling module {COUPLING_JS}: {e.strerror}") from None


def _write_page(workdir: Path, coupling_js: Optional[str] = None) -> str:
    """The call page, a file:// URL: getUserMedia needs a secure context, which
    file:// is and about:blank is not (checked on Chromium 156). With ``coupling_js``
    the module runs as an inline module script that puts its exports on
    ``window.flowstateCoupling`` (page.js's startCoupling uses them)."""
    workdir.mkdir(parents=True, exist_ok=True)
    page = workdir / "call.html"
    module = ""
    if coupling_js is not None:
        module = (
            f"<script type=module>\n{coupling_js}\n"
            "window.flowstateCoupling = { Coupler, WebApiRule, PacedChannel, TokenBucket, waterFill };\n"
            "</script>\n"
        )
    page.write_text(
        "<!doctype html>\n<meta charset=utf-8>\n<title>flowstate call</title>\n"
        f"{module}<script>\n{PAGE_JS.read_text()}</script>\n"
    )
    return page.resolve().as_uri()


def _import_playwright() -> Any:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise ChromiumError("Playwright is not installed: .venv/bin/pip install 'playwright>=1.40' (the browser extra)") from None
    return sync_playwright


def _ms_left(deadline: float) -> int:
    """Milliseconds to the deadline, at least 1 (0 means no timeout to Playwright)."""
    return max(1, round((deadline - time.monotonic()) * 1000))


def _launch_failure(e: BaseException) -> str:
    """Playwright's launch error starts "Target page, context or browser has been
    closed"; the browser log after it says why: the browser's last line on stderr and
    its exit status."""
    text = str(e)
    details = re.findall(r"\[pid=\d+\]\[err\] (.+)", text)[-1:]
    details += re.findall(r"<process did exit: ([^>]+)>", text)[-1:]
    return "; ".join([_one_line(e), *(d.strip() for d in details)])


def _one_line(e: BaseException) -> str:
    """The first line of an error: Playwright's messages carry a browser log after it."""
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    return lines[0] if lines else type(e).__name__
