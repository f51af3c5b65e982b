"""flowstate.catalogue.derived: derived metrics against hand-built time series."""

from __future__ import annotations

import math

import pytest

from flowstate.catalogue import derived
from flowstate.catalogue.derived import DerivedError


def series(rates, qd=None, rtt=None, bin_s=1.0):
    """Columns as the native series: ``rates`` maps flow -> per-bin Mbit/s."""
    cols = {k: [] for k in ("time_s", "flow", "throughput_mbps", "queuing_delay_ms", "rtt_ms")}
    n = len(next(iter(rates.values())))
    for i in range(n):
        for flow, xs in rates.items():
            cols["time_s"].append(i * bin_s)
            cols["flow"].append(flow)
            cols["throughput_mbps"].append(xs[i])
            cols["queuing_delay_ms"].append((qd or {}).get(flow, [None] * n)[i])
            cols["rtt_ms"].append((rtt or {}).get(flow, [None] * n)[i])
    return cols


S = series(
    {"gcc": [0.0, 1.0, 2.0, 3.0, 4.0, 4.0, 3.7, 4.0, 4.0, 4.0], "sctp": [1.0] * 10},
    qd={"gcc": [0, 10, 20, 30, 40, 50, 60, 70, 80, 90], "sctp": [None, 5, 5, 5, 5, 5, 5, 5, 5, 5]},
    rtt={"gcc": [100 + i for i in range(10)]},
)


def test_time_to_reach():
    assert derived.time_to_reach(S, "gcc", 4.0, after=0.0, hold=2.0) == 4.0
    assert derived.time_to_reach(S, "gcc", 4.0, after=2.0, hold=2.0) == 2.0
    # 3.7 < 0.9 * 4.2: the flow reaches 4.2 never; holding 4.0 tolerates the 3.7 dip.
    assert derived.time_to_reach(S, "gcc", 4.2) is None
    # A dip below 90 %: the first crossing does not count.
    dip = series({"f": [5, 1, 5, 5, 5, 5]})
    assert derived.time_to_reach(dip, "f", 4.0, hold=2.0) == 2.0
    # Not enough series left to hold.
    assert derived.time_to_reach(series({"f": [0, 0, 0, 5]}), "f", 4.0, hold=2.0) is None
    assert derived.time_to_reach(S, "nope", 1.0) is None


def test_window_rates_and_share():
    assert derived.mean_rate(S, "gcc", 4.0, 6.0) == pytest.approx(4.0)
    assert derived.mean_rate(S, "gcc") == pytest.approx(2.97)
    assert derived.min_rate(S, "gcc", 4.0) == pytest.approx(3.7)
    assert derived.max_rate(S, "gcc", 0.0, 3.0) == 2.0
    assert derived.share(S, "gcc", 4.0, 6.0) == pytest.approx(0.8)
    assert derived.mean_rate(S, "gcc", 20.0) is None
    assert derived.share(S, "nope") is None


def test_jain():
    assert derived.jain(S, 4.0, 6.0) == pytest.approx((5.0**2) / (2 * (16 + 1)))
    assert derived.jain(series({"a": [1, 1], "b": [1, 1]})) == pytest.approx(1.0)
    assert derived.jain(S, flows=["gcc"]) == pytest.approx(1.0)
    assert derived.jain(S, flows=["gcc", "nope"]) is None


def test_queue_and_rtt():
    # Samples of both flows: gcc 10..40 and sctp 5 x 4 in [1, 5).
    assert derived.mean_queue(S, 1.0, 5.0) == pytest.approx((10 + 20 + 30 + 40 + 4 * 5) / 8)
    assert derived.mean_queue(S, flow="gcc") == pytest.approx(45.0)
    assert derived.rtt_percentile(S, "gcc", 50) == pytest.approx(104.5)
    assert derived.rtt_percentile(S, "gcc", 100, 0.0, 3.0) == 102.0
    assert derived.rtt_percentile(S, "sctp", 50) is None


def test_throughput_ratio_is_rfc8868_self_fairness():
    # Means over [4, 6): gcc 4.0, sctp 1.0.
    assert derived.throughput_ratio(S, 4.0, 6.0) == pytest.approx(4.0)
    assert derived.throughput_ratio(series({"a": [1, 1], "b": [2, 2]})) == pytest.approx(2.0)
    assert derived.throughput_ratio(S, flows=["sctp"]) == pytest.approx(1.0)
    # A starved flow (mean 0) or a missing one: no ratio.
    assert derived.throughput_ratio(series({"a": [0, 0], "b": [1, 1]})) is None
    assert derived.throughput_ratio(S, flows=["gcc", "nope"]) is None


def test_oscillations_count_swings_of_the_sending_rate_between_watermarks():
    # Sending rate 0.4 (low) -> 2.5 (high) -> 1.0 (between: no change) -> 0.3 (low) -> 0.2
    # -> 2.0 (high); the throughput stays at 1 (a bottleneck caps it) and does not count.
    s = series({"f": [1.0] * 6})
    s["send_rate_mbps"] = [0.4, 2.5, 1.0, 0.3, 0.2, 2.0]
    assert derived.oscillations(s, "f", 0.5, 2.0) == 3.0
    assert derived.oscillations(s, "f", 0.5, 2.0, 0.0, 2.0) == 1.0
    # Never reaches the high watermark: no swing.
    calm = series({"f": [0.1, 1.0, 0.1]})
    calm["send_rate_mbps"] = [0.1, 1.0, 0.1]
    assert derived.oscillations(calm, "f", 0.5, 2.0) == 0.0
    assert derived.oscillations(s, "nope", 0.5, 2.0) is None
    # A series without sending rates has nothing to compute from.
    assert derived.oscillations(series({"f": [0.1, 3.0]}), "f", 0.5, 2.0) is None


def test_utilization_per_bin_over_capacity():
    s = series({"a": [1.0, 1.0, 0.5], "b": [1.0, 0.0, 0.5]})
    s["capacity_mbps"] = [2.0, 2.0, 4.0, 4.0, 1.0, 1.0]
    # Bins: 2/2, 1/4, 1/1 -> mean 0.75.
    assert derived.utilization(s) == pytest.approx(0.75)
    assert derived.utilization(s, flows=["a"]) == pytest.approx((0.5 + 0.25 + 0.5) / 3)
    assert derived.utilization(s, 1.0, 2.0) == pytest.approx(0.25)
    # A series without a capacity column has nothing to compute from.
    assert derived.utilization(series({"a": [1.0]})) is None


def test_gcc_utility_is_paper_002_eq_21():
    s = series({"a": [1.0, 1.0], "b": [2.0, 2.0]}, qd={"a": [10, 30], "b": [0, 0]})
    # alpha = 2: U(x) = -1/x; beta = 1: U(y) = log(y); y floored at 1 ms.
    expected = (-1 / 1.0 - 0.15 * math.log(20)) + (-1 / 2.0 - 0.15 * math.log(1.0))
    assert derived.gcc_utility(s) == pytest.approx(expected)
    assert derived.gcc_utility(s, alpha=0.5, beta=2.0, delta=1.0, flows=["a"]) == pytest.approx(
        1.0**0.5 / 0.5 - (20.0**-1) / -1
    )
    assert derived.gcc_utility(series({"a": [0.0]}, qd={"a": [1]})) is None


def test_rows_and_dataframes_give_the_same_values():
    import pandas

    frame = pandas.DataFrame(S)
    rows = [
        {k: ("" if v is None else str(v)) for k, v in row.items()} for row in frame.to_dict("records")
    ]  # as csv.DictReader reads timeseries.csv
    for data in (frame, rows):
        assert derived.mean_rate(data, "gcc") == pytest.approx(2.97)
        assert derived.time_to_reach(data, "gcc", 4.0) == 4.0
        assert derived.mean_queue(data, flow="sctp") == pytest.approx(5.0)


def test_specs_parse_units_and_reject_bad_arguments():
    spec = derived.make_spec("fill", "time_to_reach", {"flow": "gcc", "rate": "4Mbps", "after": "2s", "hold": "500ms"})
    assert spec.kwargs == {"flow": "gcc", "rate": 4.0, "after": 2.0, "hold": 0.5}
    assert spec.flows() == ["gcc"]
    assert derived.compute(spec, S) == 2.0
    spec = derived.make_spec("m", "mean_rate", {"flow": "gcc", "from": "4s", "to": 6})
    assert derived.compute(spec, S) == pytest.approx(4.0)
    assert derived.make_spec("j", "jain", {"flows": ["a", "b"]}).flows() == ["a", "b"]
    assert derived.parse_rate_mbps("500kbps") == 0.5 and derived.parse_rate_mbps("2 Mbit/s") == 2.0
    assert derived.parse_time("2min") == 120.0 and derived.parse_time("250us") == 0.00025
    for fn, args, message in [
        ("nope", {}, "unknown function 'nope'"),
        ("time_to_reach", {"flow": "gcc"}, "argument 'rate' is required"),
        ("time_to_reach", {"flow": "gcc", "rate": 4}, "rate: expected a bit rate"),
        ("mean_rate", {"flow": "gcc", "from": "soon"}, "from: expected a time"),
        ("mean_rate", {"flow": "gcc", "until": "1s"}, "unknown argument 'until'"),
        ("rtt_percentile", {"flow": "gcc", "p": 120}, "p: must be in [0, 100]"),
        ("jain", {"flows": []}, "expected a non-empty list"),
        ("gcc_utility", {"alpha": "two"}, "alpha: expected a number"),
        ("oscillations", {"flow": "a", "low": "2Mbps", "high": "1Mbps"}, "high: must be above low"),
        ("oscillations", {"flow": "a", "low": "1Mbps"}, "argument 'high' is required"),
        ("throughput_ratio", {"flows": "a"}, "expected a non-empty list"),
    ]:
        with pytest.raises(DerivedError, match=message.replace("[", r"\[").replace("]", r"\]")):
            derived.make_spec("x", fn, args)


def test_aggregate_over_runs():
    a = derived.aggregate([1.0, 3.0, None])
    assert a == {"mean": 2.0, "std": pytest.approx(math.sqrt(2)), "min": 1.0, "max": 3.0, "values": [1.0, 3.0, None]}
    assert derived.aggregate([None])["mean"] is None
    assert derived.aggregate([5.0])["std"] == 0.0


def test_columns_and_rows_give_the_same_bins():
    """The column-wise reading (the simulator's dict of columns) and the row-wise one
    (a list of row dicts, e.g. a CSV) build the same bins, NaN and missing cells as None."""
    cols = series(
        {"a": [1.0, float("nan"), 3.0], "b": [0.5, 0.5, 0.5]},
        qd={"a": [1.0, None, float("nan")]},
        rtt={"b": [10, 20, 30]},
    )
    cols["capacity_mbps"] = [2.0] * 6
    rows = [{k: v[i] for k, v in cols.items()} for i in range(len(cols["time_s"]))]
    by_cols, by_rows = derived.Series(cols), derived.Series(rows)
    assert by_cols.flows == by_rows.flows
    assert by_cols.bin_s == by_rows.bin_s == 1.0
    assert by_cols.flows["a"][1].throughput_mbps == 0.0  # NaN throughput reads as 0
    assert by_cols.flows["a"][2].queuing_delay_ms is None
    assert by_cols.flows["b"][2].rtt_ms == 30.0
    assert by_cols.flows["a"][0].send_rate_mbps is None  # a column the run lacks


def test_min_and_max_target_read_the_controllers_target_not_the_throughput():
    cols = series({"media": [0.1, 0.2, 0.3, 0.4], "data": [1.0] * 4})
    # Targets at each bin's close; the window flow has none (an empty cell).
    cols["target_mbps"] = [0.30, None, 0.55, None, 0.60, None, float("nan"), None]
    for s in (cols, derived.Series.from_simulator(cols), [dict(zip(cols, row)) for row in zip(*cols.values())]):
        assert derived.min_target(s, "media") == pytest.approx(0.30)
        assert derived.min_target(s, "media", 1.0) == pytest.approx(0.55)
        assert derived.max_target(s, "media", 0.0, 2.0) == pytest.approx(0.55)
        assert derived.max_target(s, "media") == pytest.approx(0.60)
        assert derived.min_target(s, "data") is None
        assert derived.max_target(s, "media", 3.0) is None
    spec = derived.make_spec("t", "min_target", {"flow": "media", "from": "1s", "to": "3s"})
    assert derived.compute(spec, cols) == pytest.approx(0.55)


def test_ce_fraction_reads_the_summarys_marks_of_ecn_capable_flows():
    summary = {"flows": [
        {"name": "video", "sent_packets": 400, "ce_marks": 100},
        {"name": "sctp", "sent_packets": 300},
        {"name": "idle", "sent_packets": 0, "ce_marks": 0},
    ]}
    s = derived.Series(series({"video": [1.0]}), summary=summary)
    assert derived.ce_fraction(s, "video") == pytest.approx(0.25)
    # Not-ECT (no ce_marks), nothing sent, an unknown flow: no value.
    assert derived.ce_fraction(s, "sctp") is None
    assert derived.ce_fraction(s, "idle") is None
    assert derived.ce_fraction(s, "nope") is None
    spec = derived.make_spec("v", "ce_fraction", {"flow": "video"})
    assert derived.compute(spec, s) == pytest.approx(0.25)
