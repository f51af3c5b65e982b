"""The catalogue's shared-bottleneck-detection functions (flowstate.catalogue.derived
sbd_*) against a hand-made summary.json ``sbd`` timeline, and on a real run."""

import pytest

import flowstate
from flowstate.catalogue import derived

SUMMARY = {
    "flows": [{"name": "a"}, {"name": "b"}, {"name": "c"}],
    "aggregate": {"sbd_regroups": 4},
    "sbd": {
        "groups": "sbd",
        "interval_s": 0.35,
        "timeline": [
            {"time_s": 0.35, "groups": [None, None, None], "truth": [0, 0, 0], "correct_pairs": 0, "pairs": 3},
            {"time_s": 0.70, "groups": [5, 5, 6], "truth": [0, 0, 0], "correct_pairs": 1, "pairs": 3},
            {"time_s": 1.05, "groups": [5, 5, 5], "truth": [0, 0, 0], "correct_pairs": 3, "pairs": 3},
        ],
    },
}


def series(summary=SUMMARY):
    return derived.Series([], summary=summary)


def test_accuracy_over_a_window():
    assert derived.sbd_accuracy(series()) == pytest.approx(4 / 9)
    assert derived.sbd_accuracy(series(), 0.5, 1.0) == pytest.approx(1 / 3)
    assert derived.sbd_accuracy(series(), 2.0) is None


def test_time_to_correct_and_together_and_regroups():
    assert derived.sbd_time_to_correct(series()) == pytest.approx(1.05)
    assert derived.sbd_time_to_correct(series(), 0.5) == pytest.approx(0.55)
    assert derived.sbd_together(series(), "a", "b") == pytest.approx(2 / 3)
    assert derived.sbd_together(series(), "a", "c") == pytest.approx(1 / 3)
    assert derived.sbd_together(series(), "a", "nosuch") is None
    assert derived.sbd_regroups(series()) == 4


def test_without_sbd_every_function_has_nothing_to_compute_from():
    plain = series({"flows": [{"name": "a"}], "aggregate": {}})
    assert derived.sbd_accuracy(plain) is None
    assert derived.sbd_time_to_correct(plain) is None
    assert derived.sbd_regroups(plain) is None


def test_bad_arguments_are_named():
    with pytest.raises(derived.DerivedError, match="sbd_together: argument 'b' is required"):
        derived.make_spec("x", "sbd_together", {"a": "a"})


def test_a_run_carries_the_timeline_into_its_summary():
    text = """
name = "sbd-py"
duration = "5s"
[link]
capacity = "2Mbps"
delay = "20ms"
queue = "50ms"
[sbd]
[[flows]]
name = "a"
kind = "sctp"
[[flows]]
name = "b"
kind = "sctp"
"""
    r = flowstate.run(toml=text, seed=1, runs=2)
    assert r.summary["sbd"]["interval_s"] == pytest.approx(0.35)
    assert len(r.summary["sbd"]["timeline"]) == 14
    assert "sbd_accuracy" in r.summary["aggregate"]
    spec = derived.make_spec("acc", "sbd_accuracy", {"from": "0s"})
    values = [derived.compute(spec, derived.Series(s, summary=run)) for s, run in zip(r._series, r.runs)]
    assert all(v is not None and 0 <= v <= 1 for v in values)
