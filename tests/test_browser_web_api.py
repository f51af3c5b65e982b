"""CI's real-Chromium check of js/flowstate-coupling: paper 000's Table 5 set-up, 30 s,
through the IP-level bottleneck, with the module in the sender page (`[coupling]
mechanism = "web-api"`). Uncoupled, Chromium 156's data channel starves the video
(tests/test_browser_real_chromium.py: video share 0.10-0.16); coupled by the page, the
video keeps a fair share with a low RTT (docs/BROWSER.md, "Coupling in the page").
Needs root, namespaces, /usr/bin/chromium and playwright: SKIPPED with the reason
elsewhere."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


from real_chromium_support import require_real_chromium

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "real" / "p000-table5-web-api-30s.toml"
# Fair is 0.5; uncoupled the video gets 0.10-0.16 here. Bounds from the runs measured
# (docs/BROWSER.md), with room for a loaded machine.
VIDEO_SHARE_MIN = 0.3
RTT_MAX_MS = 200.0


def test_real_chromium_table5_coupled_by_the_page(tmp_path):
    require_real_chromium()
    out = tmp_path / "out"
    p = subprocess.run(
        [sys.executable, "-m", "flowstate", "browser", str(SCENARIO), "--out", str(out), "--prefix", "fswa",
         "--no-report"],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert p.returncode == 0, p.stderr
    s = json.loads((out / "summary.json").read_text())
    video, data = s["flows"]
    assert video["share"] > VIDEO_SHARE_MIN, s
    assert data["share"] > 0.2, s
    assert video["rtt_ms"] is not None and video["rtt_ms"]["mean"] < RTT_MAX_MS, video
    # The module ran: the page recorded its decisions, and browser.json the coupling.
    stats = json.loads((out / "getstats.json").read_text())
    decisions = [x for x in stats if x.get("kind") == "coupling"]
    assert len(decisions) > 100, len(decisions)
    assert json.loads((out / "browser.json").read_text())["coupling"]["intervalMs"] == 150
    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert "fswa-" not in left
    assert subprocess.run(["pgrep", "-f", "user-data-dir=.*flowstate-browser-"], capture_output=True).returncode == 1
