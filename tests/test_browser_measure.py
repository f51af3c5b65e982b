"""`flowstate browser` without a browser: what a scenario means on the real path
(plan.py) and how the bottleneck's records become a summary (measure.py), on made-up
records whose figures are computed by hand."""

from __future__ import annotations

import pytest

from flowstate.browser.measure import DATA, OVERHEAD, Classifier, Samples, summarize
from flowstate.browser.plan import FlowPlan, PlanError, make_plan


def scenario(**over):
    doc = {
        "name": "t",
        "duration": "20s",
        "link": {"capacity": "2Mbps", "delay": "50ms", "queue": "300ms"},
        "flows": [
            {"name": "gcc", "kind": "gcc", "overrides": {"video_max_rate": "1.5Mbps"}},
            {"name": "sctp", "kind": "sctp", "start": "5s"},
            {"name": "tcp", "kind": "tcp-cubic", "start": "2s", "stop": "15s"},
        ],
        "measure": {"start": "5s", "end": "20s"},
    }
    doc.update(over)
    return doc


def test_plan_maps_kinds_times_and_rates():
    p = make_plan(scenario())
    assert [(f.name, f.transport) for f in p.flows] == [("gcc", "video"), ("sctp", "data"), ("tcp", "tcp")]
    assert p.flows[0].max_rate_bps == 1.5e6
    assert p.flows[2].tcp_port == 7000
    assert p.window == (5.0, 20.0)
    assert p.capacity_mbps(3.0, 4.0) == pytest.approx(2.0)
    assert p.reverse_delay_s == 0.05
    assert [(t, a, f.name) for t, a, f in p.events()] == [
        (0.0, "start", "gcc"),
        (2.0, "start", "tcp"),
        (5.0, "start", "sctp"),
        (15.0, "stop", "tcp"),
    ]


def test_duration_shortens_the_run_and_an_empty_window_is_an_error():
    assert make_plan(scenario(), duration=12).window == (5.0, 12.0)
    with pytest.raises(PlanError, match=r"measure: the window 5-20 s is empty in a run of 4 s"):
        make_plan(scenario(), duration=4)
    with pytest.raises(PlanError, match="flows.sctp.start: 5 s is not before the end"):
        make_plan(scenario(measure={"start": "0s", "end": "4s"}), duration=4)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"coupling": {"mechanism": "fsev2"}}, "coupling.mechanism: an unmodified browser has no coupling"),
        ({"flows": [{"name": "r", "kind": "rap"}]}, "flows.r.kind: 'rap' has no real counterpart"),
        ({"flows": [{"name": "s", "kind": "sctp", "source": "on-off"}]}, "flows.s.source: only 'greedy'"),
        ({"flows": [{"name": "t", "kind": "tcp-cubic", "source": "short-flows"}]}, "flows.t.source: kernel TCP"),
    ],
)
def test_what_cannot_run_for_real_is_named(change, message):
    with pytest.raises(PlanError, match=message):
        make_plan(scenario(**change))


def test_web_api_coupling_runs_the_module_in_the_page():
    assert make_plan(scenario()).coupling is None
    p = make_plan(scenario(coupling={"mechanism": "web-api", "options": {
        "interval": "200ms", "delay": "50ms", "max_growth": 1.0, "rtt_guard": False, "min_media_rate": "50kbps"}}))
    assert p.coupling == {"intervalMs": 200, "config": {"maxGrowth": 1.0, "rttGuard": None, "minMediaRate": 50e3}}
    # --coupling replaces the scenario's mechanism (and its options).
    assert make_plan(scenario(), coupling="web-api").coupling == {"intervalMs": 150, "config": {}}
    assert make_plan(scenario(coupling={"mechanism": "web-api"}), coupling="none").coupling is None
    with pytest.raises(PlanError, match="coupling.options.bogus: unknown option of web-api"):
        make_plan(scenario(coupling={"mechanism": "web-api", "options": {"bogus": 1}}))
    with pytest.raises(PlanError, match="--coupling: an unmodified browser has no coupling"):
        make_plan(scenario(), coupling="fsev2")


def test_the_page_loads_the_coupling_module(tmp_path):
    from flowstate.browser.chromium import COUPLING_JS, _write_page

    page = (tmp_path / "call.html")
    _write_page(tmp_path)
    assert "type=module" not in page.read_text()
    _write_page(tmp_path, coupling_js=COUPLING_JS.read_text())
    html = page.read_text()
    assert "export class Coupler" in html and "window.flowstateCoupling = { Coupler," in html


def test_gcc_overrides_other_than_the_max_rate_are_reported_as_ignored():
    doc = scenario(flows=[{"name": "v", "kind": "gcc", "preset": "paper", "overrides": {"k_up": 0.01}}])
    p = make_plan(doc)
    assert p.ignored == ["flows.v.preset", "flows.v.overrides.k_up"]
    assert p.flows[0].max_rate_bps == 2.5e6  # the simulator's default


def test_count_expands_like_the_simulator():
    p = make_plan(scenario(flows=[{"name": "t", "kind": "tcp-newreno", "count": 3}]))
    assert [(f.name, f.tcp_port) for f in p.flows] == [("t1", 7000), ("t2", 7001), ("t3", 7002)]


def test_classifier_rfc7983_classes_to_flows():
    flows = [
        FlowPlan("v", "gcc", 1, 0, 10),
        FlowPlan("d", "sctp", 1, 0, 10),
        FlowPlan("t", "tcp-cubic", 1, 0, 10, tcp_port=7000),
    ]
    c = Classifier(flows, {1234: "v"})
    assert c("rtp", 1234, 0) == "v"
    assert c("rtp", 999, 0) == "v"  # RTX / padding SSRC: the only video flow
    assert c("dtls", None, 0) == DATA
    assert c("tcp", None, 7000) == "t"
    assert c("tcp", None, 22) == OVERHEAD
    assert c("rtcp", 1234, 0) == OVERHEAD
    assert c("stun", None, 0) == OVERHEAD
    two = Classifier([FlowPlan("a", "gcc", 1, 0, 1), FlowPlan("b", "gcc", 1, 0, 1)], {1: "a"})
    assert two("rtp", 2, 0) == OVERHEAD  # unknown SSRC with two video flows: not guessed


def records(packets):
    """Columns of the bottleneck's forward records from (arrival s, departure s or
    None, size, class, ssrc, dst_port, queue delay ms)."""
    cols = {k: [] for k in ("arrival_us", "departure_us", "model_departure_us", "queue_delay_us", "size", "class",
                            "protocol", "src", "dst", "src_port", "dst_port", "ssrc")}
    for a, d, size, cls, ssrc, port, q in packets:
        cols["arrival_us"].append(int(a * 1e6))
        cols["departure_us"].append(None if d is None else int(d * 1e6))
        cols["model_departure_us"].append(None if d is None else int(d * 1e6))
        cols["queue_delay_us"].append(int(q * 1e3))
        cols["size"].append(size)
        cols["class"].append(cls)
        cols["protocol"].append(6 if cls == "tcp" else 17)
        cols["src"].append("10.81.1.2")
        cols["dst"].append("10.81.2.2")
        cols["src_port"].append(1)
        cols["dst_port"].append(port)
        cols["ssrc"].append(ssrc)
    return cols


def test_summary_from_hand_made_records():
    # Window 0-2 s. Video: 3 packets of 1000 B delivered, one 1000 B dropped; TCP:
    # 2 x 1500 B delivered; DTLS 500 B to the data flow; one RTCP (overhead).
    flows = [
        FlowPlan("v", "gcc", 1, 0, 2),
        FlowPlan("d", "sctp", 3, 0, 2),
        FlowPlan("t", "tcp-cubic", 1, 0, 2, tcp_port=7000),
    ]
    pk = [
        (0.10, 0.20, 1000, "rtp", 5, 0, 10),
        (0.50, 0.70, 1000, "rtp", 5, 0, 30),
        (1.00, None, 1000, "rtp", 5, 0, 0),
        (1.50, 1.60, 1000, "rtp", 77, 0, 20),  # RTX SSRC -> the only video flow
        (0.30, 0.40, 1500, "tcp", None, 7000, 40),
        (0.60, 0.80, 1500, "tcp", None, 7000, 60),
        (0.90, 1.00, 500, "dtls", None, 0, 50),
        (1.10, 1.20, 100, "rtcp", 5, 0, 0),
        (2.50, 2.60, 1000, "rtp", 5, 0, 0),  # after the window
    ]
    samples = Samples(rtt={"v": [(0.5, 100.0), (1.5, 120.0), (3.0, 999.0)]})
    summary, rows, owners = summarize(
        scenario="t",
        seed=1,
        duration_s=3.0,
        window=(0.0, 2.0),
        capacity_mbps=lambda a, b: 0.02,
        reverse_delay_s=0.05,
        flows=flows,
        records=records(pk),
        offset_s=0.0,
        ssrcs={5: "v"},
        samples=samples,
    )
    v, d, t = summary["flows"]
    assert v["throughput_mbps"] == pytest.approx(3000 * 8 / 2 / 1e6)
    assert v["send_rate_mbps"] == pytest.approx(4000 * 8 / 2 / 1e6)
    assert (v["sent_packets"], v["lost_packets"], v["loss_ratio"]) == (4, 1, 0.25)
    assert v["rtt_ms"]["mean"] == pytest.approx(110.0)  # getStats samples in the window only
    assert v["queuing_delay_ms"]["mean"] == pytest.approx(20.0)
    assert t["throughput_mbps"] == pytest.approx(3000 * 8 / 2 / 1e6)
    assert t["queuing_delay_ms"]["p50"] == pytest.approx(50.0)
    assert d["throughput_mbps"] == pytest.approx(500 * 8 / 2 / 1e6)
    assert d["rtt_ms"]["mean"] == pytest.approx(100.0 + 50.0)  # transit + reverse delay
    assert d["priority_share"] == pytest.approx(0.6)
    assert v["share"] + d["share"] + t["share"] == pytest.approx(1.0)
    agg = summary["aggregate"]
    # Utilization counts every delivered byte in the window, RTCP included.
    assert agg["utilization"] == pytest.approx((3000 + 3000 + 500 + 100) * 8 / (0.02e6 * 2), rel=1e-3)
    assert agg["jain_index"] == pytest.approx((6.5**2) / (3 * (9 + 0.25 + 9)), rel=1e-9)
    # metrics.rs weighted_jain_index: Jain's index of throughput / priority_share.
    xs = [f["throughput_mbps"] / f["priority_share"] for f in (v, d, t)]
    assert agg["weighted_jain_index"] == pytest.approx(sum(xs) ** 2 / (3 * sum(x * x for x in xs)), rel=1e-9)
    assert owners[:4] == ["v", "v", "v", "v"] and owners[6] == DATA and owners[7] == OVERHEAD
    assert {r["flow"] for r in rows} == {"v", "d", "t"}
    bin0 = [r for r in rows if r["time_s"] == 0.0 and r["flow"] == "t"][0]
    assert bin0["throughput_mbps"] == pytest.approx(1500 * 8 / 0.5 / 1e6)  # the second leaves at 0.8 s


def test_two_data_channels_split_the_dtls_bytes_by_what_each_sent():
    flows = [FlowPlan("a", "sctp", 1, 0, 1), FlowPlan("b", "sctp", 1, 0, 1)]
    pk = [(0.1 * i, 0.1 * i + 0.01, 1000, "dtls", None, 0, 0) for i in range(5)]
    # In bin 0 (0-0.5 s) a sent 300 B and b 100 B: a gets 3/4 of the DTLS bytes.
    samples = Samples(app_sent={"a": [(0.0, 0), (0.4, 300)], "b": [(0.0, 0), (0.4, 100)]})
    summary, _, _ = summarize(
        scenario="t", seed=1, duration_s=1.0, window=(0.0, 0.5), capacity_mbps=lambda a, b: 1.0,
        reverse_delay_s=0.0, flows=flows, records=records(pk), offset_s=0.0, ssrcs={}, samples=samples,
    )
    a, b = summary["flows"]
    assert a["throughput_mbps"] == pytest.approx(3 * b["throughput_mbps"])
    assert a["throughput_mbps"] + b["throughput_mbps"] == pytest.approx(5000 * 8 / 0.5 / 1e6)


def test_web_api_options_are_read_by_the_simulators_reader():
    # One reader: what the simulator refuses the browser refuses, with the same message,
    # and what it accepts means the same (a rate carries its unit).
    for options, message in [
        ({"min_media_rate": 50000}, "coupling.options.min_media_rate: expected a bit rate with its unit"),
        ({"min_media_rate": "-1kbps"}, "coupling.options.min_media_rate: must be between 0 bps and 1 Tbps"),
        ({"interval": "1us"}, "coupling.options.interval: must be between 10 ms and 60 s, got 1 us"),
    ]:
        with pytest.raises(PlanError, match=message):
            make_plan(scenario(coupling={"mechanism": "web-api", "options": options}))
    p = make_plan(scenario(coupling={"mechanism": "WEB_API", "options": {"min_media_rate": "0.1Mbps"}}))
    assert p.coupling == {"intervalMs": 150, "config": {"minMediaRate": 100e3}}


def test_names_are_read_by_the_one_rule():
    doc = scenario(flows=[
        {"name": "gcc", "kind": "GCC", "preset": "Chromium"},
        {"name": "sctp", "kind": "SCTP", "source": "Greedy"},
        {"name": "tcp", "kind": "TCP_CUBIC"},
    ])
    p = make_plan(doc)
    assert [(f.kind, f.transport) for f in p.flows] == [("gcc", "video"), ("sctp", "data"), ("tcp-cubic", "tcp")]
    assert p.ignored == []
    assert make_plan(scenario(), coupling="Web_API").coupling == {"intervalMs": 150, "config": {}}
