"""ECN as a real call saw it: Chromium's own ECN counters (getStats, W3C webrtc-stats,
as Chromium 156 reports them once RFC 8888 feedback is negotiated) beside the
bottleneck's count of the codepoints each flow's packets arrived with; and whether
SCReAM v2 engaged (docs/BROWSER.md, "L4S: SCReAM v2 in Chromium").

Chromium's counters count from the start of the call, so the summary's figures are
the whole run's (as ``ce_marks``): the latest sample of each counter.
"""

from __future__ import annotations

from typing import Any, Optional

from flowstate.browser.plan import FlowPlan

#: summary.json ``ecn`` keys -> (getStats sample kind, the sample's field): the sender's
#: outbound-rtp and remote-inbound-rtp (the receiver's feedback), the receiver's
#: inbound-rtp.
GETSTATS_COUNTERS = {
    "ect1_sent_packets": ("video", "packets_sent_with_ect1"),
    "bleached_ect1_packets": ("video", "packets_with_bleached_ect1_marking"),
    "reported_lost_packets": ("video", "packets_reported_as_lost"),
    "ect1_received_packets": ("inbound-video", "packets_received_with_ect1"),
    "ce_received_packets": ("inbound-video", "packets_received_with_ce"),
}


def _latest(samples: list[dict[str, Any]], field: str) -> Optional[int]:
    """The newest non-null value of a counter among ``samples`` (oldest first)."""
    for s in reversed(samples):
        if s.get(field) is not None:
            return int(s[field])
    return None


def ecn_counters(
    flow: str,
    getstats: list[dict[str, Any]],
    ssrcs: dict[int, str],
    bottleneck: dict[str, Any],
) -> dict[str, Any]:
    """The summary's ``ecn`` block of video flow ``flow``: getStats' counters (None when
    Chromium reported none: no RFC 8888 feedback) and the bottleneck's
    (``bottleneck``: `bottleneck_codepoints` of the flow)."""
    out: dict[str, Any] = {}
    for key, (kind, field) in GETSTATS_COUNTERS.items():
        if kind == "video":
            values = [_latest([s for s in getstats if s.get("kind") == kind and s.get("flow") == flow], field)]
        else:
            # One inbound-rtp per SSRC of the flow (its media SSRC; RTX has none of its own).
            by_ssrc: dict[int, list[dict[str, Any]]] = {}
            for s in getstats:
                if s.get("kind") == kind and s.get("ssrc") is not None and ssrcs.get(int(s["ssrc"])) == flow:
                    by_ssrc.setdefault(int(s["ssrc"]), []).append(s)
            values = [_latest(v, field) for v in by_ssrc.values()]
        known = [v for v in values if v is not None]
        out[key] = sum(known) if known else None
    out.update(bottleneck)
    out["engaged"] = bool((out["ect1_sent_packets"] or 0) > 0 or out["ect1_bottleneck_packets"] > 0)
    return out


def bottleneck_codepoints(
    flow: str, owners: list[str], codepoints: list[str], arrival_s: list[float]
) -> dict[str, Any]:
    """The bottleneck's own count of ``flow``'s forward packets that arrived ECT(1) and
    that arrived CE (marked upstream; none on this path), and the scenario time of its
    first ECT(1) packet (None: none arrived)."""
    ect1 = [t for o, c, t in zip(owners, codepoints, arrival_s) if o == flow and c == "ect1"]
    return {
        "ect1_bottleneck_packets": len(ect1),
        "ce_arrived_bottleneck_packets": sum(1 for o, c in zip(owners, codepoints) if o == flow and c == "ce"),
        "first_ect1_s": min(ect1) if ect1 else None,
    }


def add_ecn(
    summary: dict[str, Any],
    flows: list[FlowPlan],
    getstats: list[dict[str, Any]],
    ssrcs: dict[int, str],
    records: dict[str, list],
    owners: list[str],
    offset_s: float,
) -> dict[str, bool]:
    """Give each ECN-capable video flow of ``summary`` its ``ecn`` block (whole run);
    returns, per SCReAM v2 flow, whether it engaged (ECT(1) sent or seen at the
    bottleneck)."""
    codepoints = list(records.get("ecn") or [])
    arrival = [a / 1e6 + offset_s for a in records.get("arrival_us") or []]
    engaged: dict[str, bool] = {}
    rows = {r["name"]: r for r in summary["flows"]}
    for f in flows:
        if f.transport != "video" or f.ecn == "off":
            continue
        block = ecn_counters(f.name, getstats, ssrcs, bottleneck_codepoints(f.name, owners, codepoints, arrival))
        rows[f.name]["ecn"] = block
        if f.kind == "scream-v2":
            engaged[f.name] = block["engaged"]
    return engaged
