"""Frame-level figures of a video stream from its render times.

``freezes(render_times_s)`` applies the W3C webrtc-stats freeze and pause rules
(RTCInboundRtpStreamStats ``freezeCount``, ``totalFreezesDuration``, ``pauseCount``,
``totalPausesDuration``, as libwebrtc's VideoQualityObserver applies them) to any
series of render times, the simulator's or a real receiver's; the rules are
flowstate-core's ``playout::freeze`` (docs/ALGORITHMS.md, "Frame playout and freezes").
"""

from __future__ import annotations

from typing import Any, Iterable

from flowstate import _native


def freezes(render_times_s: Iterable[float]) -> dict[str, Any]:
    """The freeze and pause figures of ``render_times_s`` (seconds, in order):
    ``frames``, ``freezes``, ``freeze_duration_s``, ``pauses``, ``pause_duration_s``.
    Raises FlowstateError (one line) for a time that is negative, not finite or earlier
    than the one before it."""
    return _native.freezes([float(t) for t in render_times_s])
