"""flowstate's NADA and SCReAM against their reference implementations on matched
set-ups: cisco/ns3-rmcat on RFC 8867 5.1-5.8 and EricssonResearch/scream's v1 on three
RFC 8867 cases (two records: two drivers of the same reference code), figures recorded
in references/rmcat/ (how: each file's `figures`).

Every recorded window and flow is compared (tools/reference_parity.py runs ours; about
a second for all). Tolerances, the same for every case:

- throughput: within 10 % of the reference + 0.03 Mbit/s. Where the reference's NADA
  sits at RMAX (its r_ref caps the payload rate: 1,000 B payloads + 40 B headers on the
  wire), ours is expected at the reference x 1,000 / 1,040 (ours caps the wire rate:
  docs/REPRODUCTION.md, "NADA and SCReAM against their reference implementations");
- mean queuing delay: within 10 ms or 25 %, whichever is larger; p95 within 15 ms or
  25 %;
- loss: within 1 percentage point.

A window whose difference is not removed is a strict expected failure naming what is
known of its cause (KNOWN below; "open" where the cause is not yet found); every other
window must agree.
"""

from __future__ import annotations

import math

import pytest
import reference_parity

# (reference, case, window, flow) -> why it differs. Every entry is strict: the day
# the window agrees, the test says so and the entry goes.
_SCREAM_RECORD = (
    "the first record's driver is not reproduced: the reference code (cf72377) run by a "
    "second driver written to the first record's description (the -rerun record) gives "
    "12-18 ms of mean queuing delay here, as ours does (14-20 ms), against the first "
    "record's 26-33 ms, and 1.39 Mbit/s in 5.1's 45-60 s against its 1.24; drivers that "
    "fit that description differ by as much (maximum-size packets, or feedback sent on a "
    "packet's arrival: 5.1 20-40 s 12-17 ms, 5.2 30-50 s 15-28 ms, 5.1 45-60 s 1.24-1.41 "
    "Mbit/s). Every departure of the reference code from RFC 8298 found is an option set "
    "in the matched scenarios (docs/ALGORITHMS.md, SCReAM differences 3 and 11-23)"
)
_SCREAM_P95 = (
    "open: the mean queuing delay agrees with the reference code run on the same set-up "
    "(the -rerun record), the 95th percentile does not: ours is higher (75-83 against "
    "47-59 ms). Every departure of the reference code found is set as an option "
    "(docs/ALGORITHMS.md, SCReAM differences 3 and 11-23); the cause is not yet found"
)
_NADA_SHARE = (
    "open, run-dependent: after the drop to 1 Mbps (75 s) into a full queue the split "
    "and the queue depend on the run. With the reference's sender timing (spread_frames, "
    "send_oversleep = 0.01) seeds 1-5 of ours give media1 0.45-0.68 and media2 "
    "0.40-0.59 Mbit/s with 37-273 ms of mean queue over 80-100 s (the reference's one "
    "run: 0.49 / 0.59 Mbit/s, 138-149 ms), and media1 0.82-1.21 Mbit/s over 105-125 s "
    "(seed 4: 0.82 / 1.28 at 16 ms, the reference: 0.76 / 1.23 at 16 ms); one reference run cannot "
    "separate the model from the run's chance"
)
_NADA_RTT = (
    "open, cause measured: every flow is in the gradual update, whose equilibrium gives "
    "each flow XREF * RMAX / x_curr, so the split follows each flow's queuing-delay "
    "estimate. The late flows' base delay is the least one-way delay seen since they "
    "joined, too high by the smallest queue they met: the reference's queue dips to 9 ms "
    "at 49.8 s (a 200 ms gap in two senders' output while their r_ref rose), so media4 "
    "and media5 read 8.5 ms too little (14.5 against 23 ms); ours never falls below "
    "19.5 ms after 40 s, so media4 reads 16 ms and media5 24 ms too little (media5 at "
    "RMAX). The reference sender's timing as its code reads (spread_frames, "
    "send_oversleep = 0.01) is set and makes no such gap; what does is not found"
)
_NADA_TCP = (
    "open, TCP model: with ns3-rmcat's TCP setting (every segment acked, its "
    "DelAckCount 0: delayed_ack = false; SACK and timestamps, ns-3's defaults) NADA "
    "takes less than in the reference (5.6: 0.58 against 0.74 Mbit/s, TCP 1.52 against "
    "1.35; with delayed acks 0.95 / 1.15): the ack rule moves 0.37 Mbit/s, the whole "
    "difference and 0.16 more. ns-3.37's PRR recovery (RFC 6937, its default) is not "
    "modelled (ours recovers by RFC 6675's pipe); 5.7: media1 0.93 against 0.76, media2 "
    "0.76 against 0.85"
)
_NADA_P95 = (
    "open: the 95th percentile of the queuing delay differs while the mean agrees "
    "(5.1 65-80 s: 66 against 49 ms; 5.8 20-40 s: 15 against 43-46 ms). The reference "
    "sender's timing is set (spread_frames: a frame's packets enter the shaping buffer "
    "over the frame interval; send_oversleep = 0.01: each leaves 0-1 % of its gap late) "
    "and does not move it; the cause is not found"
)
KNOWN: dict[tuple[str, str, str, str], str] = {
    **{("ericsson-scream-v1", c, w, f): _SCREAM_RECORD for c, w, fl in [
        ("5.1", "20-40", ["media"]), ("5.1", "45-60", ["media"]),
        ("5.2", "30-50", ["media1", "media2"]), ("5.2", "80-100", ["media2"]),
        ("5.4", "60-120", ["media1", "media2", "media3"])] for f in fl},
    **{("ericsson-scream-v1-rerun", c, w, f): _SCREAM_P95 for c, w, fl in [
        ("5.1", "65-80", ["media"]), ("5.2", "30-50", ["media1", "media2"]),
        ("5.2", "80-100", ["media1", "media2"])] for f in fl},
    **{("ns3-rmcat-nada", c, w, f): _NADA_SHARE for c, w, fl in [
        ("5.2", "80-100", ["media1"]), ("5.2", "105-125", ["media1", "media2"])] for f in fl},
    **{("ns3-rmcat-nada", "5.5", "100-299", f): _NADA_RTT
       for f in ["media1", "media2", "media3", "media5"]},
    **{("ns3-rmcat-nada", c, w, f): _NADA_TCP for c, w, fl in [
        ("5.6", "50-80", ["media", "tcp"]), ("5.7", "20-299", ["media1", "tcp"])] for f in fl},
    **{("ns3-rmcat-nada", c, w, f): _NADA_P95 for c, w, fl in [
        ("5.1", "65-80", ["media"]), ("5.8", "20-40", ["media1", "media2", "media3"])] for f in fl},
}


def _cases():
    out = []
    for name in reference_parity.REFERENCES:
        ref = reference_parity.load(name)
        for case, c in ref["cases"].items():
            for window, flows in c["windows"].items():
                out.append(pytest.param(name, case, window, c["scenario"], flows, id=f"{name}-{case}-{window}"))
    return out


def _rmax_capped(name: str, mbps: float) -> bool:
    # ns3-rmcat's RMAX, 1500 x 1024 bit/s of payload, is about 1.60 Mbit/s of IP bytes.
    return name == "ns3-rmcat-nada" and mbps >= 1.55


def _problems(name, flow, theirs, ours) -> list[str]:
    out = []
    t, m = theirs["throughput_mbps"], ours["throughput_mbps"]
    expected = t * 1000 / 1040 if _rmax_capped(name, t) else t
    if abs(m - expected) > 0.10 * expected + 0.03:
        out.append(f"{flow}: throughput {m:.3f} Mbit/s, expected {expected:.3f}")
    for key, abs_tol in (("queuing_mean_ms", 10.0), ("queuing_p95_ms", 15.0)):
        if theirs[key] is None or ours[key] is None:
            continue
        if abs(ours[key] - theirs[key]) > max(abs_tol, 0.25 * theirs[key]):
            out.append(f"{flow}: {key} {ours[key]:.1f}, reference {theirs[key]:.1f}")
    if theirs["loss_ratio"] is not None and ours["loss_ratio"] is not None:
        if abs(ours["loss_ratio"] - theirs["loss_ratio"]) > 0.01:
            out.append(f"{flow}: loss {ours['loss_ratio']:.4f}, reference {theirs['loss_ratio']:.4f}")
    return out


@pytest.mark.parametrize("name,case,window,scenario,flows", _cases())
def test_window_agrees_with_the_reference(request, name, case, window, scenario, flows):
    t0, t1 = (float(x) for x in window.split("-"))
    ours = reference_parity.ours(scenario, t0, t1, list(flows))
    problems = []
    for flow, theirs in flows.items():
        why = KNOWN.get((name, case, window, flow))
        p = _problems(name, flow, theirs, ours[flow])
        if p and why:
            request.applymarker(pytest.mark.xfail(reason=why, strict=True))
        problems += p
    assert not problems, f"{name} {case} {window}: " + "; ".join(problems)


def test_every_reference_names_its_source_and_method():
    for name in reference_parity.REFERENCES:
        ref = reference_parity.load(name)
        for key in ("reference", "source_revision", "parameters", "figures", "cases"):
            assert ref.get(key), f"{name}: no {key}"
        for case, c in ref["cases"].items():
            assert (reference_parity.ROOT / c["scenario"]).is_file(), f"{name} {case}: {c['scenario']}"
            for window, flows in c["windows"].items():
                for flow, fig in flows.items():
                    assert math.isfinite(fig["throughput_mbps"]), (name, case, window, flow)


def test_a_tolerance_can_fail():
    theirs = {"throughput_mbps": 1.0, "queuing_mean_ms": 20.0, "queuing_p95_ms": 40.0, "loss_ratio": 0.0}
    assert not _problems("x", "f", theirs, dict(theirs))
    assert _problems("x", "f", theirs, dict(theirs, throughput_mbps=1.2))
    assert _problems("x", "f", theirs, dict(theirs, queuing_mean_ms=35.0))
    assert _problems("x", "f", theirs, dict(theirs, queuing_p95_ms=60.0))
    assert _problems("x", "f", theirs, dict(theirs, loss_ratio=0.02))
