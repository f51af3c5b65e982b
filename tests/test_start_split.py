"""Issue 21: scripts/start_split.py splits a run's 500 ms series at the data channel's
start, for the real references and the simulator's outputs alike: window means, drops,
the first overflow and what follows it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from script_support import ROOT, SCRIPTS

if str(SCRIPTS) not in sys.path:
    sys.path.insert(0, str(SCRIPTS))
import start_split  # noqa: E402

KEPT = ROOT / "references" / "chromium-156-5runs" / "p000-table5" / "chromium" / "timeseries.csv"
HEADER = "run,seed,time_s,flow,send_rate_mbps,throughput_mbps,goodput_mbps,queuing_delay_ms,rtt_ms,sent_packets,lost_packets,capacity_mbps,target_mbps\n"


def write_series(path: Path) -> None:
    """One run, 0.5 s bins from 0 to 20 s: the data channel starts at 10 s and overflows
    from 10.5 to 11.5 s (drops in 10.5, 11.0 and, after one quiet bin, 12.0 s: one
    episode of 2.0 s), the queue then falls to 12 ms, GCC's target under 0.5 at 12.5 s."""
    rows = []
    for i in range(40):
        t = i * 0.5
        lost = 5 if t in (10.5, 11.0, 12.0) else 0
        queue = 12.0 if t == 13.0 else 150.0
        target = 0.4 if t >= 12.5 else 1.0
        rows.append(f"0,1,{t},gcc,0.3,0.3,,{queue},,10,{1 if lost else 0},2.0,{target}\n")
        rows.append(f"0,1,{t},sctp,1.5,{1.5 if t >= 10 else 0.0},,,,10,{lost},2.0,\n")
    path.write_text(HEADER + "".join(rows))


def test_windows_and_the_first_overflow(tmp_path):
    path = tmp_path / "timeseries.csv"
    write_series(path)
    [run] = start_split.read_runs(path, "gcc", "sctp")
    w = start_split.window(run, 10.0, 20.0)
    assert w["video"] == 0.3 and w["data_lost"] == 15 and w["video_lost"] == 3
    assert abs(w["target"] - (5 * 1.0 + 15 * 0.4) / 20) < 1e-12
    s = start_split.start(run, 10.0)
    assert s == {"overflow_s": 2.0, "overflow_drops": 15, "queue_min_after_ms": 12.0, "target_below_s": 2.5}


def test_the_kept_references_read_as_five_runs():
    runs = start_split.read_runs(KEPT, "gcc", "sctp")
    assert len(runs) == 5
    starts = [start_split.start(r, 10.0) for r in runs]
    # Chromium's data channel start overflows the queue for 2-3 s with 100+ SCTP drops.
    assert all(2.0 <= s["overflow_s"] <= 3.0 and s["overflow_drops"] >= 100 for s in starts), starts


def test_bad_input_is_one_line(tmp_path):
    def cli(*args):
        return subprocess.run([sys.executable, str(SCRIPTS / "start_split.py"), *args],
                              capture_output=True, text=True, timeout=60)

    p = cli("--label", "x", str(tmp_path / "none.csv"))
    assert p.returncode == 1 and p.stderr.strip().splitlines()[-1].endswith("none.csv: no such file")
    bad = tmp_path / "bad.csv"
    bad.write_text("time_s,flow\n0,gcc\n")
    p = cli("--label", "x", str(bad))
    assert p.returncode == 1 and "no column lost_packets, throughput_mbps" in p.stderr
    p = cli("--split", "10")
    assert p.returncode == 2 and "--label NAME SERIES.csv" in p.stderr.strip().splitlines()[-1]
    good = tmp_path / "good.csv"
    write_series(good)
    p = cli("--label", "x", str(good), "--split", "20", "10")
    assert p.returncode == 2 and "at least two increasing times" in p.stderr.strip().splitlines()[-1]
    p = cli("--label", "sim", str(good), "--split", "10", "20")
    assert p.returncode == 0 and "| sim | 1 | 2.0-2.0 | 15.0-15.0 | 12.0-12.0 | 2.5-2.5 |" in p.stdout, p.stdout
