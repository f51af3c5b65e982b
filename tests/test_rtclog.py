"""flowstate.rtclog and `flowstate rtclog`: libwebrtc's delta encoding decoded on
hand-made vectors (delta_encoding.cc's bit layout), and a real Chromium 156 log
(tests/data/rtc-event-log-sender-15s.log: the sender of a 15 s p000-table5 set-up run
with `flowstate browser --rtc-event-log`, the data channel from 5 s) read whole."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_support import assert_one_line_error, flowstate
from flowstate.errors import FlowstateError
from flowstate.rtclog import event_log as rel

ROOT = Path(__file__).resolve().parents[1]

REAL_LOG = ROOT / "tests" / "data" / "rtc-event-log-sender-15s.log"


def bits(s: str) -> bytes:
    """A bit string (spaces ignored), most significant bit first, zero-padded to bytes."""
    s = s.replace(" ", "")
    s += "0" * (-len(s) % 8)
    return int(s, 2).to_bytes(len(s) // 8, "big")


def test_no_bytes_means_every_value_equals_the_base():
    assert rel.decode_deltas(b"", 7, 3) == [7, 7, 7]
    assert rel.decode_deltas(b"", None, 2) == [None, None]


def test_unsigned_deltas_without_header_options():
    # type 00, delta width 2 (stored 1), deltas 1, 2, 3 from base 10.
    assert rel.decode_deltas(bits("00 000001 01 10 11"), 10, 3) == [11, 13, 16]


def test_unsigned_deltas_wrap_at_the_value_width():
    # type 01: delta width 4, unsigned, no optional values, value width 8; 250 + 10 wraps to 4.
    assert rel.decode_deltas(bits("01 000011 0 0 000111 1010"), 250, 1) == [4]


def test_signed_deltas_and_missing_values():
    # type 01: delta width 3, signed, optional, value width 8; exists 1 0 1; -2 (110), +3 (011).
    assert rel.decode_deltas(bits("01 000010 1 1 000111 101 110 011"), 100, 3) == [98, None, 101]


def test_without_a_base_the_first_value_is_a_varint():
    # type 01: delta width 1, unsigned, optional, value width 64; 300 as a varint (0xac 0x02), then +1.
    data = bits("01 000000 0 1 111111 1 1 10101100 00000010 1")
    assert rel.decode_deltas(data, None, 2) == [300, 301]


def test_signed_fields_round_trip_through_the_unsigned_form():
    assert rel.to_unsigned(-1, 64) == 2**64 - 1
    assert rel.to_signed(2**64 - 1, 64) == -1
    assert rel.to_signed(rel.to_unsigned(-123456, 32), 32) == -123456
    with pytest.raises(rel.EventLogError, match="does not fit"):
        rel.to_signed(2**32, 32)


@pytest.mark.parametrize(
    "data,words",
    [
        (bits("10 000001"), "unknown encoding type 2"),
        (bits("00 000011 01"), "truncated"),
        (bits("01 000111 0 0 000011"), "delta width 8 above value width 4"),
    ],
)
def test_corrupt_encodings_are_errors(data, words):
    with pytest.raises(rel.EventLogError, match=words):
        rel.decode_deltas(data, 0, 3)


def test_a_real_chromium_log_decodes_consistently():
    log = rel.read(REAL_LOG)
    rtp = log.outgoing_rtp
    assert len(rtp) == 1810
    # Every sent packet carries the next transport-wide sequence number, and each SSRC's
    # RTP sequence numbers go up by one: the batches' deltas decoded right.
    tsn = [p.transport_sequence_number for p in rtp]
    assert all(b - a == 1 for a, b in zip(tsn, tsn[1:]))
    for ssrc in {p.ssrc for p in rtp}:
        seq = [p.sequence_number for p in rtp if p.ssrc == ssrc]
        assert all((b - a) % 65536 == 1 for a, b in zip(seq, seq[1:])), ssrc
    for kind in rel.KINDS:
        t = [x.t_ms for x in getattr(log, kind)]
        assert t == sorted(t), kind
    # GCC's start: the initial probes at 900 and 1,800 kbit/s (probe_controller.cc:
    # 3x and 6x the 300 kbit/s start), the first target 300 kbit/s.
    assert [c.bitrate_bps for c in log.probe_clusters[:2]] == [900_000, 1_800_000]
    assert log.loss_based[0].bitrate_bps == 300_000
    assert {u.state for u in log.delay_based} == {"normal", "overusing", "underusing"}
    assert 100_000 < min(u.bitrate_bps for u in log.delay_based) < max(u.bitrate_bps for u in log.delay_based) < 5e6
    assert [a.in_alr for a in log.alr] == [True, False]  # video alone, then the data channel
    # Over the run's 15 s, on the Unix clock of the BeginLogEvent.
    assert 14 < rtp[-1].unix_s - rtp[0].unix_s < 16


def test_bad_files_are_one_line_errors(tmp_path):
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    legacy = tmp_path / "legacy.log"
    legacy.write_bytes(b"\x0a\x02\x08\x01")
    cut = tmp_path / "cut.log"
    cut.write_bytes(REAL_LOG.read_bytes()[:1000])
    fifo = tmp_path / "fifo.log"
    os.mkfifo(fifo)
    for path, words in [(empty, "empty file"), (legacy, "the legacy format"), (cut, "not a complete EventStream"),
                        (tmp_path / "none.log", "cannot read"), (tmp_path, "is a folder"),
                        (fifo, "is a FIFO; an RTC event log must be a regular file")]:
        assert_one_line_error(flowstate("rtclog", path), str(path), words)
        with pytest.raises(FlowstateError, match=words):  # the CLI's bad-input class
            rel.read(path)


def test_the_summary_counts_every_kind():
    p = flowstate("rtclog", REAL_LOG)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith(f"{REAL_LOG}: began 1795675682.")
    assert [line.split(":")[0].strip() for line in lines[1:]] == list(rel.KINDS)
    assert "  outgoing_rtp: 1810, 0.1-15.0 s" in lines
    assert "  probe_failure: 0" in lines


def test_csv_of_one_kind():
    p = flowstate("rtclog", REAL_LOG, "--csv", "probe_clusters")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "t_ms,unix_s,id,bitrate_bps,min_packets,min_bytes"
    assert lines[1].endswith(",1,900000,5,1688")


def test_without_protobuf_it_is_a_one_line_error():
    # The package is an extra (`rtclog`): its absence is named, as browser names playwright.
    code = ("import sys; sys.modules['google.protobuf'] = None; from flowstate.cli.main import main; "
            f"sys.exit(main(['rtclog', {str(REAL_LOG)!r}]))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert_one_line_error(p, "needs the Python package protobuf", "the rtclog extra")
