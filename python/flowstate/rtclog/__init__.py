"""Chromium's RTC event log (libwebrtc's rtc_event_log2 format), as `flowstate browser
--rtc-event-log` keeps it in a run folder: event_log.py reads it (GCC's delay-based and
loss-based updates, probes, ALR, every sent RTP packet); `flowstate rtclog FILE` prints
it. Needs the Python package protobuf (the ``rtclog`` extra)."""

from flowstate.rtclog.event_log import KINDS, EventLog, EventLogError, parse, read

__all__ = ["KINDS", "EventLog", "EventLogError", "parse", "read"]
