"""`flowstate browser --rtc-event-log`: each Chromium's WebRTC event log lands in the run
folder (needs root, namespaces, /usr/bin/chromium and playwright for the real run:
SKIPPED with the reason elsewhere), and its bad uses are one-line errors before any
set-up."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from flowstate import rtclog
from real_chromium_support import cli, namespaces, require_real_chromium

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "real" / "p000-table5-none-30s.toml"
# libwebrtc's new format (rtc_event_log2.proto) starts with EventStream field 16,
# begin_log_events, length-delimited: tag (16 << 3 | 2) as a varint.
NEW_FORMAT_START = b"\x82\x01"

TCP_ONLY = """
name = "tcp-only"
duration = "8s"
[link]
capacity = "10Mbps"
delay = "20ms"
queue = "60ms"
[[flows]]
name = "cubic"
kind = "tcp-cubic"
"""


def test_event_log_without_a_browser_is_a_one_line_error(tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(TCP_ONLY)
    p = cli("browser", str(scenario), "--rtc-event-log", "--prefix", "fsel")
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip().splitlines() == [
        f"flowstate: error: {scenario}: --rtc-event-log: the scenario has no gcc or sctp flow, so no browser runs"
    ]


def test_event_log_with_the_own_stack_is_a_one_line_error():
    p = cli("browser", str(SCENARIO), "--rtc-event-log", "--stack", "flowstate", "--prefix", "fsel")
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip().splitlines() == [
        f"flowstate: error: {SCENARIO}: --rtc-event-log: the event log is Chromium's; use --stack chromium"
    ]


def test_a_real_run_keeps_both_browsers_event_logs(tmp_path):
    require_real_chromium()

    # The CI scenario shortened to 15 s, measured over 8-15 s.
    scenario = tmp_path / "s15.toml"
    scenario.write_text(SCENARIO.read_text().replace('duration = "30s"', 'duration = "15s"')
                        .replace('start = "15s"', 'start = "8s"').replace('end = "30s"', 'end = "15s"'))
    out = tmp_path / "out"
    p = cli("browser", str(scenario), "--rtc-event-log", "--out", str(out), "--prefix", "fsel", "--no-report",
            timeout=180)
    assert p.returncode == 0, p.stderr
    setup = json.loads((out / "browser.json").read_text())
    assert setup["rtc_event_logs"] == {"sender": 1, "receiver": 1}
    sender = (out / "rtc-event-log-sender.log").read_bytes()
    receiver = (out / "rtc-event-log-receiver.log").read_bytes()
    assert sender.startswith(NEW_FORMAT_START) and receiver.startswith(NEW_FORMAT_START)
    # The sender's log has GCC's decisions and the video's packets over the run.
    log = rtclog.read(out / "rtc-event-log-sender.log")
    assert log.delay_based and log.loss_based and log.probe_clusters
    assert len(log.outgoing_rtp) > 100
    # ...on the run's clock (browser.json's t0), to the run's end: the last batch of
    # events is written before the browsers close (EVENT_LOG_FLUSH_S).
    t0 = setup["t0_unix_s"]
    assert -10 < log.delay_based[0].unix_s - t0 < 1
    assert 14.5 < log.outgoing_rtp[-1].unix_s - t0 and 14.5 < log.loss_based[-1].unix_s - t0
    assert namespaces("fsel") == []
    assert subprocess.run(["pgrep", "-f", "user-data-dir=.*flowstate-browser-"], capture_output=True).returncode == 1
