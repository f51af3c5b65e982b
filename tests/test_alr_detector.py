"""scripts/alr_detector.py: libwebrtc M150's ALR detector, ported for replays."""
from __future__ import annotations

import pytest
from script_support import load_script

alr = load_script("alr_detector")


def test_constants_are_libwebrtcs():
    assert (alr.BANDWIDTH_USAGE_RATIO, alr.START_BUDGET_LEVEL_RATIO, alr.STOP_BUDGET_LEVEL_RATIO,
            alr.WINDOW_MS) == (0.65, 0.80, 0.50, 500)


def test_budget_max_is_half_a_second_of_65_percent_of_the_target():
    d = alr.AlrDetector()
    d.set_estimated_bitrate(800_000)  # 520 kbit/s -> 500 ms x 520 / 8 = 32 500 B
    assert d.max_bytes == 32_500


def test_sending_under_65_percent_enters_alr_and_at_the_target_leaves_it():
    d = alr.AlrDetector()
    d.set_estimated_bitrate(1_000_000)
    t = 0
    for _ in range(200):  # 800 kbit/s > 650: never ALR
        d.on_bytes_sent(1000, t)
        t += 10
    assert not d.in_alr
    for _ in range(300):  # 300 kbit/s: the budget fills
        d.on_bytes_sent(375, t)
        t += 10
    assert d.in_alr
    for _ in range(100):  # 1.2 Mbit/s: drains below 0.5
        d.on_bytes_sent(1500, t)
        t += 10
    assert not d.in_alr


def test_hysteresis_and_first_packet_only_starts_the_clock():
    d = alr.AlrDetector()
    d.set_estimated_bitrate(800_000)
    d.on_bytes_sent(10_000, 0)  # the first packet: nothing spent
    assert d.remaining == 0
    d.on_bytes_sent(0, 450)  # + 29 250 B: ratio 0.9
    assert d.in_alr and d.start_ms == 450
    d.on_bytes_sent(9_750, 450)  # ratio 0.6: between stop and start, still ALR
    assert d.in_alr
    d.on_bytes_sent(6_500, 450)  # ratio 0.4
    assert not d.in_alr


def test_share_on_and_errors():
    assert alr.share_on([(1.0, True), (3.0, False)], 0.0, 4.0) == pytest.approx(0.5)
    assert alr.share_on([], 0.0, 1.0) == 0.0
    with pytest.raises(ValueError, match="start < end"):
        alr.share_on([], 1.0, 1.0)
    with pytest.raises(ValueError, match="> 0 bit/s"):
        alr.AlrDetector().set_estimated_bitrate(0)
