"""Issue 21's CUBIC cases: scripts/cubic_queue.py (the shared queue's figures from a real
run's per-packet record) and the `pacer_burst_ms` override of gcc flows."""

from __future__ import annotations


import pytest
from script_support import load_script



def _module():
    return load_script("cubic_queue")


def test_episodes_join_drops_at_most_0_3_s_apart():
    cq = _module()
    n = 100  # 10 s of 0.1 s bins
    tcp = [0] * n
    vid = [0] * n
    tcp[10] = tcp[12] = 1  # one episode (0.2 s apart) ...
    vid[13] = 1  # ... in which the video loses too
    tcp[50] = 2  # a second one, 3.7 s later
    tcp[54] = 1  # 0.4 s after it: a third
    r = cq.reduce_bins([100.0] * n, tcp, vid, vid_sent=50)
    assert r["period_s"] == pytest.approx(10.0 / 3)
    assert r["drops_per_episode"] == pytest.approx(6 / 3)
    assert r["episodes_with_video_drop"] == pytest.approx(1 / 3)
    assert r["video_loss_pct"] == pytest.approx(2.0)
    assert r["q_p50"] == 100.0


def test_real_run_counts_drops_and_back_to_back_video(tmp_path):
    cq = _module()
    rows = ["arrival_us,departure_us,model_departure_us,queue_delay_us,size,class,protocol,src,dst,src_port,dst_port,ssrc,flow"]
    t = 0
    for k in range(100):  # a TCP packet every 10 ms, the 50th dropped
        dep = "" if k == 50 else str(t + 5000)
        rows.append(f"{t},{dep},{dep},{0 if k == 50 else 200000},1500,tcp,6,a,b,1,7000,,tcp")
        t += 10_000
    for k in range(10):  # five video frames of two packets 0.3 ms apart; one lost
        base = k // 2 * 200_000 + (300 if k % 2 else 0)
        dep = "" if k == 3 else str(base + 5000)
        rows.append(f"{base},{dep},{dep},0,1100,rtp,17,a,b,1,2,3,gcc")
    rows[1:] = sorted(rows[1:], key=lambda r: int(r.split(",")[0]))
    path = tmp_path / "bottleneck-forward.csv"
    path.write_text("\n".join(rows) + "\n")
    r = cq.real_run(path, 0.0, 1.0, "gcc")
    assert r["video_loss_pct"] == pytest.approx(10.0)
    assert r["video_back_to_back"] == pytest.approx(5 / 9)
    assert r["q_p50"] == pytest.approx(200.0)
    assert r["drops_per_episode"] == pytest.approx(2.0)  # the TCP and the video drop: one episode


def test_bad_input_is_one_line(tmp_path, capsys):
    cq = _module()
    assert cq.main(["--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "no real runs there" in err and "\n" not in err
    assert cq.main(["--out", str(tmp_path), "--only", "p000-fig2"]) == 2
    assert "not one of" in capsys.readouterr().err


def _gcc_alone(overrides: dict) -> dict:
    return {
        "name": "burst",
        "duration": "10s",
        "link": {"capacity": "1Mbps", "delay": "25ms", "queue": "300ms"},
        "flows": [{"name": "gcc", "kind": "gcc", "preset": "chromium-m156", "overrides": overrides}],
    }


def test_pacer_burst_ms_default_is_the_presets_and_another_changes_the_run():
    import flowstate

    # chromium-m156: the media debt's 40 ms (kDefaultTimeInterval); the budget pacer's
    # 5 ms without it and in the paper-era presets.
    base = flowstate.run(_gcc_alone({}), seed=1, runs=1)
    five = flowstate.run(_gcc_alone({"pacer_burst_ms": 5}), seed=1, runs=1)
    forty = flowstate.run(_gcc_alone({"pacer_burst_ms": 40}), seed=1, runs=1)
    assert base.trace_hashes == forty.trace_hashes
    assert base.trace_hashes != five.trace_hashes
    budget = flowstate.run(_gcc_alone({"chromium_pacer": False}), seed=1, runs=1)
    budget5 = flowstate.run(_gcc_alone({"chromium_pacer": False, "pacer_burst_ms": 5}), seed=1, runs=1)
    budget40 = flowstate.run(_gcc_alone({"chromium_pacer": False, "pacer_burst_ms": 40}), seed=1, runs=1)
    assert budget.trace_hashes == budget5.trace_hashes != budget40.trace_hashes


def test_pacer_burst_ms_out_of_range_is_one_line():
    import flowstate

    for bad, why in ((0, "must be a number > 0"), (0.05, "between 0.1 and 1000 ms"), (5000, "between 0.1 and 1000 ms")):
        with pytest.raises(Exception) as e:
            flowstate.run(_gcc_alone({"pacer_burst_ms": bad}), seed=1, runs=1)
        msg = str(e.value)
        assert "flows[0].overrides.pacer_burst_ms" in msg and why in msg and "\n" not in msg


def test_chromium_pacer_default_on_and_off_changes_the_run():
    import flowstate

    base = flowstate.run(_gcc_alone({}), seed=1, runs=1)
    off = flowstate.run(_gcc_alone({"chromium_pacer": False}), seed=1, runs=1)
    on = flowstate.run(_gcc_alone({"chromium_pacer": True}), seed=1, runs=1)
    # pacer_burst_ms is the media-debt rule's interval when both are given.
    on40 = flowstate.run(_gcc_alone({"chromium_pacer": True, "pacer_burst_ms": 40}), seed=1, runs=1)
    on10 = flowstate.run(_gcc_alone({"chromium_pacer": True, "pacer_burst_ms": 10}), seed=1, runs=1)
    assert base.trace_hashes == on.trace_hashes
    assert base.trace_hashes != off.trace_hashes
    assert on.trace_hashes == on40.trace_hashes
    assert on.trace_hashes != on10.trace_hashes


def test_chromium_pacer_not_a_bool_is_one_line():
    import flowstate

    with pytest.raises(Exception) as e:
        flowstate.run(_gcc_alone({"chromium_pacer": "yes"}), seed=1, runs=1)
    msg = str(e.value)
    assert "flows[0].overrides.chromium_pacer" in msg and "\n" not in msg


def test_low_rate_fps_default_off_and_on_sends_fewer_larger_frames():
    import flowstate

    scen = _gcc_alone({"max_rate": "80kbps", "video_max_rate": "80kbps"})
    base = flowstate.run(scen, seed=1, runs=1)
    off = flowstate.run(_gcc_alone({"max_rate": "80kbps", "video_max_rate": "80kbps", "low_rate_fps": False}), seed=1, runs=1)
    on = flowstate.run(_gcc_alone({"max_rate": "80kbps", "video_max_rate": "80kbps", "low_rate_fps": True}), seed=1, runs=1)
    assert base.trace_hashes == off.trace_hashes
    sent = lambda r: r.runs[0]["flows"][0]["sent_packets"]  # noqa: E731
    # Under 100 kbit/s: 1 frame/s of several full packets instead of 30 small ones.
    assert sent(on) < 0.5 * sent(base)
