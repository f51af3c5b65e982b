"""CI's real-Chromium check: paper 000's Table 5 set-up, uncoupled, 30 s, through the
IP-level bottleneck. Chromium 156's data channel starves its own video, as paper 000
found for Chromium ~M100 (docs/REPRODUCTION.md, "The simulator against real
Chromium"). Needs root, namespaces, /usr/bin/chromium and playwright: SKIPPED with the
reason elsewhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


from real_chromium_support import require_real_chromium

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "real" / "p000-table5-none-30s.toml"
# Fair would be 0.5; the 3 runs measured here gave 0.10-0.16 over 15-30 s.
VIDEO_SHARE_BOUND = 0.3


def test_real_chromium_table5_starves_the_video(tmp_path):
    require_real_chromium()
    out = tmp_path / "out"
    p = subprocess.run(
        [sys.executable, "-m", "flowstate", "browser", str(SCENARIO), "--out", str(out), "--prefix", "fsci"],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert p.returncode == 0, p.stderr
    s = json.loads((out / "summary.json").read_text())
    video, data = s["flows"]
    assert video["share"] < VIDEO_SHARE_BOUND, s
    assert data["share"] > 1 - VIDEO_SHARE_BOUND, s
    assert s["aggregate"]["utilization"] > 0.9, s
    # Both flows crossed the bottleneck and the video's RTT comes from getStats.
    assert video["throughput_mbps"] > 0.05 and video["rtt_ms"] is not None, video
    assert (out / "report.html").exists()
    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert "fsci-" not in left
    # No browser of this run is left (their profiles live in a flowstate-browser-* folder).
    assert subprocess.run(["pgrep", "-f", "user-data-dir=.*flowstate-browser-"], capture_output=True).returncode == 1


def test_a_crashed_browser_ends_the_run_with_what_was_measured(tmp_path):
    """The sender's Chromium is killed mid-run: the run ends there (exit status 1),
    writes what the bottleneck measured, and leaves no namespace or browser behind."""
    require_real_chromium()
    import time

    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "flowstate", "browser", str(SCENARIO), "--out", str(out), "--prefix", "fscr",
         "--no-report"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        sender = "user-data-dir=.*flowstate-browser-.*sender-profile"
        deadline = time.time() + 60
        pid = None
        while time.time() < deadline and pid is None:
            found = subprocess.run(["pgrep", "-o", "-f", sender], capture_output=True, text=True).stdout.split()
            pid = int(found[0]) if found else None
            time.sleep(0.2)
        assert pid is not None, "the sender browser did not start"
        time.sleep(8)  # connected and sending
        os.killpg(os.getpgid(pid), 9)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, err
    assert "cut short" in err, err
    assert (out / "summary.json").exists() and (out / "bottleneck-forward.csv").exists()
    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert "fscr-" not in left
    assert subprocess.run(["pgrep", "-f", "user-data-dir=.*flowstate-browser-"], capture_output=True).returncode == 1
