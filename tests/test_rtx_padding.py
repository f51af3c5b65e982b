"""scripts/rtx_padding.py: Chromium's RTX packets matched to the media packets the
bottleneck dropped (RFC 4588: same RTP timestamp, payload + the 2-byte OSN), Generic NACKs
read from RTCP (RFC 4585 section 6.2.1), the event log's RTCP blobs (blob_encoding.cc),
on hand-made vectors and on the real Chromium 156 sender log of tests/data."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import rtx_padding as rp  # noqa: E402

REAL_LOG = ROOT / "tests" / "data" / "rtc-event-log-sender-15s.log"


def frame(ts: int, first_seq: int, dropped: list[bool], payload: int = 1000, t_us: int = 0) -> list[rp.Media]:
    return [rp.Media(first_seq + i, ts, payload, t_us + 100 * i, d) for i, d in enumerate(dropped)]


def test_each_dropped_packet_gets_one_retransmission_then_repeats():
    media = frame(90_000, 10, [False, True, True])
    rtx = [rp.Rtx(90_000, 1002, 1100, 150_000 + i, False) for i in range(3)]
    kinds = [c.kind for c in rp.classify(media, rtx)]
    # two dropped packets of the frame: two first retransmissions, the third RTX a repeat
    assert kinds == ["retransmission", "retransmission", "repeat"]


def test_delay_is_from_the_originals_arrival():
    media = frame(90_000, 10, [True], t_us=1_000_000)
    (c,) = rp.classify(media, [rp.Rtx(90_000, 1002, 1100, 1_450_000, False)])
    assert c.kind == "retransmission" and c.delay_ms == pytest.approx(450.0)


def test_rtx_of_a_frame_without_a_drop_is_redundant_and_small_ones_are_padding():
    media = frame(90_000, 10, [False, False]) + frame(93_000, 12, [True], payload=800)
    rtx = [rp.Rtx(90_000, 1002, 1100, 200_000, False),  # its frame lost nothing: payload padding
           rp.Rtx(93_000, 1002, 1100, 200_100, False),  # the dropped one has another length
           rp.Rtx(0, 255, 317, 200_200, False)]  # padding-only (< 400 B)
    assert [c.kind for c in rp.classify(media, rtx)] == ["redundant", "redundant", "padding"]


def test_the_osn_is_counted_in_the_match():
    media = frame(90_000, 10, [True])
    # without the 2-byte OSN the lengths would be equal: not the same packet
    (c,) = rp.classify(media, [rp.Rtx(90_000, 1000, 1100, 200_000, False)])
    assert c.kind == "redundant"


def test_summary_counts_ulpfec_apart():
    media = frame(90_000, 10, [True, False]) + [rp.Media(12, 90_000, 500, 300, True, fec=True)]
    rtx = [rp.Rtx(90_000, 1002, 1100, 1_000_000, False)]
    s = rp.summarize(media, rtx, rp.classify(media, rtx))
    assert s["media_dropped"] == 2 and s["video_dropped"] == 1
    assert s["rtx_share_of_dropped"] == 1.0 and s["rtx_per_dropped"] == 1.0


def nack(ssrc: int, fci: list[tuple[int, int]]) -> bytes:
    body = (1).to_bytes(4, "big") + ssrc.to_bytes(4, "big")
    body += b"".join(p.to_bytes(2, "big") + b.to_bytes(2, "big") for p, b in fci)
    return bytes([0x80 | 1, 205]) + ((len(body) + 4) // 4 - 1).to_bytes(2, "big") + body


def test_generic_nack_pid_and_blp():
    rr = bytes([0x80, 201, 0, 1]) + (7).to_bytes(4, "big")  # an empty receiver report first
    tf = bytes([0x80 | 15, 205, 0, 2]) + bytes(8)  # transport feedback (FMT 15): not a NACK
    items = rp.nack_items(rr + tf + nack(42, [(100, 0b101), (65535, 1)]))
    assert items == [(42, [100, 101, 103, 65535, 0])]


def test_blobs_decode_and_bad_blobs_are_named():
    data = bytes([3, 0, 130, 1]) + b"abc" + b"x" * 130
    assert rp.decode_blobs(data, 3) == [b"abc", b"", b"x" * 130]
    with pytest.raises(ValueError, match="exceed"):
        rp.decode_blobs(bytes([5]) + b"ab", 1)
    with pytest.raises(ValueError, match="trailing"):
        rp.decode_blobs(bytes([1]) + b"ab", 1)


def test_in_windows():
    assert rp.in_windows([0, 1000], 1100, 100)
    assert not rp.in_windows([0, 1000], 1101, 100)
    assert not rp.in_windows([1000], 999, 100)


def test_real_log_nacks():
    """The 15 s sender log: 19 Generic NACKs, the first for 12008-12013 twice (the
    receiver's re-NACK after its RTT, nack_requester.cc GetNackBatch)."""
    events = rp.incoming_rtcp(REAL_LOG)
    nacks = [(t, x) for t, raw in events for x in rp.nack_items(raw)]
    assert len(events) == 266 and len(nacks) == 19
    assert nacks[0][1][1] == list(range(12008, 12014)) == nacks[1][1][1]
    assert nacks[1][0] - nacks[0][0] == 208


def test_replay_splits_rtx_into_retransmissions_and_payload_padding():
    """gcc_target_falls.py replay --leave-out retransmissions / payload-padding."""
    import gcc_target_falls as gtf

    classes = [(1, 2, 1100, "media"), (3, 4, 1100, "rtx"), (5, 6, 1100, "rtx"), (7, 8, 317, "padding")]
    split = gtf.relabel_rtx(classes, {(3, 1100): "repeat", (5, 1100): "redundant", (7, 317): "padding"})
    assert [c[3] for c in split] == ["media", "retransmissions", "payload-padding", "padding"]
    assert [c[0] for c in gtf.kept(split, ["payload-padding"])] == [1, 3, 7]
    assert [c[0] for c in gtf.kept(split, ["rtx"])] == [1, 7]
    assert [c[0] for c in gtf.kept(classes, ["rtx", "padding"])] == [1]
