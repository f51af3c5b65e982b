"""flowstate.run: scenarios as dicts and files, summaries against hand-computed values,
determinism across seeds and thread counts, outputs, and every kind of bad input."""

import json
import statistics
import threading
import time

import pandas
import pandas.testing
import pytest

import flowstate
from flowstate import ScenarioError


def cbr(name, rate, **extra):
    return {"name": name, "kind": "cbr", "overrides": {"rate": rate, "packet_size": "1000B"}, **extra}


def scenario(*flows, duration="10s", **link):
    return {
        "name": "test",
        "duration": duration,
        "link": {"capacity": "2Mbps", "delay": "25ms", "queue": "300ms", **link},
        "flows": list(flows) or [cbr("a", "1Mbps")],
    }


LOSSY = scenario(cbr("a", "1Mbps"), cbr("b", "0.5Mbps"), loss=0.05)

SERIES_COLUMNS = [
    "run", "seed", "time_s", "flow", "send_rate_mbps", "throughput_mbps", "goodput_mbps",
    "queuing_delay_ms", "rtt_ms", "sent_packets", "lost_packets", "capacity_mbps", "target_mbps", "group",
    "fps", "frame_delay_ms", "freezes",
]


def test_half_loaded_link_summary():
    # 1 Mbit/s of 1000 B packets = 125 packets/s on a 2 Mbit/s link: each packet takes
    # 4 ms to serialize and the next comes 8 ms later, so nothing ever queues.
    result = flowstate.run(scenario())
    s = result.summary
    assert s["scenario"] == "test" and s["seed"] == 1 and s["seeds"] == [1] and s["runs"] == 1
    assert s["duration_s"] == 10.0 and s["window_s"] == [0.0, 10.0]
    (flow,) = s["flows"]
    assert flow["name"] == "a" and flow["kind"] == "cbr" and flow["priority"] == 1.0
    assert 1249 <= flow["sent_packets"] <= 1251
    assert flow["send_rate_mbps"] == pytest.approx(1.0, abs=0.002)
    # Packets still in flight at the end (29 ms of 1 Mbit/s) are not counted.
    assert 0.99 <= flow["throughput_mbps"] <= 1.0
    assert flow["loss_ratio"] == 0.0 and flow["lost_packets"] == 0
    assert flow["queuing_delay_ms"]["p95"] == pytest.approx(0.0, abs=0.05)
    assert flow["rtt_ms"] == {"mean": None, "p50": None, "p95": None}  # cbr has no feedback
    assert flow["share"] == 1.0 and flow["priority_share"] == 1.0
    agg = s["aggregate"]
    assert agg["utilization"] == pytest.approx(0.5, abs=0.005)
    assert agg["jain_index"] == 1.0
    assert agg["throughput_mbps"] == flow["throughput_mbps"]
    assert result.runs == [{k: v for k, v in s.items() if k not in ("seeds", "runs")}]


def test_ecn_flows_report_marks_and_responses_and_others_do_not():
    tcp = {"name": "t", "kind": "tcp-newreno", "ecn": "ect0"}
    r = flowstate.run(scenario(tcp, cbr("c", "0.5Mbps", ecn="ECT1"), cbr("d", "0.2Mbps"), duration="3s"))
    flows = {f["name"]: f for f in r.summary["flows"]}
    # The drop-tail link never marks: zero marks, and TCP's responses are counted.
    assert (flows["t"]["ce_marks"], flows["t"]["ecn_responses"]) == (0, 0)
    assert flows["c"]["ce_marks"] == 0 and "ecn_responses" not in flows["c"]
    assert "ce_marks" not in flows["d"] and "ecn_responses" not in flows["d"]
    with pytest.raises(ScenarioError, match=r"flows\[0\]\.ecn: unknown variant `on`"):
        flowstate.run(scenario({**tcp, "ecn": "on"}))


def test_weighted_jain_index_is_jain_over_throughput_per_priority_share():
    # Two cbr flows at 1.5 and 0.5 Mbit/s on a 4 Mbit/s link (nothing queues or drops):
    # Jain's index of the throughputs is 0.8; with priorities 3:1 every flow gets exactly
    # the share its priority asks for, so the priority-weighted index is 1.
    s = flowstate.run(
        scenario(cbr("a", "1.5Mbps", priority=3.0), cbr("b", "0.5Mbps", priority=1.0), capacity="4Mbps")
    ).summary
    agg = s["aggregate"]
    assert agg["jain_index"] == pytest.approx(0.8, abs=0.005)
    assert agg["weighted_jain_index"] == pytest.approx(1.0, abs=0.005)
    xs = [f["throughput_mbps"] / f["priority_share"] for f in s["flows"]]
    assert agg["weighted_jain_index"] == pytest.approx(sum(xs) ** 2 / (2 * sum(x * x for x in xs)), rel=1e-12)
    # Equal priorities: the same as Jain's index.
    s = flowstate.run(scenario(cbr("a", "1.5Mbps"), cbr("b", "0.5Mbps"), capacity="4Mbps")).summary
    assert s["aggregate"]["weighted_jain_index"] == pytest.approx(s["aggregate"]["jain_index"], rel=1e-12)


def test_timeseries_and_flows_frames():
    result = flowstate.run(scenario(cbr("a", "1Mbps"), cbr("b", "0.5Mbps", start="2s")), runs=2)
    ts = result.timeseries
    assert list(ts.columns) == SERIES_COLUMNS
    # 10 s in 500 ms bins, two flows, two runs.
    assert len(ts) == 2 * 2 * 20
    assert sorted(ts["seed"].unique()) == [1, 2] and sorted(ts["run"].unique()) == [0, 1]
    a = ts[(ts["run"] == 0) & (ts["flow"] == "a")]
    assert list(a["time_s"]) == [0.5 * i for i in range(20)]
    assert (a["capacity_mbps"] == 2.0).all()
    # 62 or 63 packets of 8000 bit per 500 ms bin: 0.992 or 1.008 Mbit/s.
    assert a["send_rate_mbps"].between(0.991, 1.009).all()
    b = ts[(ts["run"] == 0) & (ts["flow"] == "b")]
    assert (b[b["time_s"] < 2.0]["send_rate_mbps"] == 0.0).all()
    # 0.5 Mbit/s: 31 or 32 packets per bin, 0.496 or 0.512 Mbit/s.
    assert b[b["time_s"] >= 2.0]["send_rate_mbps"].between(0.495, 0.513).all()
    assert ts["rtt_ms"].isna().all() and ts["rtt_ms"].dtype == "float64"

    flows = result.flows
    for column in ("run", "seed", "flow", "kind", "priority", "throughput_mbps", "send_rate_mbps",
                   "rtt_mean_ms", "rtt_p95_ms", "queuing_delay_p50_ms", "queuing_delay_p95_ms",
                   "loss_ratio", "share", "priority_share"):
        assert column in flows.columns, column
    assert len(flows) == 4 and list(flows["flow"]) == ["a", "b", "a", "b"]
    assert flows["share"].groupby(flows["run"]).sum().tolist() == pytest.approx([1.0, 1.0])
    first = result.runs[0]["flows"][1]
    row = flows[(flows["run"] == 0) & (flows["flow"] == "b")].iloc[0]
    assert row["throughput_mbps"] == first["throughput_mbps"]
    assert row["queuing_delay_p95_ms"] == first["queuing_delay_ms"]["p95"]


def test_without_the_series_only_the_summary_is_kept(tmp_path):
    """``[measure] series = false``: the same summary, an empty time series with its
    columns (timeseries.csv: the header only), so a long run's memory stays flat."""
    base = scenario(cbr("a", "1Mbps"), cbr("b", "0.5Mbps"))
    full = flowstate.run(base)
    bare = flowstate.run({**base, "measure": {"series": False}})
    assert bare.summary == full.summary and bare.trace_hashes == full.trace_hashes
    assert len(full.timeseries) == 40
    assert len(bare.timeseries) == 0 and list(bare.timeseries.columns)[:4] == ["run", "seed", "time_s", "flow"]
    bare.write(tmp_path)
    assert (tmp_path / "timeseries.csv").read_text().count("\n") == 1


def test_overloaded_link_is_full():
    # Two 1.5 Mbit/s flows on 2 Mbit/s: once the queue is full (well before 2 s), the
    # link runs full and 1 - 2 / 3 = 1/3 of the packets are dropped. (How the drops
    # split between two strictly periodic flows is a drop-tail phase effect, so only
    # the totals are checked.)
    result = flowstate.run({**scenario(cbr("a", "1.5Mbps"), cbr("b", "1.5Mbps")), "measure": {"start": "2s"}})
    s = result.summary
    assert s["window_s"] == [2.0, 10.0]
    assert s["aggregate"]["utilization"] == pytest.approx(1.0, abs=0.01)
    assert s["aggregate"]["throughput_mbps"] == pytest.approx(2.0, abs=0.02)
    sent = sum(f["sent_packets"] for f in s["flows"])
    lost = sum(f["lost_packets"] for f in s["flows"])
    assert lost / sent == pytest.approx(1 / 3, abs=0.01)
    assert sum(f["share"] for f in s["flows"]) == pytest.approx(1.0)
    for flow in s["flows"]:
        assert flow["send_rate_mbps"] == pytest.approx(1.5, abs=0.01)
        # A 300 ms queue at 2 Mbit/s: every delivered packet waited nearly that long.
        assert 290 <= flow["queuing_delay_ms"]["p50"] <= 300


def test_same_seed_same_result():
    one = flowstate.run(LOSSY, seed=42)
    two = flowstate.run(LOSSY, seed=42)
    assert one.summary == two.summary and one.trace_hashes == two.trace_hashes
    pandas.testing.assert_frame_equal(one.timeseries, two.timeseries)


def test_runs_use_consecutive_distinct_seeds_independent_of_threads():
    serial = flowstate.run(LOSSY, seed=5, runs=3, threads=1)
    parallel = flowstate.run(LOSSY, seed=5, runs=3, threads=2)
    assert serial.seeds == parallel.seeds == [5, 6, 7]
    assert [r["seed"] for r in serial.runs] == [5, 6, 7]
    # Random loss makes each seed's run different...
    assert len(set(serial.trace_hashes)) == 3
    assert len({r["flows"][0]["lost_packets"] for r in serial.runs}) > 1
    # ...and the thread count changes nothing.
    assert serial.runs == parallel.runs and serial.trace_hashes == parallel.trace_hashes
    assert serial.summary == parallel.summary
    pandas.testing.assert_frame_equal(serial.timeseries, parallel.timeseries)
    # A run of a batch is the same run on its own.
    alone = flowstate.run(LOSSY, seed=6)
    assert alone.runs[0] == serial.runs[1] and alone.trace_hashes[0] == serial.trace_hashes[1]


def test_the_recorder_thread_changes_no_result():
    """``[measure] recorder_thread``: the trace hash and window histograms computed on a
    helper thread ("on"; "auto" from 256 flows) are those of the loop ("off"), also
    for runs side by side (threads=2 turns "auto" off, "on" stays)."""
    base = scenario(cbr("a", "1.2Mbps"), cbr("b", "1Mbps"), loss=0.02, duration="6s")
    results = {}
    for mode in ("off", "on", "auto"):
        s = {**base, "measure": {"start": "1s", "recorder_thread": mode}}
        results[mode] = flowstate.run(s, seed=3, runs=2, threads=2)
        alone = flowstate.run(s, seed=3, runs=2, threads=1)
        assert alone.runs == results[mode].runs and alone.trace_hashes == results[mode].trace_hashes
    off = results["off"]
    for mode in ("on", "auto"):
        assert results[mode].runs == off.runs and results[mode].trace_hashes == off.trace_hashes
        pandas.testing.assert_frame_equal(results[mode].timeseries, off.timeseries)


def test_a_pooled_run_has_no_fingerprint_and_no_recorder_thread_unless_asked():
    from flowstate.simulation import as_pooled_run

    plain = scenario()
    pooled = as_pooled_run(plain)
    assert pooled["measure"] == {"trace_hash": False, "recorder_thread": "off"}
    assert "measure" not in plain  # the caller's dict is left as it was
    asked = as_pooled_run({**plain, "measure": {"recorder_thread": "on", "start": "1s"}})
    assert asked["measure"] == {"trace_hash": False, "recorder_thread": "on", "start": "1s"}


def test_a_recorder_thread_that_is_not_a_mode_is_one_line():
    with pytest.raises(ScenarioError, match=r"measure\.recorder_thread: unknown variant `sometimes`") as e:
        flowstate.run({**scenario(), "measure": {"recorder_thread": "sometimes"}})
    assert "\n" not in str(e.value)


def test_batch_summary_means_and_spread():
    result = flowstate.run(LOSSY, seed=5, runs=3)
    s = result.summary
    assert s["runs"] == 3 and s["seeds"] == [5, 6, 7] and s["seed"] == 5
    for i, flow in enumerate(s["flows"]):
        values = [r["flows"][i]["loss_ratio"] for r in result.runs]
        assert flow["loss_ratio"] == pytest.approx(statistics.mean(values))
        spread = flow["spread"]["loss_ratio"]
        assert spread["std"] == pytest.approx(statistics.stdev(values))
        assert (spread["min"], spread["max"]) == (min(values), max(values))
        p95 = [r["flows"][i]["queuing_delay_ms"]["p95"] for r in result.runs]
        assert flow["queuing_delay_ms"]["p95"] == pytest.approx(statistics.mean(p95))
        assert flow["spread"]["queuing_delay_ms"]["p95"]["max"] == max(p95)
        assert flow["rtt_ms"]["mean"] is None and "rtt_ms" not in flow["spread"]
        assert flow["name"] == result.runs[0]["flows"][i]["name"] and "priority" not in flow["spread"]
    utils = [r["aggregate"]["utilization"] for r in result.runs]
    assert s["aggregate"]["utilization"] == pytest.approx(statistics.mean(utils))
    assert s["aggregate"]["spread"]["utilization"]["std"] == pytest.approx(statistics.stdev(utils))


def test_scenario_seed_is_the_default():
    assert flowstate.run({**scenario(), "seed": 9}).seeds == [9]
    assert flowstate.run({**scenario(), "seed": 9}, seed=3, runs=2).seeds == [3, 4]


def test_toml_file_and_dict_agree(tmp_path):
    path = tmp_path / "lossy.toml"
    path.write_text(
        'name = "test"\nduration = "10s"\n'
        '[link]\ncapacity = "2Mbps"\ndelay = "25ms"\nqueue = "300ms"\nloss = 0.05\n'
        '[[flows]]\nname = "a"\nkind = "cbr"\noverrides = { rate = "1Mbps", packet_size = "1000B" }\n'
        '[[flows]]\nname = "b"\nkind = "cbr"\noverrides = { rate = "0.5Mbps", packet_size = "1000B" }\n'
    )
    from_file = flowstate.run(path, seed=2)
    from_str = flowstate.run(str(path), seed=2)
    from_dict = flowstate.run(LOSSY, seed=2)
    assert from_file.summary == from_dict.summary == from_str.summary
    assert from_file.trace_hashes == from_dict.trace_hashes


def test_out_writes_summary_and_timeseries(tmp_path):
    out = tmp_path / "nested" / "out"
    result = flowstate.run(LOSSY, seed=5, runs=2, out=out)
    document = json.loads((out / "summary.json").read_text())
    assert document["per_run"] == result.runs
    assert {k: v for k, v in document.items() if k != "per_run"} == result.summary
    csv = pandas.read_csv(out / "timeseries.csv")
    assert list(csv.columns) == SERIES_COLUMNS
    assert len(csv) == len(result.timeseries)
    pandas.testing.assert_series_equal(csv["throughput_mbps"], result.timeseries["throughput_mbps"])
    single = flowstate.run(scenario(), out=tmp_path / "one")
    assert "per_run" not in json.loads((tmp_path / "one" / "summary.json").read_text())
    assert single.summary["runs"] == 1


def test_progress_is_called_once_per_run():
    calls = []
    flowstate.run(LOSSY, runs=4, threads=2, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_progress_error_propagates():
    def stop(done, total):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        flowstate.run(LOSSY, runs=3, threads=1, progress=stop)


def test_gil_is_released_while_simulating():
    long = scenario(cbr("a", "40Mbps"), duration="120s", capacity="50Mbps")
    worker = threading.Thread(target=flowstate.run, args=(long,))
    start = time.perf_counter()
    worker.start()
    ticks = 0
    while worker.is_alive():
        ticks += 1
        time.sleep(0.001)
    elapsed = time.perf_counter() - start
    if elapsed < 0.05:
        pytest.skip(f"simulation too fast to observe ({elapsed:.3f} s)")
    # Holding the GIL, the run would keep this loop from running at all.
    assert ticks >= 10, (ticks, elapsed)


@pytest.mark.parametrize(
    "bad, where",
    [
        ({"name": "x", "link": scenario()["link"], "flows": [cbr("a", "1Mbps")]}, "<dict>: duration: required field is missing"),
        ({**scenario(), "colour": "red"}, "<dict>: colour: unknown field `colour`"),
        (scenario(capacity="-1Mbps"), "<dict>: link.capacity: must be > 0"),
        (scenario(capacity="50ms"), "<dict>: link.capacity: expected a bit rate"),
        (scenario({"name": "a", "kind": "warp-drive"}), "<dict>: flows[0].kind"),
        (scenario(cbr("a", "1Mbps", start="-3s")), "<dict>: flows[0].start"),
        (scenario({"name": "a", "kind": "cbr"}), "<dict>: flows[0].overrides.rate"),
        (scenario(queue={1, 2}), "<dict>: link.queue: unsupported value of type 'set'"),
        ({**scenario(), "seed": 2**70}, "<dict>: seed: integer out of range"),
    ],
)
def test_bad_scenario_dicts_raise_scenario_error(bad, where):
    with pytest.raises(ScenarioError) as info:
        flowstate.run(bad)
    message = str(info.value)
    assert message.startswith(where), message
    assert "\n" not in message


def test_toml_text_by_keyword(tmp_path):
    text = (
        'name = "text"\nduration = "2s"\n[link]\ncapacity = "2Mbps"\ndelay = "25ms"\nqueue = "300ms"\n'
        '[[flows]]\nname = "a"\nkind = "cbr"\noverrides = { rate = "1Mbps" }\n'
    )
    path = tmp_path / "s.toml"
    path.write_text(text)
    assert flowstate.run(toml=text).trace_hashes == flowstate.run(path).trace_hashes
    flowstate.check_scenario(toml=text)
    with pytest.raises(ScenarioError, match=r"^<toml>: duration"):
        flowstate.check_scenario(toml=text.replace('"2s"', '"-2s"'))
    # TOML text given as the path: one line suggesting toml=, not the text echoed back.
    with pytest.raises(ScenarioError) as info:
        flowstate.run(text)
    message = str(info.value)
    assert "\n" not in message and "toml=" in message and len(message) < 200, message
    with pytest.raises(TypeError, match="not both"):
        flowstate.run(path, toml=text)
    with pytest.raises(TypeError, match="toml="):
        flowstate.run()


def test_bad_files_raise_scenario_error(tmp_path):
    assert issubclass(ScenarioError, ValueError)
    missing = tmp_path / "missing.toml"
    with pytest.raises(ScenarioError, match=r"missing\.toml: cannot read"):
        flowstate.run(missing)
    broken = tmp_path / "broken.toml"
    broken.write_text('name = "x"\nduration = = 3\n')
    with pytest.raises(ScenarioError, match=r"broken\.toml: line 2: "):
        flowstate.run(broken)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"runs": 0}, ValueError),
        ({"runs": -2}, ValueError),
        ({"seed": -1}, ValueError),
        ({"seed": 2**64}, ValueError),
        ({"seed": 1.5}, TypeError),
        ({"seed": "1"}, TypeError),
        ({"runs": True}, TypeError),
        ({"threads": 0}, ValueError),
    ],
)
def test_bad_arguments(kwargs, error):
    with pytest.raises(error):
        flowstate.run(scenario(), **kwargs)


def test_seed_overflow_is_an_error():
    with pytest.raises(ValueError, match="overflow"):
        flowstate.run(scenario(), seed=2**64 - 1, runs=2)
    assert flowstate.run(scenario(), seed=2**64 - 1).seeds == [2**64 - 1]


def test_bad_scenario_type():
    with pytest.raises(TypeError):
        flowstate.run(42)


# ------------------------------------------------------------------ set= and unset=


def test_run_set_and_unset_change_a_file_a_dict_and_toml_text(tmp_path):
    import tomllib

    path = tmp_path / "s.toml"
    base = scenario(cbr("a", "1.5Mbps"), duration="3s")
    path.write_text(_toml(base))
    plain = flowstate.run(path, seed=1).summary["aggregate"]["throughput_mbps"]
    for source in ({"scenario": path}, {"scenario": base}, {"toml": path.read_text()}):
        changed = flowstate.run(**source, seed=1, set={"link.capacity": "1Mbps", "flows.a.priority": 2})
        assert changed.summary["aggregate"]["throughput_mbps"] < 1.0 < plain
        assert changed.summary["flows"][0]["priority"] == 2
        schedule = flowstate.run(
            **source, seed=1, unset=["link.capacity"], set={"link.capacity_schedule": [{"at": "0s", "rate": "500kbps"}]}
        )
        assert schedule.summary["aggregate"]["throughput_mbps"] < 0.55
    assert "priority" not in base["flows"][0] and base["link"]["capacity"] == "2Mbps"  # the dict is not changed
    assert tomllib.loads(path.read_text())["link"]["capacity"] == "2Mbps"


def _toml(d):
    from flowstate import _native

    return _native.scenario_toml(d)


def test_check_scenario_takes_set_and_unset():
    flowstate.check_scenario(scenario(), set={"link.capacity": "4Mbps"})
    with pytest.raises(ScenarioError, match="^<dict>: link.capacity: "):
        flowstate.check_scenario(scenario(), set={"link.capacity": "fast"})
    with pytest.raises(ScenarioError, match="^<dict>: link"):
        flowstate.check_scenario(scenario(), unset=["link.capacity"])


@pytest.mark.parametrize(
    "kwargs, error, fragment",
    [
        ({"unset": ["link.capcity"]}, ScenarioError, "<dict>: link.capcity: 'capcity' is not there to remove"),
        ({"set": {"flows.b.priority": 2}}, ScenarioError, "<dict>: flows.b.priority: no flow named 'b'"),
        ({"unset": "link.capacity"}, TypeError, "unset must be a list of paths, got str"),
        ({"set": [("link.capacity", "1Mbps")]}, TypeError, "set must be a dict of path -> value, got list"),
        ({"set": {"link.capacity": None}}, TypeError, "to remove a key: unset="),
        ({"set": {1: "x"}}, TypeError, "paths must be str"),
    ],
)
def test_bad_set_and_unset_arguments(kwargs, error, fragment):
    with pytest.raises(error) as e:
        flowstate.run(scenario(), **kwargs)
    assert fragment in str(e.value) and "\n" not in str(e.value)


def test_a_trace_file_given_in_set_is_read_from_the_current_folder(tmp_path, monkeypatch):
    beside, cwd = tmp_path / "scenario", tmp_path / "cwd"
    beside.mkdir()
    cwd.mkdir()
    trace = "time_s,rate_Mbps\n0,1.0\n1,0.5\n"
    (beside / "beside.csv").write_text(trace)
    (cwd / "here.csv").write_text(trace)
    base = scenario(cbr("a", "1.5Mbps"), duration="2s")
    del base["link"]["capacity"]
    base["link"]["capacity_trace"] = {"file": "beside.csv", "format": "csv"}
    path = beside / "s.toml"
    path.write_text(_toml(base))
    monkeypatch.chdir(cwd)
    flowstate.run(path)  # written in the file: the file's folder
    flowstate.run(path, set={"link.capacity_trace.file": "here.csv"})
    with pytest.raises(ScenarioError, match="link.capacity_trace.file: .*beside.csv"):
        flowstate.run(path, set={"link.capacity_trace.file": "beside.csv"})
    flowstate.check_scenario(path, set={"link.capacity_trace.file": "here.csv"})
    with pytest.raises(ScenarioError, match="link.capacity_trace.file: .*beside.csv"):
        flowstate.check_scenario(path, set={"link.capacity_trace.file": "beside.csv"})


def test_every_output_names_each_flows_coupling_group(tmp_path):
    # A call's own flow joins group "call" by default; another application's TCP flow
    # is not coupled: summary.json, the time series and its CSV all say so.
    scenario = {
        "name": "groups",
        "duration": "2s",
        "link": {"capacity": "2Mbps", "delay": "20ms", "queue": "100ms"},
        "flows": [{"name": "video", "kind": "gcc"}, {"name": "bulk", "kind": "tcp-cubic"}],
        "coupling": {"mechanism": "fsev2"},
    }
    result = flowstate.run(scenario)
    assert [f["group"] for f in result.summary["flows"]] == ["call", None]
    assert result.summary["coupling"] == {"mechanism": "fsev2", "groups_mode": "static"}
    by_flow = result.timeseries.groupby("flow")["group"].first()
    assert by_flow["video"] == "call" and by_flow.isna()["bulk"]
    _, series = result.write(tmp_path)
    lines = series.read_text().splitlines()
    assert lines[0].endswith(",target_mbps,group,fps,frame_delay_ms,freezes")
    assert {line.split(",")[3]: line.split(",")[-4] for line in lines[1:]} == {"video": "call", "bulk": ""}
