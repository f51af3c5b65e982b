"""Several WebRTC calls on one path: one `ChromiumCall` (its own pair of browsers, its
own peer connection, so its own congestion controller) per call of the plan
(plan.CallPlan: one per ``group`` of the video and data flows), driven as one.

The calls share the sender and receiver namespaces, so their packets meet at the same
bottleneck, and one Playwright driver. Samples and frames keep their flow names (unique
in a scenario); what is per call is marked:

- a "transport" sample (the candidate pair's ``availableOutgoingBitrate``: one
  controller's target) carries ``flows``, the video flows of its call;
- with more than one call, a receiver sample's and a frame's ``mid`` is prefixed with
  the call's group (``"b:0"``), since every call numbers its transceivers from 0.

Every browser of every call is closed on `close`, which runs on every exit path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from flowstate.browser.chromium import ChromiumCall, ChromiumError, DataFlow, VideoFlow, _import_playwright
from flowstate.browser.plan import CallPlan


class CallGroup:
    """The plan's calls between browsers in ``sender_netns`` and ``receiver_netns``;
    each call's files go to ``workdir/call-GROUP/`` (one call: ``workdir`` itself)."""

    def __init__(
        self,
        calls: list[CallPlan],
        *,
        clip: Path,
        sender_netns: Optional[str],
        receiver_netns: Optional[str],
        workdir: Path,
        chromium: str,
        stats_interval_s: float,
        coupling: Optional[dict[str, Any]],
        event_log: bool,
    ) -> None:
        if not calls:
            raise ChromiumError("no call to make: the plan has no video or data flow")
        self.plans = calls
        self._playwright: Any = None
        self.calls: dict[str, ChromiumCall] = {}
        self._owner: dict[str, ChromiumCall] = {}
        single = len(calls) == 1
        for c in calls:
            work = Path(workdir) if single else Path(workdir) / f"call-{c.group}"
            work.mkdir(parents=True, exist_ok=True)
            call = ChromiumCall(
                videos=[VideoFlow(f.name, f.max_rate_bps, f.priority) for f in c.videos],
                datas=[DataFlow(f.name, f.rate_bps, f.priority) for f in c.datas],
                clip=clip,
                sender_netns=sender_netns,
                receiver_netns=receiver_netns,
                workdir=work,
                chromium=chromium,
                stats_interval_s=stats_interval_s,
                coupling=coupling,
                event_log=event_log,
                field_trials=c.force_fieldtrials,
            )
            self.calls[c.group] = call
            for f in c.flows:
                self._owner[f.name] = call

    def __enter__(self) -> CallGroup:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def workdirs(self) -> dict[str, Path]:
        """Each call's working directory (its page, profiles and event logs)."""
        return {group: call.workdir for group, call in self.calls.items()}

    @property
    def browser_pids(self) -> dict[str, int]:
        """Every browser launched so far: "sender"/"receiver" with one call, else
        "GROUP/sender" and "GROUP/receiver"."""
        if len(self.calls) == 1:
            return next(iter(self.calls.values())).browser_pids
        return {f"{g}/{role}": pid for g, c in self.calls.items() for role, pid in c.browser_pids.items()}

    def connect(self, timeout_s: float = 30) -> None:
        """Connect every call, one after the other, each within ``timeout_s``. On any
        failure everything launched is closed before the exception propagates."""
        try:
            if len(self.calls) > 1:
                sync_playwright = _import_playwright()
                self._playwright = sync_playwright().start()
                for call in self.calls.values():
                    call._shared_playwright = self._playwright
            for call in self.calls.values():
                call.connect(timeout_s)
        except BaseException:
            self.close()
            raise

    def start_video(self, name: str) -> None:
        self._call_of(name).start_video(name)

    def stop_video(self, name: str) -> None:
        self._call_of(name).stop_video(name)

    def start_data(self, name: str) -> None:
        self._call_of(name).start_data(name)

    def stop_data(self, name: str) -> None:
        self._call_of(name).stop_data(name)

    def _call_of(self, name: str) -> ChromiumCall:
        if name not in self._owner:
            raise ChromiumError(f"no flow named {name!r} in any call")
        return self._owner[name]

    def stats(self) -> list[dict]:
        """Every call's samples (ChromiumCall.stats), marked as the module doc says."""
        out: list[dict] = []
        for group, call in self.calls.items():
            videos = list(call.videos)
            for s in call.stats():
                if s.get("kind") == "transport":
                    s = {**s, "flows": videos, "call": group}
                elif s.get("kind") == "inbound-video" and len(self.calls) > 1:
                    s = {**s, "mid": _mid(group, s.get("mid")), "call": group}
                out.append(s)
        if len(self.calls) > 1:
            out.sort(key=lambda s: s.get("t_unix_s") or 0.0)
        return out

    def frames(self) -> list[dict]:
        """Every call's presented frames (ChromiumCall.frames), mids marked per call."""
        if len(self.calls) == 1:
            return next(iter(self.calls.values())).frames()
        out = []
        for group, call in self.calls.items():
            out += [{**f, "mid": _mid(group, f.get("mid"))} for f in call.frames()]
        return out

    def ssrcs(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for call in self.calls.values():
            out.update(call.ssrcs())
        return out

    def close(self) -> None:
        """Close every call, then the shared Playwright. Idempotent; never raises."""
        for call in self.calls.values():
            call.close()
        playwright, self._playwright = self._playwright, None
        if playwright is not None:
            try:
                playwright.stop()
            except Exception:  # the driver may be gone already
                pass


def _mid(group: str, mid: Any) -> Optional[str]:
    return None if mid is None else f"{group}:{mid}"
