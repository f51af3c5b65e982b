"""Issue 21: scripts/gcc_share.py (GCC's target against the video's payload, real runs and
traces of the patched simulator build)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from script_support import load_script

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "gcc_share.py"


def _module():
    return load_script("gcc_share")


def test_decreases_count_falls_of_more_than_five_percent():
    m = _module()
    # 100 -> 96 (-4 %, not counted) -> 80 (counted, 0.833) -> 80 -> 40 (counted, 0.5)
    n, ratio = m.decreases([100.0, 96.0, 80.0, 80.0, 40.0])
    assert n == 2
    assert abs(ratio - (80 / 96 + 0.5) / 2) < 1e-12
    assert m.decreases([100.0, 110.0]) == (0, 0.0)


def test_sim_reads_the_trace_lines(tmp_path, capsys):
    m = _module()
    # Target 300 kbit/s, one fall to 240 at 1.0 s (n_dd 0 -> 1); one 1000-byte frame per 0.1 s.
    lines = ["T 0 300000 280000 300000 300000 0 None 280000",
             "T 1000000 240000 220000 240000 300000 1 None 220000"]
    lines += [f"F {k * 100_000} 1000 0 280000" for k in range(20)]
    trace = tmp_path / "1.trace"
    trace.write_text("\n".join(lines) + "\n")
    m.sim([trace], 0.0, 2.0)
    row = capsys.readouterr().out.strip().splitlines()[-1]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "1 (0.80)"
    assert cells[2] == "1"
    assert cells[4] == "80"  # 20 frames x 8000 bits / 2 s
    assert cells[6] == "10.0"


def test_bad_input_is_one_line(tmp_path):
    p = subprocess.run([sys.executable, str(SCRIPT), "real", str(tmp_path), "gcc", "0", "10"],
                       capture_output=True, text=True)
    assert p.returncode != 0
    assert p.stderr.strip() == f"no run-* folders in {tmp_path}"
    p = subprocess.run([sys.executable, str(SCRIPT), "sim", "5", "1", str(tmp_path / "x")],
                       capture_output=True, text=True)
    assert p.returncode != 0 and "start < end" in p.stderr and "Traceback" not in p.stderr
    p = subprocess.run([sys.executable, str(SCRIPT), "sim", "0", "1", str(tmp_path / "x")],
                       capture_output=True, text=True)
    assert p.returncode != 0 and p.stderr.strip() == f"no such trace file: {tmp_path / 'x'}"
    bad = tmp_path / "bad.trace"
    bad.write_text("T 12 notanumber\n")
    p = subprocess.run([sys.executable, str(SCRIPT), "sim", "0", "1", str(bad)], capture_output=True, text=True)
    assert p.returncode != 0 and "bad.trace:1: not a trace line" in p.stderr and "Traceback" not in p.stderr


def test_series_reads_target_and_throughput(tmp_path, capsys):
    m = _module()
    # Two runs of 4 bins: target 1.0, 1.0, 0.5 (a fall), 0.5; throughput 0.75 throughout.
    rows = ["run,seed,time_s,flow,throughput_mbps,target_mbps"]
    for run in (0, 1):
        for k, tgt in enumerate((1.0, 1.0, 0.5, 0.5)):
            rows.append(f"{run},{run + 1},{k * 15.0},gcc,0.75,{tgt}")
        rows.append(f"{run},{run + 1},0.0,sctp,3.0,")
    path = tmp_path / "sim-x" / "timeseries.csv"
    path.parent.mkdir()
    path.write_text("\n".join(rows) + "\n")
    m.series([path], "gcc", 0.0, 60.0)
    row = capsys.readouterr().out.strip().splitlines()[-1]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[0] == "sim-x" and cells[1] == "2"
    assert cells[2] == "0.750 (0.750-0.750)"  # mean target
    assert cells[4] == "1.000 (1.000-1.000)"  # throughput / target
    assert cells[5] == "1.000 (1.000-1.000)"  # one fall in 60 s


def test_series_bad_input_is_one_line(tmp_path):
    p = subprocess.run([sys.executable, str(SCRIPT), "series", "gcc", "0", "10", str(tmp_path / "none.csv")],
                       capture_output=True, text=True)
    assert p.returncode != 0 and p.stderr.strip() == f"no such timeseries file: {tmp_path / 'none.csv'}"
    f = tmp_path / "t.csv"
    f.write_text("run,time_s,flow,throughput_mbps,target_mbps\n0,1.0,gcc,0.1,\n")
    p = subprocess.run([sys.executable, str(SCRIPT), "series", "gcc", "0", "10", str(f)], capture_output=True, text=True)
    assert p.returncode != 0 and "no target_mbps of flow 'gcc'" in p.stderr and "Traceback" not in p.stderr


def _rtp(seq, ts, ssrc, size, marker=False):
    import struct

    head = bytes([0x80, (0x80 if marker else 0) | 118]) + struct.pack(">HII", seq, ts, ssrc)
    body = head + b"\0" * (size - 20 - 8 - 12)
    udp = struct.pack(">HHHH", 5000, 5001, 8 + len(body), 0) + body
    return bytes([0x45, 0]) + struct.pack(">H", 20 + len(udp)) + b"\0" * 5 + bytes([17]) + b"\0" * 10 + udp


def test_fec_split_media_ulpfec_and_rtx(tmp_path):
    import json
    import struct

    m = _module()
    # One second (t 0..1 s): frame A = 2 media packets (marker on the 2nd, sequence wrapping
    # 65535 -> 0) + 1 FEC packet behind it; frame B = 1 media packet; 1 RTX packet.
    pkts = [(0.1, _rtp(65535, 0, 7, 1000)), (0.1, _rtp(1, 0, 7, 500)), (0.1, _rtp(0, 0, 7, 1000, marker=True)),
            (0.5, _rtp(2, 3000, 7, 800, marker=True)), (0.6, _rtp(9, 3000, 8, 700))]
    data = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101)
    for t, p in pkts:
        data += struct.pack("<IIII", int(t), int(round((t % 1) * 1e6)), len(p), len(p)) + p
    (tmp_path / "bottleneck-forward.pcap").write_bytes(data)
    (tmp_path / "bottleneck-forward.csv").write_text("arrival_us,size,flow\n100000,1000,v\n")
    (tmp_path / "browser.json").write_text(json.dumps({"t0_unix_s": 1000.0, "ssrcs": {"7": "v"}}))
    (tmp_path / "getstats.json").write_text(json.dumps([
        {"t_unix_s": 1000.2, "kind": "transport", "available_outgoing_bitrate_bps": 40000},
        {"t_unix_s": 1000.2, "kind": "video", "flow": "v", "ssrc": 7, "rtx_ssrc": 8, "target_bitrate_bps": 20000},
    ]))
    r = m.fec_split(tmp_path, 0.0, 1.0)
    assert r["target"] == 40 and r["encoder"] == 20
    assert r["media"] == pytest.approx((1000 + 1000 + 800) * 8 / 1e3)
    assert r["fec"] == pytest.approx(500 * 8 / 1e3)
    assert r["rtx"] == pytest.approx(700 * 8 / 1e3)


def test_chain_compares_target_bitrate_with_the_wire_share(tmp_path, capsys):
    import json
    import struct

    m = _module()
    run = tmp_path / "run-1"
    run.mkdir()
    # The same second as above: media 2800 B, ULPFEC 500 B, RTX 700 B.
    pkts = [(0.1, _rtp(65535, 0, 7, 1000)), (0.1, _rtp(1, 0, 7, 500)), (0.1, _rtp(0, 0, 7, 1000, marker=True)),
            (0.5, _rtp(2, 3000, 7, 800, marker=True)), (0.6, _rtp(9, 3000, 8, 700))]
    data = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101)
    for t, p in pkts:
        data += struct.pack("<IIII", int(t), int(round((t % 1) * 1e6)), len(p), len(p)) + p
    (run / "bottleneck-forward.pcap").write_bytes(data)
    (run / "bottleneck-forward.csv").write_text("arrival_us,size,flow\n100000,1000,v\n")
    (run / "browser.json").write_text(json.dumps({"t0_unix_s": 1000.0, "ssrcs": {"7": "v"}}))
    (run / "getstats.json").write_text(json.dumps([
        {"t_unix_s": 1000.7, "kind": "transport", "available_outgoing_bitrate_bps": 40000},
        {"t_unix_s": 1000.7, "kind": "video", "flow": "v", "ssrc": 7, "rtx_ssrc": 8, "target_bitrate_bps": 20000},
    ]))
    kinds = [k for _, k, _ in m.wire_events(run)]
    assert sorted(kinds) == ["f", "m", "m", "m", "r"]
    m.chain(tmp_path, 0.0, 1.0, 0.06)
    out = capsys.readouterr().out
    # Protection share (500 + 700) / 4000 = 0.30; chain 40000 x 0.94 x 0.70 = 26320.
    ratio = 20000 / 26320
    assert f"{ratio:.2f} / {ratio:.2f} / {ratio:.2f}" in out and "0.30 / 0.30" in out and "| 0.50 |" in out


def test_chain_bad_input_is_one_line(tmp_path):
    (tmp_path / "run-1").mkdir()
    for args, why in ((["5", "1"], "start < end"), (["0", "1", "--overhead", "1.5"], "--overhead")):
        r = subprocess.run([sys.executable, str(SCRIPT), "chain", str(tmp_path), *args], capture_output=True, text=True)
        assert r.returncode != 0 and why in r.stderr and r.stderr.strip().count("\n") == 0
    r = subprocess.run([sys.executable, str(SCRIPT), "chain", str(tmp_path / "none"), "0", "1"], capture_output=True, text=True)
    assert r.returncode != 0 and "no run-* folders" in r.stderr


def test_overshoot_factors_count_leftover_in_input_frames():
    gs = _module()
    # 100 kbit/s, 30 frames/s input: ideal 3333 bits. Frames of 110 kbit once a second
    # leave 10 kbit at the next frame: 1 + 10000 / 3333; frames of 100 kbit leave none.
    big = gs.overshoot_factors([(0.0, 13_750), (1.0, 13_750)], lambda t: 100_000, 30.0)
    assert abs(big[0][1] - 110_000 / 3333) < 1e-9
    assert abs(big[1][1] - (1 + 10_000 / 3333)) < 1e-9
    exact = gs.overshoot_factors([(0.0, 12_500), (1.0, 12_500)], lambda t: 100_000, 30.0)
    assert exact[1][1] == 1.0
    # No rate yet: the frame is skipped.
    assert gs.overshoot_factors([(0.0, 100)], lambda t: None, 30.0) == []


def test_falls_counts_depth_share_and_loss(tmp_path, capsys):
    m = _module()
    # One run, 0.5 s bins: target 1.0 for 2 s, then a fall to 0.7 (with a loss in the bin
    # before) and 0.68 (-3 %, not a fall); throughput 0.8 before the fall.
    rows = ["run,time_s,flow,throughput_mbps,target_mbps,lost_packets,sent_packets"]
    targets = [1.0, 1.0, 1.0, 1.0, 0.7, 0.68]
    for k, t in enumerate(targets):
        rows.append(f"0,{k * 0.5},gcc,0.8,{t},{1 if k == 3 else 0},100")
    path = tmp_path / "c" / "timeseries.csv"
    path.parent.mkdir()
    path.write_text("\n".join(rows) + "\n")
    m.falls([path], "gcc", 0.0, 3.0)
    cells = [c.strip() for c in capsys.readouterr().out.strip().splitlines()[-1].strip("|").split("|")]
    assert cells[1] == "1"
    assert cells[2] == "20.00"  # one fall in 3 s
    assert cells[3].startswith("0.70")
    assert cells[4].startswith("0.80")
    assert cells[5] == "1.00"


def test_target_falls_robust_rate_leaves_out_the_largest_gap():
    m = load_script("gcc_target_falls")
    # 12 packets of 1000 B sent every 12 ms, received every 10 ms, the last after a 510 ms
    # gap: receive rate = 11 x 1000 B / (610 ms - 510 ms + 10 ms) = 0.8 Mbit/s (without the
    # gap rule 0.14), send rate = 11 x 1000 B / 132 ms = 0.67: the estimate is the send rate.
    win = [(k * 12_000, k * 10_000, 1000) for k in range(11)] + [(132_000, 610_000, 1000)]
    r = m.robust_rate(win)
    send = 11 * 1000 * 8 / 132_000
    recv = 11 * 1000 * 8 / (610_000 - 510_000 + 10_000)
    assert recv > send
    assert abs(r - min(send, recv)) < 1e-12
    assert m.robust_rate(win[:9]) is None


def test_target_falls_bad_input_is_one_line(tmp_path):
    script = ROOT / "scripts" / "gcc_target_falls.py"
    r = subprocess.run([sys.executable, str(script), "trace", "0", "10", str(tmp_path / "none")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and r.stderr.strip().splitlines() == [f"no such trace: {tmp_path / 'none'}"]


def test_step_causes_attributes_each_decrease_of_the_target():
    """scripts/gcc_target_falls.py step_causes on a hand-made event log: a decrease
    with the delay-based estimate falling while overusing is AIMD's, with a probe
    result in the same report a probe's, with the delay-based estimate not falling
    the loss-based side's; rises are not decreases."""
    m = load_script("gcc_target_falls")
    sys.path.insert(0, str(ROOT / "scripts"))
    import rtc_event_log as rel

    log = rel.EventLog(begin_t_ms=0, begin_unix_s=100.0)
    d = lambda t, b, s: rel.DelayBasedUpdate(t, log.unix_s(t), b, s)  # noqa: E731
    lb = lambda t, b: rel.LossBasedUpdate(t, log.unix_s(t), b, 0.0, 0)  # noqa: E731
    log.delay_based = [d(0, 1_000_000, "normal"), d(1000, 850_000, "overusing"), d(2000, 900_000, "normal"),
                       d(3001, 700_000, "normal"), d(4000, 950_000, "normal")]
    log.loss_based = [lb(0, 1_000_000), lb(1001, 850_000), lb(2000, 900_000), lb(3000, 700_000),
                      lb(4000, 950_000), lb(5000, 800_000)]
    log.probe_success = [rel.ProbeSuccess(3000, log.unix_s(3000), 1, 700_000)]
    steps = m.step_causes(log, 100.0)
    assert [(round(s["t"], 6), s["prev"], s["new"], s["cause"]) for s in steps] == [
        (1.001, 1.0, 0.85, "delay-based AIMD"),
        (3.0, 0.9, 0.7, "probe result"),
        (5.0, 0.95, 0.8, "loss-based"),
    ]


def test_step_causes_takes_the_last_target_of_a_report():
    """A probe result raises the target and loss-based BWE v2 caps it again in the same
    millisecond: no decrease (getStats shows the last value)."""
    m = load_script("gcc_target_falls")
    sys.path.insert(0, str(ROOT / "scripts"))
    import rtc_event_log as rel

    log = rel.EventLog(begin_t_ms=0, begin_unix_s=0.0)
    log.delay_based = [rel.DelayBasedUpdate(0, 0.0, 100_000, "normal"), rel.DelayBasedUpdate(500, 0.5, 200_000, "normal")]
    log.loss_based = [rel.LossBasedUpdate(0, 0.0, 100_000, 0.0, 0), rel.LossBasedUpdate(500, 0.5, 200_000, 0.0, 0),
                      rel.LossBasedUpdate(500, 0.5, 100_000, 0.0, 0)]
    assert m.step_causes(log, 0.0) == []
    assert [u.bitrate_bps for u in m.report_targets(log)] == [100_000, 100_000]


def test_overuse_episodes_measure_duration_depth_and_time_since_the_last_change():
    m = load_script("gcc_target_falls")
    rows = [(0.0, 100.0, False), (0.1, 101.0, False), (0.3, 101.0, False), (0.4, 101.0, True), (0.5, 80.0, True),
            (0.6, 80.0, False), (0.7, 81.0, False), (0.8, 81.0, True), (0.85, 81.0, False)]
    eps = m.overuse_episodes(rows, 0.0, 1.0)
    assert [(round(e["duration_ms"]), round(e["low_ratio"], 3), round(e["since_change_ms"])) for e in eps] == [
        (200, round(80 / 101, 3), 300),  # 0.4-0.6 s, the estimate unchanged since 0.1 s
        (50, 1.0, 100),  # 0.8-0.85 s, nothing lowered, 100 ms after the change at 0.7 s
    ]
    assert m.overuse_episodes(rows, 0.5, 1.0) == eps[1:]


def test_stages_reads_the_chain_trace(tmp_path, capsys):
    m = _module()
    # Target 1 Mbit/s; 0.95 after the overhead, 0.76 after the FEC cut, 0.5 after the
    # adjuster (factor 1.52); 10 frames/s of 5000 B; 1 Mbit/s x 0.8 on the wire (100
    # packets/s of 1000 B).
    lines = ["S 0 1000000 950000 760000 500000"]
    lines += [f"F {k * 100_000} 5000 0 500000" for k in range(30)]
    lines += [f"P {k * 10_000} 1000 0 {k // 10}" for k in range(300)]
    trace = tmp_path / "c.trace"
    trace.write_text("\n".join(lines) + "\n")
    m.stages([trace], 1.0, 3.0, "encoder")
    row = capsys.readouterr().out.strip().splitlines()[2]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1:4] == ["sim", "10", "1000"]
    assert cells[4:] == ["0.80", "0.50", "0.80", "1.52", "10", "5000"]


def test_stages_bad_input_is_one_line(tmp_path):
    bad = tmp_path / "bad.trace"
    bad.write_text("S 0 x 1 2 3\n")
    p = subprocess.run([sys.executable, str(SCRIPT), "stages", "0", "1", str(bad)], capture_output=True, text=True)
    assert p.returncode != 0 and "bad.trace:1: not a chain trace line" in p.stderr and "Traceback" not in p.stderr
    empty = tmp_path / "empty.trace"
    empty.write_text("T 0 1 2 3 4 0 None 5\n")
    p = subprocess.run([sys.executable, str(SCRIPT), "stages", "0", "1", str(empty)], capture_output=True, text=True)
    assert p.returncode != 0 and "no S, F or P lines" in p.stderr and "Traceback" not in p.stderr
    p = subprocess.run([sys.executable, str(SCRIPT), "stages", "0", "1", str(tmp_path / "x")], capture_output=True, text=True)
    assert p.returncode != 0 and p.stderr.strip() == f"no such run folder or trace file: {tmp_path / 'x'}"
