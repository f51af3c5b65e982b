"""scripts/rtx_sim.py: the simulator's NACK/RTX figures from the trace lines of
scripts/patches/issue21-trace-rtx.patch, on hand-made traces, and a one-line error for a
malformed line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import rtx_sim  # noqa: E402

TRACE = """\
noise line
X 1000000 m 1
X 1001000 m 2
X 1002000 m 3
X 1003000 f 4
X 1004000 m 5
A 1030000 m 1
A 1035000 m 5
X 1150000 r 2
X 1152000 r 3
A 1180000 r 2
X 1260000 r 3
A 1290000 r 3
X 3000000 m 6
A 3030000 m 6
X 3100000 m 7
"""


def test_dropped_media_packets_and_their_retransmissions():
    r = rtx_sim.rates(rtx_sim.parse(TRACE.splitlines()), 1.0, 2.0)
    # media 1, 2, 3, 5 in the window (6 and 7 after it, 4 is ULPFEC); 2 and 3 dropped
    assert r["media_packets"] == 4 and r["dropped"] == 2
    assert r["loss"] == 0.5
    assert r["retransmissions_per_s"] == 2.0 and r["repeats_per_s"] == 1.0
    assert r["with_rtx"] == 1.0 and r["recovered"] == 1.0
    assert r["rtx_per_dropped"] == 1.5
    assert r["first_rtx_ms"][1] == pytest.approx(149.5)
    # 7 never arrived and nothing after it did: on its way at the end, not dropped
    assert rtx_sim.rates(rtx_sim.parse(TRACE.splitlines()), 3.0, 4.0)["dropped"] == 0


def test_a_malformed_line_is_a_one_line_error(tmp_path: Path):
    bad = tmp_path / "t.txt"
    bad.write_text("X 12 q 3\n")
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "rtx_sim.py"), "0", "1", str(bad)],
                       capture_output=True, text=True)
    assert p.returncode == 2
    assert "line 1" in p.stderr and p.stderr.count("\n") == 1, p.stderr
