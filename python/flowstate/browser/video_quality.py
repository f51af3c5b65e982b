"""A real run's video quality, per video flow, from Chromium's own figures: the summary's
``video`` block and the time series' ``fps``, ``frame_delay_ms`` and ``freezes``, in the
simulator's shape (docs/SCENARIOS.md, "Outputs"; docs/BROWSER.md, "What is measured").

Two sources, both on the pages' clock (one machine: the Unix clock of both browsers):

- getStats counters (W3C webrtc-stats, https://w3c.github.io/webrtc-stats/), sampled by
  both pages every ``STATS_INTERVAL_S`` (run.py): the sender's outbound-rtp and
  media-source (flow samples of kind ``video``), the receiver's inbound-rtp (kind
  ``inbound-video``, given to a flow by its SSRC). A counter over an interval is its
  value at the interval's end minus its value at the start, each the latest sample at
  or before that time (0 before the first: every counter starts at 0).
- the receiver page's render callbacks (``HTMLVideoElement.requestVideoFrameCallback``
  on a muted ``<video>`` playing the remote track; page.js ``renderRemote``), one per
  frame presented for composition: ``frames.csv``.

Chromium counts freezes and pauses itself (inbound-rtp ``freezeCount``,
``totalFreezesDuration``, ``pauseCount``, ``totalPausesDuration``; libwebrtc
video/video_quality_observer2.cc, on the time each decoded frame is handed to the
track); they are only differenced here.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

import numpy as np

from flowstate.browser.measure import BIN_S
from flowstate.browser.plan import FlowPlan

#: frames.csv, one row per render callback (page.js renderRemote): the flow, the
#: transceiver's mid, the element's presentedFrames (a jump of more than 1 means
#: callbacks were missed, not frames), and the times of the callback, the frame's
#: presentation and expected display, its capture (Chromium's estimate of the sender's
#: capture time on the receiver's clock, from the RTCP sender reports) and its receipt
#: (the last packet of the frame), each in Unix seconds; the frame's RTP timestamp and
#: size.
FRAME_COLUMNS = (
    "flow",
    "mid",
    "presented_frames",
    "callback_unix_s",
    "presentation_unix_s",
    "expected_display_unix_s",
    "capture_unix_s",
    "receive_unix_s",
    "rtp_timestamp",
    "width",
    "height",
)

#: The summary's ``video`` block of a video flow (non-video flows: null).
VIDEO_FIELDS = (
    "frames_encoded",
    "frames_rendered",
    "frames_dropped_encoder",
    "frames_lost",
    "frames_late",
    "frame_delay_ms",
    "fps",
    "freezes",
    "freeze_duration_s",
    "freezes_per_min",
    "pauses",
    "pause_duration_s",
)

#: The time series' columns (null for non-video flows and for bins without a value).
SERIES_FIELDS = ("fps", "frame_delay_ms", "freezes")


def frames_with_flows(
    frames: Sequence[dict[str, Any]], getstats: Sequence[dict[str, Any]], ssrcs: dict[int, str]
) -> list[dict[str, Any]]:
    """The render callbacks with their flow: the receiver's transceiver ``mid`` names its
    inbound-rtp stream, whose SSRC is a video flow's (``ssrcs``: SSRC -> flow). A mid no
    flow owns goes to the only video flow when there is one (as RTP at the bottleneck),
    else its frames are left out."""
    flow_of_mid: dict[str, str] = {}
    for s in getstats:
        if s.get("kind") == "inbound-video" and s.get("mid") is not None and s.get("ssrc") in ssrcs:
            flow_of_mid[str(s["mid"])] = ssrcs[s["ssrc"]]
    videos = sorted({s["flow"] for s in getstats if s.get("kind") == "video"})
    only = videos[0] if len(videos) == 1 else None
    out = []
    for f in frames:
        flow = flow_of_mid.get(str(f.get("mid")), only)
        if flow is not None:
            out.append({**f, "flow": flow})
    return out


def write_frames(path: Path, frames: Iterable[dict[str, Any]]) -> None:
    """frames.csv (FRAME_COLUMNS; empty cells for nulls)."""
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(FRAME_COLUMNS)
        for row in frames:
            w.writerow(["" if row.get(c) is None else row[c] for c in FRAME_COLUMNS])


def read_frames(path: Path) -> list[dict[str, Any]]:
    """frames.csv back as dicts (numbers as float, empty cells as None)."""
    rows = []
    with path.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            rows.append({k: (v if k in ("flow", "mid") else (float(v) if v != "" else None)) for k, v in row.items()})
    return rows


class Counter:
    """One cumulative counter's samples ``[(t, value)]`` (t ascending), read as a step
    function: its value at ``t`` is the latest sample at or before ``t``, 0 before the
    first."""

    def __init__(self, points: Iterable[tuple[float, Optional[float]]]) -> None:
        pts = sorted((t, float(v)) for t, v in points if v is not None)
        self.times = np.array([t for t, _ in pts], dtype=float)
        self.values = np.array([v for _, v in pts], dtype=float)

    def __bool__(self) -> bool:
        return self.times.size > 0

    def at(self, t: float) -> float:
        i = int(np.searchsorted(self.times, t, side="right"))
        return float(self.values[i - 1]) if i else 0.0

    def between(self, a: float, b: float) -> Optional[float]:
        """The counter's increase over (a, b]; None without any sample."""
        return self.at(b) - self.at(a) if self else None


def _counter(samples: Sequence[dict[str, Any]], field: str, t0: float) -> Counter:
    return Counter((s["t_unix_s"] - t0, s.get(field)) for s in samples)


def _nonneg(x: Optional[float]) -> Optional[float]:
    return None if x is None else max(0.0, x)


def _as_int(x: Optional[float]) -> Optional[int]:
    return None if x is None else int(round(x))


def frame_delays(frames: Sequence[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """(presentation time in Unix seconds, capture-to-display delay in ms) of every
    frame whose callback carries a capture time: expected display time minus capture
    time (both on the receiver's clock; the capture time is Chromium's estimate of the
    sender's capture instant through the RTCP sender reports)."""
    t, d = [], []
    for f in frames:
        cap, shown = f.get("capture_unix_s"), f.get("expected_display_unix_s")
        if cap is not None and shown is not None and f.get("presentation_unix_s") is not None:
            t.append(f["presentation_unix_s"])
            d.append((shown - cap) * 1e3)
    return np.array(t, dtype=float), np.array(d, dtype=float)


def _delay_stats(d: np.ndarray) -> dict[str, Optional[float]]:
    if d.size == 0:
        return {"mean": None, "p50": None, "p95": None, "p99": None}
    return {
        "mean": float(d.mean()),
        "p50": float(np.percentile(d, 50)),
        "p95": float(np.percentile(d, 95)),
        "p99": float(np.percentile(d, 99)),
    }


class FlowVideo:
    """One video flow's counters and render callbacks on the scenario's clock."""

    def __init__(
        self, name: str, getstats: Sequence[dict[str, Any]], frames: Sequence[dict[str, Any]],
        ssrcs: dict[int, str], t0: float
    ) -> None:
        sent = [s for s in getstats if s.get("kind") == "video" and s.get("flow") == name]
        inbound = [s for s in getstats if s.get("kind") == "inbound-video" and ssrcs.get(s.get("ssrc")) == name]
        self.encoded = _counter(sent, "frames_encoded", t0)
        self.sent = _counter(sent, "frames_sent", t0)
        self.captured = _counter(sent, "source_frames", t0)
        self.decoded = _counter(inbound, "frames_decoded", t0)
        self.dropped = _counter(inbound, "frames_dropped", t0)
        self.freezes = _counter(inbound, "freeze_count", t0)
        self.freeze_s = _counter(inbound, "total_freezes_duration_s", t0)
        self.pauses = _counter(inbound, "pause_count", t0)
        self.pause_s = _counter(inbound, "total_pauses_duration_s", t0)
        own = [f for f in frames if f.get("flow") == name and f.get("presentation_unix_s") is not None]
        self.presented = Counter((f["presentation_unix_s"] - t0, f.get("presented_frames")) for f in own)
        times, delays = frame_delays(own)
        self.delay_times = times - t0
        self.delays = delays

    @property
    def measured(self) -> bool:
        """Whether Chromium reported anything for this flow (never under --stack
        flowstate: no browser runs)."""
        return bool(self.encoded or self.decoded or self.presented)

    def rendered(self, a: float, b: float) -> Optional[float]:
        return self.presented.between(a, b)

    def summary(self, a: float, b: float) -> dict[str, Any]:
        """The ``video`` block over the window [a, b) (scenario seconds)."""
        span = max(b - a, 1e-9)
        rendered = self.rendered(a, b)
        encoded = self.encoded.between(a, b)
        captured = self.captured.between(a, b)
        sent, decoded, late = self.sent.between(a, b), self.decoded.between(a, b), self.dropped.between(a, b)
        # Frames that reached the receiver: decoded, or dropped there before decoding.
        # (inbound-rtp framesReceived is not used: Chromium 156 reported fewer frames
        # received than decoded, 302 against 334 in a 30 s run.)
        arrived = decoded + late if decoded is not None and late is not None else None
        freezes = self.freezes.between(a, b)
        in_window = (self.delay_times >= a) & (self.delay_times < b)
        return {
            "frames_encoded": _as_int(encoded),
            "frames_rendered": _as_int(rendered),
            "frames_dropped_encoder": _as_int(_nonneg(captured - encoded))
            if captured is not None and encoded is not None else None,
            "frames_lost": _as_int(_nonneg(sent - arrived)) if sent is not None and arrived is not None else None,
            "frames_late": _as_int(late),
            "frame_delay_ms": _delay_stats(self.delays[in_window]),
            "fps": rendered / span if rendered is not None else None,
            "freezes": _as_int(freezes),
            "freeze_duration_s": self.freeze_s.between(a, b),
            "freezes_per_min": freezes * 60.0 / span if freezes is not None else None,
            "pauses": _as_int(self.pauses.between(a, b)),
            "pause_duration_s": self.pause_s.between(a, b),
        }

    def bin(self, a: float, b: float) -> dict[str, Any]:
        """The time series' video columns of the bin [a, b)."""
        rendered = self.rendered(a, b)
        in_bin = (self.delay_times >= a) & (self.delay_times < b)
        freezes = self.freezes.between(a, b)
        return {
            "fps": rendered / (b - a) if rendered is not None else None,
            "frame_delay_ms": float(self.delays[in_bin].mean()) if in_bin.any() else None,
            "freezes": _as_int(freezes),
        }


def add_video_quality(
    summary: dict[str, Any],
    series: list[dict[str, Any]],
    flows: Sequence[FlowPlan],
    getstats: Sequence[dict[str, Any]],
    frames: Sequence[dict[str, Any]],
    *,
    ssrcs: dict[int, str],
    t0: float,
    window: tuple[float, float],
) -> None:
    """Adds each flow's ``video`` block to ``summary`` (null for non-video flows and for
    video flows Chromium reported nothing for) and the ``fps``, ``frame_delay_ms``,
    ``freezes`` columns to every row of ``series``."""
    videos = {
        f.name: FlowVideo(f.name, getstats, frames, ssrcs, t0) for f in flows if f.transport == "video"
    }
    videos = {name: v for name, v in videos.items() if v.measured}
    for row in summary["flows"]:
        v = videos.get(row["name"])
        row["video"] = v.summary(*window) if v is not None else None
    for row in series:
        v = videos.get(row["flow"])
        a = float(row["time_s"])
        row.update(v.bin(a, a + BIN_S) if v is not None else dict.fromkeys(SERIES_FIELDS))
