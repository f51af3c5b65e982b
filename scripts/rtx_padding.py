#!/usr/bin/env python3
"""Chromium 156's retransmissions (NACK/RTX) and padding in the stored real runs (issue 21;
docs/REPRODUCTION.md, "Chromium's NACK/RTX retransmissions and padding, measured").

    .venv/bin/python scripts/rtx_padding.py RUN_DIR...
    .venv/bin/python scripts/rtx_padding.py --cases ROOT...   # ROOT/real/CASE/chromium/run-N

Per real run (a `run-N` folder with bottleneck-forward.csv and .pcap) the video flow's
packets at the bottleneck: the media SSRC (the flow's most frequent) and the RTX SSRC
(the others), each packet's arrival and whether the bottleneck dropped it (no departure).
The RTP payload is SRTP-encrypted, so an RTX packet's original sequence number (its
first two payload bytes, RFC 4588 section 4) cannot be read; an RTX packet is matched to
its original instead by the RTP timestamp (RFC 4588 section 4: the RTX packet keeps the
original's) and the payload length (the original's + 2, the OSN), within the frame:
- `padding`: an RTX-SSRC packet under 400 B (padding-only, 255 B of RTP padding in these
  runs; the class `gcc_target_falls.py replay` calls padding);
- `retransmission`: the first RTX of a media packet the bottleneck dropped;
- `repeat`: a further RTX of a dropped media packet (its first RTX was dropped too, or
  NACKed again after an RTT, nack_requester.cc GetNackBatch);
- `redundant`: an RTX whose frame has no dropped media packet of its length: payload
  padding (rtp_sender.cc GeneratePadding resends a recent packet as RTX,
  kRtxRedundantPayloads) or a NACK of a packet that was only late.
Equal-length packets of one frame cannot be told apart, so within a frame an RTX goes to
the dropped candidate with the fewest RTX so far (the lowest sequence number first); the
counts per frame are exact, the pairing within a frame is not.

Reported per run: the video's loss rate at the bottleneck (media packets dropped / sent),
packets and kbit/s a second of each RTX class and of padding (IP bytes), the share of
dropped media packets that get an RTX, RTX per dropped media packet, the delay from the
original's arrival at the bottleneck to its first RTX's (p25/p50/p75, ms: the NACK round
trip plus the queue the gap's next packet waited in), and, with the sender's RTC event
log (rtc-event-log-sender.log), the share of RTX-SSRC packets sent within 100 ms after a
probe cluster's creation (probe_controller / pacer probing) against elsewhere.
"""
from __future__ import annotations

import argparse
import bisect
import csv
import statistics as st
from dataclasses import dataclass
from pathlib import Path

PADDING_MAX_B = 400  # as gcc_target_falls.py: padding-only RTX packets are < 400 B here
OSN_BYTES = 2  # RFC 4588 section 4: the RTX payload starts with the original sequence number
PROBE_WINDOW_MS = 100  # padding this soon after a probe cluster is created counts as probing


@dataclass(frozen=True)
class Media:
    seq: int
    ts: int  # RTP timestamp
    payload: int  # RTP payload bytes (after header and extensions)
    arrival_us: int
    dropped: bool
    fec: bool = False  # ULPFEC (after its frame's marker packet): never retransmitted


@dataclass(frozen=True)
class Rtx:
    ts: int
    payload: int
    size: int  # IP bytes
    arrival_us: int
    dropped: bool


@dataclass(frozen=True)
class RtxClass:
    kind: str  # padding | retransmission | repeat | redundant
    delay_ms: float | None  # after the original's arrival (retransmission / repeat / redundant)


def classify(media: list[Media], rtx: list[Rtx]) -> list[RtxClass]:
    """Each RTX-SSRC packet's class (module docstring), in ``rtx``'s order (arrival)."""
    by_key: dict[tuple[int, int], list[Media]] = {}
    for m in media:
        by_key.setdefault((m.ts, m.payload), []).append(m)
    sent: dict[int, int] = {}  # media seq -> RTX so far
    out = []
    for r in rtx:
        if r.size < PADDING_MAX_B:
            out.append(RtxClass("padding", None))
            continue
        cands = [m for m in by_key.get((r.ts, r.payload - OSN_BYTES), []) if m.arrival_us <= r.arrival_us]
        lost = [m for m in cands if m.dropped]
        if lost:
            m = min(lost, key=lambda m: (sent.get(m.seq, 0), m.arrival_us))
            n = sent.get(m.seq, 0)
            sent[m.seq] = n + 1
            out.append(RtxClass("retransmission" if n == 0 else "repeat", (r.arrival_us - m.arrival_us) / 1e3))
        elif cands:
            out.append(RtxClass("redundant", (r.arrival_us - max(m.arrival_us for m in cands)) / 1e3))
        else:
            out.append(RtxClass("redundant", None))
    return out


def _payload_offset(rtp: bytes) -> int:
    """RTP header bytes: fixed 12, CSRCs, the extension block (RFC 3550 section 5.3.1)."""
    off = 12 + 4 * (rtp[0] & 15)
    if rtp[0] & 0x10:
        off += 4 + 4 * int.from_bytes(rtp[off + 2:off + 4], "big")
    return off


def read_run(rd: Path) -> tuple[list[Media], list[Rtx], str]:
    """A run's video packets at the bottleneck (media, RTX SSRC), and the flow's name."""
    import gcc_share  # scripts/

    rows = list(csv.DictReader(open(rd / "bottleneck-forward.csv")))
    counts: dict[tuple[str, str], int] = {}
    for r in rows:
        if r["ssrc"] not in ("", "0", "65536") and r["flow"] != "(overhead)":
            counts[(r["flow"], r["ssrc"])] = counts.get((r["flow"], r["ssrc"]), 0) + 1
    if not counts:
        raise SystemExit(f"{rd}: no RTP flow in bottleneck-forward.csv")
    flow, media_ssrc = max(counts, key=counts.get)
    ssrcs = {s for f, s in counts if f == flow}
    rows = [r for r in rows if r["flow"] == flow and r["ssrc"] in ssrcs]
    pkts = [p for p in gcc_share.rtp_packets(rd) if str(int.from_bytes(p[3][8:12], "big")) in ssrcs]
    media, rtx, markers = [], [], []
    k = 0
    for r in rows:
        # The pcap may hold a packet the csv lacks (p000-fig2 run-1: one): skip to the
        # next one with the row's SSRC and size.
        while k < len(pkts) and (str(int.from_bytes(pkts[k][3][8:12], "big")) != r["ssrc"]
                                 or pkts[k][1] != int(r["size"])):
            k += 1
        if k == len(pkts):
            raise SystemExit(f"{rd}: the csv's packet at arrival {r['arrival_us']} us is not in the pcap")
        _, ip_bytes, ihl, rtp = pkts[k]
        k += 1
        ts = int.from_bytes(rtp[4:8], "big")
        payload = ip_bytes - ihl - 8 - _payload_offset(rtp)
        arrival, dropped = int(r["arrival_us"]), not r["departure_us"]
        if r["ssrc"] == media_ssrc:
            media.append(Media(int.from_bytes(rtp[2:4], "big"), ts, payload, arrival, dropped))
            markers.append(rtp[1] >> 7)
        else:
            rtx.append(Rtx(ts, payload, ip_bytes, arrival, dropped))
    frames: dict[int, list] = {}
    for i, m in enumerate(media):
        frames.setdefault(m.ts, []).append((m.seq, markers[i], i))
    fec = set()  # as gcc_share.py fec and gcc_target_falls.py replay split a frame
    for pk in frames.values():
        fec.update(p[2] for p in gcc_share.split_frame(pk)[1])
    media = [Media(m.seq, m.ts, m.payload, m.arrival_us, m.dropped, i in fec) for i, m in enumerate(media)]
    return media, rtx, flow


# ---- the sender's RTC event log: the NACKs it received, and when padding was sent ----

LOSS_LIMITED = 0.95  # the target under 95 % of the delay-based estimate: loss-limited
PADDING_DURATION_MS = 2000  # loss_based_bwe_v2.cc "PaddingDuration" (M150 default 2 s)


def decode_blobs(data: bytes, n: int) -> list[bytes]:
    """blob_encoding.cc DecodeBlobs: ``n`` varint lengths, then the blobs back to back."""
    lengths, i = [], 0
    for _ in range(n):
        v = shift = 0
        while True:
            if i >= len(data):
                raise ValueError("blob lengths run past the end of the data")
            b = data[i]
            i += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        lengths.append(v)
    out = []
    for n_bytes in lengths:
        if i + n_bytes > len(data):
            raise ValueError("blob sizes exceed the data")
        out.append(data[i:i + n_bytes])
        i += n_bytes
    if i != len(data):
        raise ValueError("trailing bytes after the blobs")
    return out


def nack_items(rtcp: bytes) -> list[tuple[int, list[int]]]:
    """The Generic NACKs (RFC 4585 section 6.2.1: RTPFB, PT 205, FMT 1; each FCI a PID and a
    16-bit BLP) in one compound RTCP packet, as (media source SSRC, sequence numbers)."""
    out, i = [], 0
    while i + 4 <= len(rtcp):
        length = (int.from_bytes(rtcp[i + 2:i + 4], "big") + 1) * 4
        if rtcp[i + 1] == 205 and rtcp[i] & 0x1F == 1 and i + 12 <= len(rtcp):
            ssrc = int.from_bytes(rtcp[i + 8:i + 12], "big")
            seqs = []
            for j in range(i + 12, min(i + length, len(rtcp)) - 3, 4):
                pid, blp = int.from_bytes(rtcp[j:j + 2], "big"), int.from_bytes(rtcp[j + 2:j + 4], "big")
                seqs += [pid] + [(pid + k + 1) & 0xFFFF for k in range(16) if blp >> k & 1]
            out.append((ssrc, seqs))
        i += length
    return out


def incoming_rtcp(path: Path) -> list[tuple[int, bytes]]:
    """The sender log's received RTCP packets (log ms, bytes; rtc_event_log2.proto
    IncomingRtcpPackets: the base packet in raw_packet, the others in raw_packet_blobs)."""
    import rtc_event_log  # scripts/

    stream = rtc_event_log._message_classes().FromString(path.read_bytes())
    out = []
    for batch in stream.incoming_rtcp_packets:
        events = rtc_event_log.expand(batch)
        raws = [batch.raw_packet] + (decode_blobs(batch.raw_packet_blobs, len(events) - 1) if len(events) > 1 else [])
        for e, raw in zip(events, raws):
            out.append((e["timestamp_ms"], raw))
    return sorted(out)


def in_windows(starts: list[int], t: int, width: int) -> bool:
    """Whether ``t`` is at most ``width`` after one of the sorted ``starts``."""
    k = bisect.bisect_right(starts, t) - 1
    return k >= 0 and t - starts[k] <= width


def event_log_stats(rd: Path, dropped_seqs: set[int]) -> dict | None:
    """From rtc-event-log-sender.log: the NACKs (how many name dropped packets, NACKs per
    packet, the gap between a packet's NACKs), the RTX-SSRC packets sent within 60 ms
    after a NACK naming a packet of their size (retransmissions) or not (padding), and
    where the padding falls: within PROBE_WINDOW_MS after a probe cluster, and within
    PADDING_DURATION_MS after the target was loss-limited (under LOSS_LIMITED x the
    delay-based estimate), against the share of time each covers."""
    p = rd / "rtc-event-log-sender.log"
    if not p.exists():
        return None
    import rtc_event_log  # scripts/

    log = rtc_event_log.read(p)
    counts: dict[int, int] = {}
    for x in log.outgoing_rtp:
        counts[x.ssrc] = counts.get(x.ssrc, 0) + 1
    media = max(counts, key=counts.get)
    size = {x.sequence_number: x.payload_size for x in log.outgoing_rtp if x.ssrc == media}
    nacks = [(t, seqs) for t, raw in incoming_rtcp(p) for ssrc, seqs in nack_items(raw) if ssrc == media]
    per_seq: dict[int, list[int]] = {}
    for t, seqs in nacks:
        for q in seqs:
            per_seq.setdefault(q, []).append(t)
    regaps = [b - a for ts in per_seq.values() for a, b in zip(ts, ts[1:])]
    nack_t = [t for t, _ in nacks]
    retrans, padding = [], []
    for x in log.outgoing_rtp:
        if x.ssrc == media:
            continue
        k, after_nack = bisect.bisect_right(nack_t, x.t_ms) - 1, False
        while x.payload_size and k >= 0 and x.t_ms - nack_t[k] <= 60:
            if any(size.get(q) == x.payload_size - OSN_BYTES for q in nacks[k][1]):
                after_nack = True
                break
            k -= 1
        (retrans if after_nack else padding).append(x)
    t0, t1 = log.outgoing_rtp[0].t_ms, log.outgoing_rtp[-1].t_ms
    grid = range(t0, t1, 10)
    probes = [c.t_ms for c in log.probe_clusters]
    db = [(d.t_ms, d.bitrate_bps) for d in log.delay_based]
    lb = [(d.t_ms, d.bitrate_bps) for d in log.loss_based]

    def last(series: list[tuple[int, int]], t: int) -> int | None:
        k = bisect.bisect_right(series, (t, float("inf"))) - 1
        return series[k][1] if k >= 0 else None

    limited = [t for t in grid if (d := last(db, t)) is not None and (v := last(lb, t)) is not None
               and v < LOSS_LIMITED * d]
    return {
        "nacked": len(per_seq), "nacked_dropped": len(set(per_seq) & dropped_seqs),
        "nacks_per_packet": st.mean(len(v) for v in per_seq.values()) if per_seq else float("nan"),
        "renack_gaps": regaps, "rtx_after_nack": len(retrans), "padding": len(padding),
        "padding_only": sum(x.payload_size == 0 for x in padding),
        "probe_time": sum(in_windows(probes, t, PROBE_WINDOW_MS) for t in grid) / len(grid),
        "padding_near_probe": sum(in_windows(probes, x.t_ms, PROBE_WINDOW_MS) for x in padding),
        "limited_time": sum(in_windows(limited, t, PADDING_DURATION_MS) for t in grid) / len(grid),
        "padding_after_limited": sum(in_windows(limited, x.t_ms, PADDING_DURATION_MS) for x in padding),
    }


def q3(xs: list[float]) -> str:
    if not xs:
        return "-"
    s = sorted(xs)
    return f"{s[len(s) // 4]:.0f} / {s[len(s) // 2]:.0f} / {s[3 * len(s) // 4]:.0f}"


def summarize(media: list[Media], rtx: list[Rtx], classes: list[RtxClass]) -> dict:
    """Rates a second over the flow's span at the bottleneck; loss over all media-SSRC
    packets and over those not ULPFEC (the retransmittable ones)."""
    t = [m.arrival_us for m in media] + [r.arrival_us for r in rtx]
    secs = max((max(t) - min(t)) / 1e6, 1e-6)
    dropped = sum(m.dropped for m in media)
    video = [m for m in media if not m.fec]
    vdrop = sum(m.dropped for m in video)
    out = {"seconds": secs, "media_pkts": len(media), "media_dropped": dropped,
           "loss": dropped / len(media) if media else 0.0,
           "video_dropped": vdrop, "video_loss": vdrop / len(video) if video else 0.0}
    for kind in ("retransmission", "repeat", "redundant", "padding"):
        sel = [r for r, c in zip(rtx, classes) if c.kind == kind]
        out[f"{kind}_pps"] = len(sel) / secs
        out[f"{kind}_kbps"] = sum(r.size for r in sel) * 8 / secs / 1e3
        out[f"{kind}_delays"] = [c.delay_ms for c in classes if c.kind == kind and c.delay_ms is not None]
        out[f"{kind}_n"] = len(sel)
    out["rtx_share_of_dropped"] = out["retransmission_n"] / vdrop if vdrop else float("nan")
    out["rtx_per_dropped"] = (out["retransmission_n"] + out["repeat_n"]) / vdrop if vdrop else float("nan")
    return out


HEADER = ("| run | loss: media SSRC / without ULPFEC | retransmissions /s (kbit/s) | repeats /s | "
          "redundant /s (kbit/s) | padding-only /s (kbit/s) | dropped video packets with an RTX | "
          "RTX per dropped video packet | first RTX after the drop, ms p25 / p50 / p75 |")
EV_HEADER = ("| run | NACKed packets (dropped) | NACKs per packet | re-NACK gap ms p25 / p50 / p75 | "
             "RTX-SSRC sent: after a NACK / padding (padding-only) | padding near a probe (time share) | "
             "padding within 2 s of loss-limited (time share) |")


def row(name: str, s: dict) -> str:
    return (f"| {name} | {s['loss']:.3f} / {s['video_loss']:.3f} ({s['video_dropped']}) | "
            f"{s['retransmission_pps']:.2f} ({s['retransmission_kbps']:.1f}) | {s['repeat_pps']:.2f} | "
            f"{s['redundant_pps']:.2f} ({s['redundant_kbps']:.1f}) | "
            f"{s['padding_pps']:.2f} ({s['padding_kbps']:.2f}) | {s['rtx_share_of_dropped']:.2f} | "
            f"{s['rtx_per_dropped']:.2f} | {q3(s['retransmission_delays'])} |")


def ev_row(name: str, e: dict) -> str:
    pad = max(e["padding"], 1)
    return (f"| {name} | {e['nacked']} ({e['nacked_dropped']}) | {e['nacks_per_packet']:.2f} | "
            f"{q3(e['renack_gaps'])} | {e['rtx_after_nack']} / {e['padding']} ({e['padding_only']}) | "
            f"{e['padding_near_probe'] / pad:.2f} ({e['probe_time']:.2f}) | "
            f"{e['padding_after_limited'] / pad:.2f} ({e['limited_time']:.2f}) |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", type=Path, help="run-N folders, or with --cases output roots")
    ap.add_argument("--cases", action="store_true", help="paths are roots holding real/CASE/chromium/run-N")
    a = ap.parse_args(argv)
    runs = []
    for p in a.paths:
        runs += sorted(p.glob("real/*/chromium/run-*")) if a.cases else [p]
    for p in runs:
        if not (p / "bottleneck-forward.csv").exists() or not (p / "bottleneck-forward.pcap").exists():
            raise SystemExit(f"{p}: no bottleneck-forward.csv and .pcap (not a real run folder)")
    rows, ev_rows = [], []
    for p in runs:
        name = f"{p.parents[3].name}: {p.parent.parent.name} {p.name}" if a.cases else str(p)
        media, rtx, _ = read_run(p)
        rows.append(row(name, summarize(media, rtx, classify(media, rtx))))
        e = event_log_stats(p, {m.seq for m in media if m.dropped})
        if e:
            ev_rows.append(ev_row(name, e))
    print(HEADER)
    print("|---" * (HEADER.count(" | ") + 1) + "|")
    print("\n".join(rows))
    if ev_rows:
        print()
        print(EV_HEADER)
        print("|---" * (EV_HEADER.count(" | ") + 1) + "|")
        print("\n".join(ev_rows))
    return 0


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    raise SystemExit(main())
