"""The IP-level bottleneck's packet captures of a `flowstate browser` run
(`bottleneck-forward.pcap`, `bottleneck-reverse.pcap`: libpcap format, raw IPv4 link type,
the first bytes of each packet; docs/BROWSER.md), read without a dependency: one reader
for the scripts that take RTP or RTCP headers from them (gcc_share.py, encoder_fps.py,
feedback_cadence.py).
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Iterator, Optional

#: libpcap's magic numbers, microsecond and nanosecond timestamps, as written by the host
#: that captured (read little-endian: these two mean the file is little-endian).
PCAP_MAGIC = (0xA1B2C3D4, 0xA1B23C4D)
PCAP_HEADER_BYTES = 24
RECORD_HEADER_BYTES = 16
IPV4_MIN_HEADER_BYTES = 20
UDP_HEADER_BYTES = 8
IPPROTO_UDP = 17


def udp_records(pcap: Path, first_us: Optional[int] = None) -> Iterator[tuple[float, int, int, bytes]]:
    """Each IPv4/UDP record of ``pcap`` as (time s, the packet's IP bytes on the wire, its
    IP header bytes, the captured UDP payload). The time is the capture's clock, or, with
    ``first_us``, that clock moved so that the file's first record (of any kind) is at
    ``first_us`` microseconds: the run's clock, whose first arrival the run's csv holds.
    A file too short for a pcap header is a one-line error (SystemExit)."""
    data = pcap.read_bytes()
    if len(data) < PCAP_HEADER_BYTES:
        raise SystemExit(f"{pcap}: no pcap header ({len(data)} bytes)")
    endian = "<" if struct.unpack("<I", data[:4])[0] in PCAP_MAGIC else ">"
    off, origin = PCAP_HEADER_BYTES, None
    while off + RECORD_HEADER_BYTES <= len(data):
        sec, frac, incl, orig = struct.unpack(endian + "IIII", data[off:off + RECORD_HEADER_BYTES])
        pkt = data[off + RECORD_HEADER_BYTES:off + RECORD_HEADER_BYTES + incl]
        off += RECORD_HEADER_BYTES + incl
        t = sec + frac / 1e6
        origin = t if origin is None else origin
        if first_us is not None:
            t = t - origin + first_us / 1e6
        if len(pkt) < IPV4_MIN_HEADER_BYTES or pkt[0] >> 4 != 4 or pkt[9] != IPPROTO_UDP:
            continue
        ihl = (pkt[0] & 15) * 4
        yield t, orig, ihl, pkt[ihl + UDP_HEADER_BYTES:]


def is_rtcp(payload: bytes) -> bool:
    """RTP version 2 with a packet type in RTCP's range, 192-223 (RFC 5761 section 4)."""
    return len(payload) >= 8 and payload[0] >> 6 == 2 and 192 <= payload[1] <= 223


def is_rtp(payload: bytes) -> bool:
    """RTP version 2, a 12-byte header at least, and not RTCP (RFC 3550 5.1, RFC 5761 4)."""
    return len(payload) >= 12 and payload[0] >> 6 == 2 and not 192 <= payload[1] <= 223
