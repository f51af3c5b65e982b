"""A report opened in headless Chromium: the tables render with the expected rows,
every embedded image decodes, and the page is not blank.

Needs /usr/bin/chromium (Debian package `chromium`; scripts/install-test-tools.sh
installs it, and so does this test when run as root). Skipped, saying why, only when
it is absent and cannot be installed."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import report_support
from flowstate.report import report

CHROMIUM_TIMEOUT_S = 120
# Time the page gets (virtual time: returns as soon as the page is idle) to load.
VIRTUAL_TIME_BUDGET_MS = 5000


INSTALL_SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "install-test-tools.sh"
INSTALL_TIMEOUT_S = 900
_install_error: list[str] = []


def _find() -> "str | None":
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium() -> str:
    """The browser; installed on the spot (once) when missing and we are root."""
    path = _find()
    if path is None and not _install_error and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        try:
            done = subprocess.run(["sh", str(INSTALL_SCRIPT)], capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
            _install_error.append((done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1])
        except subprocess.TimeoutExpired:
            _install_error.append(f"timed out after {INSTALL_TIMEOUT_S} s")
        path = _find()
    if path is None:
        why = f"installing it failed: {_install_error[0]}" if _install_error else "it cannot be installed here (needs root and apt-get)"
        pytest.skip(f"chromium not installed and {why} (run scripts/install-test-tools.sh as root)")
    return path


def headless(*args, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(tmp_path)}  # a profile in the test's folder
    return subprocess.run(
        [chromium(), "--headless=new", "--disable-gpu", "--no-sandbox", "--no-first-run",
         "--disable-extensions", f"--user-data-dir={tmp_path / 'profile'}",
         f"--virtual-time-budget={VIRTUAL_TIME_BUDGET_MS}", *args],
        capture_output=True, text=True, timeout=CHROMIUM_TIMEOUT_S, env=env,
    )


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    out = report_support.copy(report_support.simulated("table5"), tmp_path_factory.mktemp("browser") / "p000-table5")
    return report.build(out)


def test_chromium_renders_the_tables_and_decodes_every_image(page, tmp_path):
    result = headless("--dump-dom", page.as_uri(), tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    dom = result.stdout
    body = re.search(r"<body([^>]*)>", dom)
    assert body, dom[:500]
    loaded = re.search(r'data-images-loaded="(\d+)"', body.group(1))
    total = re.search(r'data-images-total="(\d+)"', body.group(1))
    assert loaded and total, f"the load script did not run: {body.group(0)}"
    # Five figures of the entry, plus the RTT / queuing-delay comparison with the
    # paper's numbers (Table 5 gives GCC's RTT) and the video's frames: seven, every one
    # decoded.
    assert int(total.group(1)) == 7 and int(loaded.group(1)) == 7
    # the tables, as the browser parsed them (it adds <tbody>)
    for css in ("comparison", "claims", "summary", "aggregate", "video"):
        assert re.search(rf'<table class="{css}">\s*<thead>', dom), css
    comparison = dom.split('<table class="comparison">')[1].split("</table>")[0]
    assert comparison.count("<tr>") == 13
    assert "<tr><td>uncoupled</td><td>GCC throughput (Mbit/s) " in comparison
    assert comparison.count("<tr><td>uncoupled</td>") == 6 and comparison.count("<tr><td>FSEv2</td>") == 6
    summary = dom.split('<table class="summary">')[1].split("</table>")[0]
    for point, flow in (("uncoupled", "gcc"), ("uncoupled", "sctp"), ("FSEv2", "gcc"), ("FSEv2", "sctp")):
        assert f'<tr><td>{point}</td><td><span class="flow">{flow} ' in summary, (point, flow)
    claims = dom.split('<table class="claims">')[1].split("</table>")[0]
    # "holds" or "fails", possibly flagged "value off by ..." (class "off")
    assert claims.count('<span class="status holds') + claims.count('<span class="status fails') == 2
    assert claims.count('<span class="status na">not evaluated</span>') == 1


def test_chromium_screenshot_is_not_blank(page, tmp_path):
    from matplotlib.image import imread

    shot = tmp_path / "report.png"
    # tall enough for the whole page: tables and the six figures
    result = headless(f"--screenshot={shot}", "--window-size=1200,6000", "--hide-scrollbars", page.as_uri(),
                      tmp_path=tmp_path)
    assert result.returncode == 0 and shot.exists(), result.stderr[-2000:]
    image = imread(shot)
    assert image.shape[:2] == (6000, 1200)
    rgb = image[..., :3]
    # text, tables and figures: many pixels are not the white background, and in colour
    not_white = (rgb < 0.95).any(axis=2).mean()
    coloured = (rgb.max(axis=2) - rgb.min(axis=2) > 0.2).mean()
    assert not_white > 0.05, not_white
    assert coloured > 0.01, coloured
    # the page is as long as its content (figures included), not cut short
    rows = (rgb < 0.95).any(axis=(1, 2)).nonzero()[0]
    assert rows.max() > 3500, rows.max()
