"""A video flow's frame figures: summary.json ``video``, the time series' frame
columns, the ``playout`` overrides, and ``flowstate.freezes`` on any render times."""

import math

import pytest

import flowstate
from flowstate import FlowstateError, ScenarioError

VIDEO_KEYS = {
    "frames_encoded", "frames_rendered", "frames_dropped_encoder", "frames_lost", "frames_late",
    "frame_delay_ms", "fps", "freezes", "freeze_duration_s", "freezes_per_min", "pauses",
    "pause_duration_s",
}


def scenario(video_kind="gcc", overrides=None, loss=0.0):
    video = {"name": "video", "kind": video_kind}
    if overrides:
        video["overrides"] = overrides
    return {
        "name": "frames",
        "duration": "20s",
        "link": {"capacity": "2Mbps", "delay": "25ms", "queue": "200ms", "loss": loss},
        "flows": [video, {"name": "bulk", "kind": "tcp-cubic"}],
    }


@pytest.mark.parametrize("kind", ["gcc", "nada", "scream", "scream-v2"])
def test_every_video_kind_reports_its_frames_and_others_do_not(kind):
    result = flowstate.run(scenario(kind))
    video, bulk = result.summary["flows"]
    assert set(video["video"]) == VIDEO_KEYS
    assert set(video["video"]["frame_delay_ms"]) == {"mean", "p50", "p95", "p99"}
    assert "video" not in bulk
    v = video["video"]
    assert v["frames_rendered"] > 0 and 0 < v["fps"] <= 30.5
    assert v["frames_lost"] + v["frames_rendered"] <= v["frames_encoded"] + 30
    assert v["frame_delay_ms"]["p50"] <= v["frame_delay_ms"]["p95"] <= v["frame_delay_ms"]["p99"]
    ts = result.timeseries
    frames = ts[ts["flow"] == "video"]
    assert frames["fps"].notna().all() and frames["freezes"].notna().all()
    assert ts[ts["flow"] == "bulk"][["fps", "frame_delay_ms", "freezes"]].isna().all().all()
    # The rendered frames of the bins are the window's.
    assert sum(frames["fps"] * 0.5) == pytest.approx(v["frames_rendered"])
    assert frames["freezes"].sum() == v["freezes"]


def test_the_model_only_observes():
    plain = flowstate.run(scenario(loss=0.02))
    short = flowstate.run(scenario(overrides={"playout": "fixed", "playout_delay_ms": 60}, loss=0.02))
    fixed = flowstate.run(scenario(overrides={"playout": "fixed"}, loss=0.02))
    chain = flowstate.run(scenario(overrides={"reference_chain": True}, loss=0.02))
    strip = lambda s: [{k: v for k, v in f.items() if k != "video"} for f in s["flows"]]
    runs = (plain, short, fixed, chain)
    assert all(strip(r.summary) == strip(plain.summary) for r in runs)
    a, b, c, d = (r.summary["flows"][0]["video"] for r in runs)
    assert a["frames_encoded"] == b["frames_encoded"] == c["frames_encoded"] == d["frames_encoded"]
    # 60 ms from capture to screen on a 25 ms path with a queue: half the frames miss
    # it and reach the screen when they can (p50 above 60 + 5 ms decode); the default
    # 150 ms holds for more than half of them; a shorter delay.
    assert b["frame_delay_ms"]["p50"] > 65 and b["frame_delay_ms"]["mean"] > 75
    assert b["frame_delay_ms"]["p50"] < c["frame_delay_ms"]["p50"] == pytest.approx(150.0)
    # With the reference chain, a loss stops the video until the next key frame.
    assert d["frames_lost"] > 5 * a["frames_lost"] and d["fps"] < a["fps"] / 2


def test_runs_aggregate_the_video_figures_with_their_spread():
    result = flowstate.run(scenario(), runs=2)
    video = result.summary["flows"][0]["video"]
    per_run = [r["flows"][0]["video"]["fps"] for r in result.runs]
    assert video["fps"] == pytest.approx(sum(per_run) / 2)
    assert "fps" in result.summary["flows"][0]["spread"]["video"]
    flows = result.flows
    assert {"video_fps", "video_freezes_per_min", "video_frame_delay_p95_ms"} <= set(flows.columns)
    assert math.isnan(flows[flows["flow"] == "bulk"]["video_fps"].iloc[0])


@pytest.mark.parametrize("overrides, key", [
    ({"playout": "smooth"}, "overrides.playout"),
    ({"playout_delay_ms": 100}, "overrides.playout_delay_ms"),
    ({"playout": "fixed", "playout_delay_ms": -5}, "overrides.playout_delay_ms"),
    ({"decode_time_ms": 0}, "overrides.decode_time_ms"),
    ({"reference_chain": "yes"}, "overrides.reference_chain"),
])
def test_bad_playout_options_are_one_line_errors_at_their_key(overrides, key):
    with pytest.raises(ScenarioError) as e:
        flowstate.run(scenario(overrides=overrides))
    message = str(e.value)
    assert "\n" not in message and key in message, message


def test_freezes_applies_the_w3c_rules_to_any_render_times():
    steady = [i / 30 for i in range(60)]
    assert flowstate.freezes(steady) == {
        "frames": 60, "freezes": 0, "freeze_duration_s": 0.0, "pauses": 0, "pause_duration_s": 0.0,
    }
    # A 400 ms gap after 2 s of 30 frames/s: a freeze; a 6 s gap: a pause.
    frozen = steady + [steady[-1] + 0.4]
    assert flowstate.freezes(frozen)["freezes"] == 1
    assert flowstate.freezes(frozen)["freeze_duration_s"] == pytest.approx(0.4)
    paused = flowstate.freezes(steady + [steady[-1] + 6.0])
    assert (paused["freezes"], paused["pauses"]) == (0, 1)
    assert flowstate.freezes([]) ["frames"] == 0


@pytest.mark.parametrize("times", [[0.0, -1.0], [0.0, float("nan")], [1.0, 0.5]])
def test_freezes_refuses_bad_times_in_one_line(times):
    with pytest.raises(FlowstateError) as e:
        flowstate.freezes(times)
    assert "\n" not in str(e.value) and "render_times_s" in str(e.value)
