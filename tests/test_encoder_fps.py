"""Issue 21: scripts/encoder_fps.py (the real encoder's frame rate from getStats and the
frame sizes from the bottleneck's pcap) and the `vp8_frame_drop` override of gcc flows."""

from __future__ import annotations

import json
import struct
import sys

import pytest
from script_support import load_script



def _module():
    return load_script("encoder_fps")


def _sample(t, frames, nbytes, qp):
    return {
        "t_unix_s": t, "flow": "v", "kind": "video", "sending": True, "frames_encoded": frames,
        "frames_sent": frames, "bytes_sent": nbytes, "header_bytes_sent": 0, "qp_sum": qp,
        "key_frames_encoded": 0, "target_bitrate_bps": 100_000, "frame_width": 320, "frame_height": 180,
        "quality_limitation_reason": "bandwidth", "source_frames": 30 * t, "frames_per_second": 2,
    }


def test_per_second_rates_sizes_and_q_index():
    ef = _module()
    # 2 frames of 6250 B a second at q index 106, sampled every 0.5 s, for 20 s.
    samples = [_sample(1000 + i * 0.5, i, i * 6250, i * 106) for i in range(41)]
    rows = ef.per_second(samples)
    assert rows and all(r["t"] >= ef.SKIP_S for r in rows)
    r = rows[0]
    assert r["fps"] == pytest.approx(2.0)
    assert r["src_fps"] == pytest.approx(30.0)
    assert r["frame_bytes"] == pytest.approx(6250)
    assert r["qp"] == pytest.approx(106)
    s = ef.summarize(rows)
    # target / size: 100 kbit/s / (8 x 6250 B) = 2 frames/s
    assert s["predicted_fps"] == pytest.approx(2.0)


def _rtp(ts, ssrc, payload, ext_words=0, pt=96):
    head = bytes([0x90 if ext_words else 0x80, pt]) + struct.pack(">HII", 1, ts, ssrc)
    if ext_words:
        head += struct.pack(">HH", 0xBEDE, ext_words) + b"\0" * (4 * ext_words)
    body = head + b"\0" * (payload + 10)  # + the SRTP tag
    udp = struct.pack(">HHHH", 5000, 5001, 8 + len(body), 0) + body
    ip = bytes([0x45, 0]) + struct.pack(">H", 20 + len(udp)) + b"\0" * 5 + bytes([17]) + b"\0" * 10
    return ip + udp


def test_pcap_frames_group_by_timestamp_and_gap(tmp_path):
    ef = _module()
    pkts = [
        _rtp(0, 7, 1000, ext_words=2), _rtp(0, 7, 500),        # frame 1: 1500 B payload
        _rtp(3000, 7, 800),                                     # frame 2, 1/30 s later
        _rtp(3000, 9, 999),                                     # another SSRC: ignored
        _rtp(12000, 7, 700, pt=200),                            # RTCP (PT 200): ignored
        _rtp(15000, 7, 900),                                    # frame 3, 4 frames later
    ]
    data = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101)
    for p in pkts:
        data += struct.pack("<IIII", 0, 0, len(p), len(p)) + p
    (tmp_path / "bottleneck-forward.pcap").write_bytes(data)
    (tmp_path / "browser.json").write_text(json.dumps({"ssrcs": {"7": "v"}}))
    fr = ef.pcap_frames(tmp_path)
    assert [f["payload"] for f in fr] == [1500, 800, 900]
    assert [f["packets"] for f in fr] == [2, 1, 1]
    assert fr[0]["gap_s"] is None
    assert fr[1]["gap_s"] == pytest.approx(1 / 30)
    assert fr[2]["gap_s"] == pytest.approx(4 / 30)


def test_floor_fit_recovers_a_saturating_line():
    ef = _module()
    frames = [{"gap": g, "payload": min(6000, 2000 + 500 * (g - 1))} for g in range(1, 30) for _ in range(3)]
    base, per, top, rms = ef.floor_fit(frames)
    assert (base, per, top) == (2000, 500, 6000)
    assert rms == pytest.approx(0.0)


def _run(tmp_path, overrides):
    import subprocess

    from flowstate import _native

    doc = {
        "name": "t", "duration": "30s", "seed": 1,
        "link": {"capacity": "1Mbps", "delay": "25ms", "queue": "300ms"},
        "flows": [{"name": "v", "kind": "gcc", "preset": "chromium-m156",
                   "overrides": {"video_max_rate": "100kbps", **overrides}}],
        "measure": {"start": "10s"},
    }
    path = tmp_path / "s.toml"
    path.write_text(_native.scenario_toml(doc))
    out = tmp_path / ("o-" + "-".join(sorted(overrides)))  # a folder per run: a used one is refused
    p = subprocess.run([sys.executable, "-m", "flowstate", "run", str(path), "--out", str(out)],
                       capture_output=True, text=True)
    return p, out


def test_vp8_frame_drop_sends_few_large_frames_at_100_kbps(tmp_path):
    p, out = _run(tmp_path, {"vp8_frame_drop": True})
    assert p.returncode == 0, p.stderr
    on = json.loads((out / "summary.json").read_text())["flows"][0]
    p, out = _run(tmp_path, {})
    off = json.loads((out / "summary.json").read_text())["flows"][0]
    # 30 frames/s of one ~400 B packet without; ~1.5 frames/s of ~7 packets with.
    assert off["sent_packets"] > 25 * 20
    assert on["sent_packets"] < 0.6 * off["sent_packets"]
    assert on["throughput_mbps"] == pytest.approx(off["throughput_mbps"], rel=0.5)


def test_vp8_frame_drop_excludes_low_rate_fps(tmp_path):
    p, _ = _run(tmp_path, {"vp8_frame_drop": True, "low_rate_fps": True})
    assert p.returncode != 0
    msg = p.stderr + p.stdout
    assert "vp8_frame_drop" in msg and "low_rate_fps" in msg
    assert "Traceback" not in msg
