"""Issue 21: scripts/delay_detector.py (libwebrtc's over-use detector, offline) and the
`aimd` / `replay` parts of scripts/gcc_target_falls.py."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest
from script_support import SCRIPTS, load_script

ROOT = Path(__file__).resolve().parents[1]


def _dd():
    # Imported, not loaded by path: its dataclasses need the module in sys.modules.
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    return importlib.import_module("delay_detector")


def _frames(det, n, step_us=33_333, growth_us=0, packets=3, start_us=0, spacing_us=1_600):
    """``n`` frames of ``packets`` packets sent back to back, the path's delay growing by
    ``growth_us`` a frame (negative: falling)."""
    for k in range(n):
        send = start_us + k * step_us
        delay = 50_000 + max(0, k * growth_us) if growth_us >= 0 else 50_000 + max(0, (n - k) * -growth_us)
        for i in range(packets):
            det.packet(send + i * 10, send + delay + i * spacing_us, 1000)


def test_linear_fit_slope_known_values():
    dd = _dd()
    assert dd.linear_fit_slope([(0.0, 1.0), (1.0, 3.0), (2.0, 5.0)]) == pytest.approx(2.0)
    assert dd.linear_fit_slope([(1.0, 1.0), (1.0, 2.0)]) is None


def test_a_growing_queue_is_overuse_a_draining_one_underuse_a_flat_one_normal():
    dd = _dd()
    grow = dd.Detector()
    _frames(grow, 120, growth_us=2_000)  # +2 ms a frame: trend 0.06, modified 14 > 12.5
    assert any(s.state == "overusing" for s in grow.samples)
    drain = dd.Detector()
    _frames(drain, 120, growth_us=-2_000)
    assert any(s.state == "underusing" for s in drain.samples)
    assert not any(s.state == "overusing" for s in drain.samples)
    flat = dd.Detector()
    _frames(flat, 120)
    assert {s.state for s in flat.samples} == {"normal"}
    # The threshold falls toward its floor of 6 while |modified| stays under it.
    assert flat.samples[-1].threshold == pytest.approx(6.0)


def test_millisecond_send_times_merge_packets_just_over_the_group_length():
    """A packet 5.4 ms after a group's first one opens a new group at microsecond send
    times (5.4 > 5), not at Chromium's whole milliseconds (5 - 0 = 5, not > 5)."""
    dd = _dd()
    counts = {}
    for res in (1, 1000):
        det = dd.Detector(send_resolution_us=res)
        for k in range(60):
            t = k * 33_333 - (k * 33_333) % 1000  # each frame on a whole millisecond
            det.packet(t, t + 50_000, 1000)
            det.packet(t + 5_400, t + 55_400, 300)  # e.g. a FEC packet 5.4 ms later
        counts[res] = len(det.samples)
    assert counts[1] > 100  # two groups a frame
    assert counts[1000] < 60  # one group a frame


def test_detector_rejects_a_send_resolution_under_one_us():
    with pytest.raises(ValueError, match="send_resolution_us"):
        _dd().Detector(send_resolution_us=0)


def test_states_at_and_overuse_onsets():
    dd = _dd()
    s = [dd.Sample(1_000_000, 0, 0, 0, 6, "normal"), dd.Sample(2_000_000, 0, 0, 9, 6, "overusing"),
         dd.Sample(3_000_000, 0, 0, 0, 6, "normal"), dd.Sample(4_000_000, 0, 0, 9, 6, "overusing")]
    ticks = [500_000, 1_500_000, 2_500_000, 3_500_000, 4_500_000]
    states = dd.states_at(s, ticks)
    assert states == ["normal", "normal", "overusing", "normal", "overusing"]
    assert dd.overuse_onsets([t / 1e6 for t in ticks], states, 0, 10) == [2.5, 4.5]
    assert dd.overuse_onsets([t / 1e6 for t in ticks], states, 3, 10) == [4.5]


def test_aimd_summary_of_a_sawtooth():
    g = load_script("gcc_target_falls")
    rows, t, e = [], 0.0, 500e3
    # 0.1 s updates rising 2 kbit/s each (20 kbit/s a second: 3-4 % a second at 500-660
    # kbit/s, additive by the 4.5 % rule), a decrease to 0.7 every 10 s
    for k in range(610):  # 61 s, so the window 0-60 s holds six decreases
        t = k * 0.1
        if k % 100 == 99:  # a decrease every 10 s, overusing for that update
            e *= 0.7
            rows.append((t, e, "overusing"))
        else:
            e += 2e3
            rows.append((t, e, "normal"))
    a = g.aimd_summary(rows, [(r[0], r[1]) for r in rows], [(0.0, True), (30.0, False)], [12.0], 0.0, 60.0)
    assert a["decreases_per_min"] == pytest.approx(6.0, abs=0.2)
    assert a["overuse_per_min"] == pytest.approx(6.0, abs=0.2)
    assert all(d == pytest.approx(0.7) for d in a["depth"])
    assert a["multiplicative_share"] == 0.0
    assert g.p50(a["additive_kbps_per_s"]) == pytest.approx(20.0)
    assert a["alr_share"] == pytest.approx(0.5, abs=0.01)
    assert a["probes_per_min"] == pytest.approx(1.0, abs=0.05)
    assert a["loss_below_share"] == 0.0


def test_replay_and_aimd_name_missing_inputs(tmp_path):
    script = ROOT / "scripts" / "gcc_target_falls.py"
    for cmd, need in (("aimd", "rtc-event-log-sender.log"), ("replay", "bottleneck-forward.csv")):
        r = subprocess.run([sys.executable, str(script), cmd, "30", "120", "--real", str(tmp_path)],
                           capture_output=True, text=True)
        assert r.returncode != 0
        assert need in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([sys.executable, str(script), "replay", "30", "120", "--traces", str(tmp_path / "none")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "Traceback" not in r.stderr


def test_replay_reads_simulator_trace_lines(tmp_path, capsys):
    g = load_script("gcc_target_falls")
    p = tmp_path / "t.trace"
    lines = []
    for k in range(300):
        send = 30_000_000 + k * 33_333
        fb = send + 100_000
        lines.append(f"K {fb} {send} {send + 50_000} 1000")
        lines.append(f"D {fb} 500000 Normal true -1 0 1 0.0 6.0 Increase -1 -1 0 {k}")
    p.write_text("\n".join(lines) + "\n")
    g.replay(30, 40, [], [p], "gcc", 1000, [])
    out = capsys.readouterr().out
    assert "| simulator t.trace | 300 |" in out
    # a flat queue: the modified trend is 0 at every update, never over the threshold
    assert "| 0.0 | 0.0 (D lines) | - | 0.0 | 0.000 |" in out


def test_replay_classes_a_traces_fec_by_its_p_lines(tmp_path, capsys):
    # scripts/patches/issue21-trace-packets.patch: `P us is_fec frame_id index count bytes`.
    # Frames of two media packets every 100 ms, each with two ULPFEC packets 40 and 80 ms
    # after its last media packet (every FEC packet counts, as for Chromium's); the FEC packets' one-way delay grows 2 ms a packet, the media's is
    # flat: with the FEC the detector's trend moves, without it it stays at zero.
    g = load_script("gcc_target_falls")
    p = tmp_path / "t.trace"
    lines = []
    for k in range(200):
        t0 = 30_000_000 + k * 100_000
        pkts = [(t0, 0, 0, 1000), (t0 + 1_000, 0, 1, 1001), (t0 + 41_000, 1, 0, 500), (t0 + 81_000, 1, 0, 501)]
        for us, fec, idx, size in pkts:
            lines.append(f"P {us} {fec} {k} {idx} {0 if fec else 2} {size}")
            owd = 50_000 + (2_000 * k if fec else 0)
            lines.append(f"K {t0 + 90_000} {us} {us + owd} {size}")
        lines.append(f"D {t0 + 90_000} 500000 Normal true -1 0 3 0.0 6.0 Increase -1 -1 0 {k}")
    p.write_text("\n".join(lines) + "\n")
    g.replay(30, 50, [], [p], "gcc", 1000, [])
    out = capsys.readouterr().out
    row = next(x for x in out.splitlines() if x.startswith("| simulator"))
    assert row.startswith("| simulator t.trace | 800 |")
    assert "| 40.0 / 80.0 / 80.0 (1.00) |" in row
    assert float(row.split("|")[-3]) > 0.0  # the FEC's delay moves the trend
    g.replay(30, 50, [], [p], "gcc", 1000, ["fec"])
    row = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("| simulator"))
    assert row.startswith("| simulator t.trace | 400 |")
    assert row.endswith("| 40.0 / 80.0 / 80.0 (1.00) | 0.0 | 0.000 |")


def test_replay_takes_a_real_run_without_an_event_log(tmp_path, monkeypatch, capsys):
    # p000-table5's first real runs were recorded without --rtc-event-log: the replay
    # column alone (docs/REPRODUCTION.md, "p000-table5's send chain").
    g = load_script("gcc_target_falls")
    rd = tmp_path / "run-1"
    rd.mkdir()
    pk = [(30_000_000 + k * 33_333, 30_050_000 + k * 33_333, 1000, "media") for k in range(300)]
    monkeypatch.setattr(g, "real_packet_classes", lambda run, flow: (pk, []))
    g.replay(30, 40, [rd], [], "gcc", 1000, [])
    out = capsys.readouterr().out
    assert "| Chromium run-1 | 300 |" in out and out.rstrip().endswith("| 0.0 | no event log | - | 0.0 | 0.000 |")
