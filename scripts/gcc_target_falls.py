#!/usr/bin/env python3
"""GCC's target falls, real Chromium 156 against the simulator (issue 21;
docs/REPRODUCTION.md, "GCC's target against Chromium's under competition").

    .venv/bin/python scripts/gcc_target_falls.py real FLOW FROM TO RUN_DIR...
    .venv/bin/python scripts/gcc_target_falls.py trace FROM TO TRACE...

`real`: per real run (a `run-N` folder with bottleneck-forward.csv and timeseries.csv)
the acknowledged rate libwebrtc's RobustThroughputEstimator would report (M150 defaults,
`acknowledged_bitrate_estimator_interface.h`: window 20 packets and 1 s, at most 500
packets and 5 s, at least 10 packets; rate = min(receive rate less the largest receive gap
plus the second largest, send rate), send time = the bottleneck's arrival, receive time =
its departure, evaluated every 50 ms) against the flow's throughput over the second
before, and each fall of `availableOutgoingBitrate` (a 0.5 s sample under 95 % of the
previous one) against AimdRateControl's decrease, 0.85 x acknowledged rate - 5 kbit/s
(`aimd_rate_control.cc` kRcDecrease), over the fall's interval +- 0.5 s.

    .venv/bin/python scripts/gcc_target_falls.py aimd FROM TO [--real RUN_DIR...] [--traces TRACE...]
    .venv/bin/python scripts/gcc_target_falls.py replay FROM TO [--real RUN_DIR...] [--traces TRACE...]
        [--send-resolution-us 1000] [--leave-out rtx padding fec]

`aimd`: the delay-based estimate's sawtooth per run, Chromium's (the sender's RTC event
log) against the simulator's (traces of scripts/patches/issue21-trace-aimd.patch, `D`
lines: the estimate and the detector state at every transport feedback): its mean level,
over-use and under-use episodes a minute and their duration, decreases of 5 % or more a
minute and their depth, the rise from each decrease's trough to the next decrease's peak
(kbit/s), the share of the rising time in multiplicative increase (a rise faster than
4.5 % a second: 1.08^t is 7.7 %, the additive near-max rate ~3 %), the additive rate
(kbit/s a second), the share of time in ALR, of target updates under 95 % of the
delay-based estimate, and probe clusters a minute.

`replay`: libwebrtc's over-use detector run offline (scripts/delay_detector.py) on a run's
own packets: real runs' video packets at the bottleneck (send = arrival, receive =
departure; the send times cut to whole milliseconds as Chromium's socket layer stamps
them, `--send-resolution-us`), over-use episodes a minute against the event log's (runs
recorded without `--rtc-event-log` get the replay alone);
simulator traces' `K` lines (every packet of every transport feedback), against the
simulator's own detector (`D` lines). `--leave-out` drops packet classes of a real run
before the replay: `rtx` (the RTX SSRC, 400 B or more: retransmissions and payload
padding), `retransmissions` and `payload-padding` (the two parts of `rtx`, split as
scripts/rtx_padding.py matches RTX packets to dropped media packets), `padding` (the
RTX SSRC under 400 B: padding-only), `fec` (media-SSRC packets after their frame's marker packet, from
the bottleneck's pcap as gcc_share.py fec splits them). A trace built with
scripts/patches/issue21-trace-packets.patch as well has a `P` line per sent packet
(`P us is_fec frame_id index count bytes`): then `--leave-out fec` drops the simulator's
ULPFEC packets too, and the ULPFEC column is the simulator's: each ULPFEC packet's delay
after its frame's last media packet (at the sender), over the whole run as for Chromium. Per run also the replayed detector's modified trend
(p95 of its updates) and the share of its updates over the adaptive threshold.

`trace`: the stderr of the simulator built with scripts/patches/issue21-trace-gcc-target.patch
(`FS_TRACE=1 target/release/examples/series TOML 1 SEED 2> TRACE`): per run the target's
falls (under 95 % of the previous target update), whether the delay-based controller's
decrease count rose (a delay-based fall) or not, the acknowledged rate / previous target at
a delay-based fall, and the fraction of updates where loss-based BWE v2's estimate is under
95 % of the delay-based one.
"""
from __future__ import annotations

import argparse
import bisect
import csv
import statistics as st
from collections import deque
from pathlib import Path

DROP = 0.95
BIN = 0.5  # timeseries.csv's bin (python/flowstate/browser/measure.py BIN_S)


def robust_rate(win: list[tuple[int, int, int]]) -> float | None:
    """RobustThroughputEstimator::bitrate() on (send_us, recv_us, bytes) in receive
    order; Mbit/s."""
    if len(win) < 10:
        return None
    gaps = sorted((win[i][1] - win[i - 1][1] for i in range(1, len(win))), reverse=True) + [0, 0]
    recv = sum(p[2] for p in win) - win[0][2]
    recv_span = max(win[-1][1] - win[0][1] - gaps[0] + gaps[1], 1000)
    by_send = sorted(win, key=lambda p: p[0])
    send = sum(p[2] for p in by_send) - by_send[-1][2]
    send_span = max(by_send[-1][0] - by_send[0][0], 1000)
    return min(recv * 8 / recv_span, send * 8 / send_span)


def q(xs: list[float]) -> str:
    xs = sorted(xs)
    if not xs:
        return "-"
    return f"{xs[len(xs) // 2]:.2f} (p25 {xs[len(xs) // 4]:.2f}, p75 {xs[3 * len(xs) // 4]:.2f})"


def acknowledged_rates(rd: Path, flow: str, from_first_record: bool = True) -> list[tuple[float, float | None]]:
    """(seconds from the bottleneck's first record, or with ``from_first_record`` False
    from the bottleneck's start (the run's t0); Mbit/s or None) every 50 ms: the
    acknowledged rate `robust_rate` gives on the flow's packets at the bottleneck of
    the run in ``rd`` (send time = arrival, receive time = departure)."""
    rows = list(csv.DictReader(open(rd / "bottleneck-forward.csv")))
    if not rows:
        raise SystemExit(f"{rd}: empty bottleneck-forward.csv")
    base = int(rows[0]["arrival_us"]) if from_first_record else 0
    pk = sorted(
        ((int(r["arrival_us"]), int(r["departure_us"]), int(r["size"]))
         for r in rows if r["flow"] == flow and r["departure_us"]),
        key=lambda p: p[1])
    if not pk:
        raise SystemExit(f"{rd}: no delivered packets of flow {flow!r}")
    win: deque = deque()
    j, t, ests = 0, pk[0][1], []
    while t < pk[-1][1]:
        while j < len(pk) and pk[j][1] <= t:
            win.append(pk[j])
            j += 1
            while len(win) > 500 or win[-1][1] - win[0][1] > 5e6 or (
                    len(win) > 20 and win[-1][1] - win[0][1] > 1e6):
                win.popleft()
        ests.append(((t - base) / 1e6, robust_rate(list(win))))
        t += 50_000
    return ests


def target_at_close(rd: Path, times: list[float]) -> list[float]:
    """GCC's target (Mbit/s) as the simulator's series has it: the value when each 0.5 s
    bin starting at ``times`` closes (metrics.rs `target_mbps`: "the flow's rate
    controller's value when the bin closes"), here the run's last getStats
    availableOutgoingBitrate sample before the bin's end (NaN before the first)."""
    import json

    setup = json.loads((rd / "browser.json").read_text())
    got = sorted((s["t_unix_s"] - setup["t0_unix_s"], s["available_outgoing_bitrate_bps"] / 1e6)
                 for s in json.loads((rd / "getstats.json").read_text())
                 if s.get("kind") == "transport" and s.get("available_outgoing_bitrate_bps"))
    ts = [x[0] for x in got]
    out = []
    for t in times:
        k = bisect.bisect_left(ts, t + BIN) - 1
        out.append(got[k][1] if k >= 0 else float("nan"))
    return out


def real(flow: str, t0: float, t1: float, runs: list[Path], at_close: bool = False) -> None:
    import pandas as pd

    ratios, falls = [], []
    for rd in runs:
        rows = list(csv.DictReader(open(rd / "bottleneck-forward.csv")))
        pk = [(int(r["departure_us"]), int(r["size"])) for r in rows if r["flow"] == flow and r["departure_us"]]
        base = int(rows[0]["arrival_us"])
        pk.sort()
        dep = [p[0] for p in pk]
        ests = acknowledged_rates(rd, flow)
        for ts, e in ests:
            if e and t0 <= ts < t1:
                t = ts * 1e6 + base
                a, b = bisect.bisect_left(dep, t - 1e6), bisect.bisect_left(dep, t)
                thr = sum(p[1] for p in pk[a:b]) * 8 / 1e6
                if thr > 0:
                    ratios.append(e / thr)
        et = [x[0] for x in ests]
        g = pd.read_csv(rd / "timeseries.csv")
        g = g[g["flow"] == flow].sort_values("time_s")
        tt, tg = list(g["time_s"]), list(g["target_mbps"])
        if at_close:
            tg = target_at_close(rd, tt)
        lp = list(g["lost_packets"].fillna(0))
        for i in range(1, len(tt)):
            if not (t0 <= tt[i] < t1) or tg[i] != tg[i] or tg[i - 1] != tg[i - 1]:
                continue
            if tg[i] < DROP * tg[i - 1]:
                a, b = bisect.bisect_left(et, tt[i - 1] - 0.5), bisect.bisect_left(et, tt[i] + 0.5)
                cand = [0.85 * e - 0.005 for _, e in ests[a:b] if e]
                if cand:
                    falls.append((tg[i] / max(cand), tg[i] / tg[i - 1], sum(lp[max(0, i - 4):i + 1]) > 0))
    print(f"acknowledged rate / throughput over the second before: {q(ratios)}")
    aimd = [f for f in falls if f[0] <= 1.1]
    other = [f for f in falls if f[0] > 1.1]
    print(f"falls: {len(falls)} ({len(falls) * 60 / (len(runs) * (t1 - t0)):.1f} a minute); within 10 % of (or under) an AIMD decrease: {len(aimd)} "
          f"(fall ratio {q([f[1] for f in aimd])}); more than 10 % above every one: {len(other)} "
          f"(fall ratio {q([f[1] for f in other])})")
    print(f"a loss in the 2 s before the fall: AIMD-like {sum(f[2] for f in aimd) / max(1, len(aimd)):.2f}, "
          f"the others {sum(f[2] for f in other) / max(1, len(other)):.2f}")


# Two events of one feedback report are logged in the same millisecond (the delay-based
# update, then SendSideBandwidthEstimation's target: goog_cc_network_control.cc
# OnTransportPacketsFeedback); a little slack for the log's rounding.
SAME_REPORT_MS = 2
# aimd_rate_control.cc: kDefaultBackoffFactor 0.85 (beta), the 5 kbit/s subtracted
# (subtract_additional_backoff_term).
BETA, BACKOFF_MBPS = 0.85, 0.005


def report_targets(log) -> list:
    """The log's target updates, the last of each millisecond: one report can log the
    target more than once (a probe result raises it in SetSendBitrate, loss-based BWE
    v2 caps it again in UpdateLossBasedEstimator; getStats shows the last)."""
    lb = log.loss_based
    return [u for k, u in enumerate(lb) if k + 1 == len(lb) or lb[k + 1].t_ms != u.t_ms]


def step_causes(log, t_ref: float) -> list[dict]:
    """Every decrease of the target in an RTC event log (SendSideBandwidthEstimation's
    target, the `loss_based` updates, the last of each millisecond: what getStats'
    availableOutgoingBitrate reports),
    with its cause: "delay-based AIMD" (the delay-based estimate fell in the same report
    with the detector overusing: AimdRateControl's decrease), "probe result" (it fell with
    a probe result in the same report: DelayBasedBwe::MaybeUpdateEstimate's SetEstimate),
    "delay-based other" (it fell, detector not overusing, no probe result), or
    "loss-based" (the delay-based estimate did not fall: the target went under it, loss-
    based BWE v2 or the loss-based bounds). Times in seconds from ``t_ref`` (Unix s)."""
    delay = log.delay_based
    dms = [u.t_ms for u in delay]
    probes = [p.t_ms for p in log.probe_success]
    alr = [(a.t_ms, a.in_alr) for a in log.alr]
    targets = report_targets(log)
    steps = []
    for prev, cur in zip(targets, targets[1:]):
        if cur.bitrate_bps >= prev.bitrate_bps:
            continue
        i = bisect.bisect_right(dms, cur.t_ms + SAME_REPORT_MS) - 1
        d_new = delay[i] if i >= 0 and cur.t_ms - dms[i] <= SAME_REPORT_MS else None
        d_prev = delay[i - 1] if d_new is not None and i >= 1 else None
        k = bisect.bisect_left(probes, cur.t_ms - SAME_REPORT_MS)
        probe = k < len(probes) and probes[k] <= cur.t_ms + SAME_REPORT_MS
        if d_new is not None and d_prev is not None and d_new.bitrate_bps < d_prev.bitrate_bps:
            cause = "probe result" if probe else (
                "delay-based AIMD" if d_new.state == "overusing" else "delay-based other")
        else:
            cause = "loss-based"
        j = bisect.bisect_right([a[0] for a in alr], cur.t_ms) - 1
        steps.append({
            "t": cur.unix_s - t_ref, "prev": prev.bitrate_bps / 1e6, "new": cur.bitrate_bps / 1e6, "cause": cause,
            "delay_new": d_new.bitrate_bps / 1e6 if d_new else None, "loss": cur.fraction_loss,
            "alr": bool(j >= 0 and alr[j][1]),
        })
    return steps


def evlog(flow: str, t0: float, t1: float, runs: list[Path], verbose: bool = False, at_close: bool = False) -> None:
    """Each fall of the target (timeseries.csv's 0.5 s bins, as `real` and gcc_share.py
    falls count them) attributed with the sender's RTC event log: the target's
    decreases between the first getStats sample of the bin before and the last of the
    fall's bin, each with its cause (`step_causes`); the fall's cause is the one with
    the largest part of the fall (in log ratio); "split" when that decrease came before
    the fall's bin (the previous bin's mean took part of it). Beside it the classification
    of `real` (the new target within 10 % of 0.85 x the replayed acknowledged rate - 5
    kbit/s, or not: "shallow"). ``at_close``: a bin's target is the last sample before
    it closes (`target_at_close`, the simulator's definition); the decreases of a fall
    are then those between the two bins' closing samples."""
    import json
    import math

    import pandas as pd

    import rtc_event_log  # scripts/, this script's folder (on sys.path when run as a script)

    falls, all_steps, minutes, under = [], [], 0.0, []
    for rd in runs:
        setup = json.loads((rd / "browser.json").read_text())
        t_ref = setup["t0_unix_s"]
        log = rtc_event_log.read(rd / "rtc-event-log-sender.log")
        steps = step_causes(log, t_ref)
        dms = [u.t_ms for u in log.delay_based]
        for u in report_targets(log):
            j = bisect.bisect_right(dms, u.t_ms) - 1
            if j >= 0 and t0 <= u.unix_s - t_ref < t1:
                under.append(u.bitrate_bps < DROP * log.delay_based[j].bitrate_bps)
        ests = acknowledged_rates(rd, flow, from_first_record=False)
        et = [x[0] for x in ests]
        for s in steps:
            k = bisect.bisect_right(et, s["t"]) - 1
            ack = ests[k][1] if k >= 0 else None
            s["ack_ratio"] = s["new"] / (BETA * ack - BACKOFF_MBPS) if ack and BETA * ack > BACKOFF_MBPS else None
        all_steps += [s for s in steps if t0 <= s["t"] < t1]
        minutes += (t1 - t0) / 60
        samples = sorted(s["t_unix_s"] - t_ref for s in json.loads((rd / "getstats.json").read_text())
                         if s.get("kind") == "transport" and s.get("available_outgoing_bitrate_bps"))
        g = pd.read_csv(rd / "timeseries.csv")
        g = g[g["flow"] == flow].sort_values("time_s")
        tt, tg = list(g["time_s"]), list(g["target_mbps"])
        if at_close:
            tg = target_at_close(rd, tt)
        st_t = [s["t"] for s in steps]
        for i in range(1, len(tt)):
            if not (t0 <= tt[i] < t1) or tg[i] != tg[i] or tg[i - 1] != tg[i - 1] or not tg[i] < DROP * tg[i - 1]:
                continue
            if at_close:  # from the previous bin's closing sample to this one's
                a = bisect.bisect_left(samples, tt[i - 1] + BIN) - 1
            else:  # from the previous bin's first sample to this one's last
                a = bisect.bisect_left(samples, tt[i - 1])
            b = bisect.bisect_left(samples, tt[i] + BIN) - 1
            first_of_bin = samples[bisect.bisect_left(samples, tt[i])]
            inside = [s for s in steps[bisect.bisect_right(st_t, samples[a]):bisect.bisect_right(st_t, samples[b])]]
            ea, eb = bisect.bisect_left(et, tt[i - 1] - 0.5), bisect.bisect_left(et, tt[i] + 0.5)
            cand = [BETA * e - BACKOFF_MBPS for _, e in ests[ea:eb] if e]
            shallow = bool(cand) and tg[i] / max(cand) > 1.1
            if not inside:
                falls.append({"cause": "no decrease in the log", "ratio": tg[i] / tg[i - 1], "shallow": shallow,
                              "split": False, "run": rd, "t": tt[i]})
                continue
            by = {}
            for s in inside:
                by[s["cause"]] = by.get(s["cause"], 0.0) + math.log(s["prev"] / s["new"])
            cause = max(by, key=by.get)
            main = max((s for s in inside if s["cause"] == cause), key=lambda s: s["prev"] / s["new"])
            falls.append({
                "cause": cause, "ratio": tg[i] / tg[i - 1], "shallow": shallow,
                "split": main["t"] < first_of_bin and not at_close,
                "step_ratio": main["new"] / main["prev"], "ack_ratio": main["ack_ratio"],
                "implied_ack": (main["new"] + BACKOFF_MBPS) / BETA / main["prev"], "alr": main["alr"],
                "n_steps": len(inside), "run": rd, "t": tt[i],
            })
    causes = sorted({f["cause"] for f in falls})
    print(f"runs {len(runs)}; bin falls {len(falls)} ({len(falls) / minutes:.1f} a minute); "
          f"target decreases in the log (any size) {len(all_steps)} ({len(all_steps) / minutes:.1f} a minute), "
          f"of 5 % or more {sum(s['new'] < DROP * s['prev'] for s in all_steps)}")
    print("| cause | bin falls | of them 'shallow' (real's classification) | split (decrease in the bin before) | "
          "fall ratio p50 (p25, p75) | the decrease's own ratio p50 | new / (0.85 x replayed ack - 5 kbit/s) p50 |")
    print("|---|---|---|---|---|---|---|")
    for c in causes:
        fs = [f for f in falls if f["cause"] == c]
        print(f"| {c} | {len(fs)} | {sum(f['shallow'] for f in fs)} | {sum(f['split'] for f in fs)} | "
              f"{q([f['ratio'] for f in fs])} | {q([f['step_ratio'] for f in fs if 'step_ratio' in f])} | "
              f"{q([f['ack_ratio'] for f in fs if f.get('ack_ratio')])} |")
    sh = [f for f in falls if f["shallow"]]
    print(f"'shallow' falls: {len(sh)}; split {sum(f['split'] for f in sh)}; fall ratio {q([f['ratio'] for f in sh])}; "
          f"by cause " + ", ".join(f"{c} {sum(f['cause'] == c for f in sh)}" for c in causes))
    nsh = [f for f in falls if not f["shallow"]]
    print(f"AIMD-like falls (real's classification): {len(nsh)}; split {sum(f['split'] for f in nsh)}; "
          f"by cause " + ", ".join(f"{c} {sum(f['cause'] == c for f in nsh)}" for c in causes))
    print(f"target updates under 95 % of the delay-based estimate (the loss-based side binding): "
          f"{sum(under)} of {len(under)} ({sum(under) / max(1, len(under)):.2f})")
    print("| the target's decreases in the log, by cause | all | per minute | of 5 % or more | their ratio p50 (p25, p75) | "
          "their new / (0.85 x replayed ack - 5 kbit/s) p50 (p25, p75) | in ALR |")
    print("|---|---|---|---|---|---|---|")
    for c in sorted({s["cause"] for s in all_steps}):
        xs = [s for s in all_steps if s["cause"] == c]
        big = [s for s in xs if s["new"] < DROP * s["prev"]]
        print(f"| {c} | {len(xs)} | {len(xs) / minutes:.1f} | {len(big)} ({len(big) / minutes:.1f} a minute) | "
              f"{q([s['new'] / s['prev'] for s in big])} | {q([s['ack_ratio'] for s in big if s['ack_ratio']])} | "
              f"{sum(s['alr'] for s in big)} |")
    if verbose:
        for f in falls:
            print({k: (round(v, 3) if isinstance(v, float) else v) for k, v in f.items()})


def overuse_episodes(rows: list[tuple[float, float, bool]], t0: float, t1: float) -> list[dict]:
    """Over-use episodes in a delay-based series of (time s, estimate, overusing?) rows:
    each run of overusing rows that starts in [t0, t1), with its duration (to the first
    row after it), the lowest estimate during it against the estimate before it, and
    the time from the estimate's last change before it to its start."""
    eps = []
    i = 1
    while i < len(rows):
        t, b, over = rows[i]
        if not (over and not rows[i - 1][2] and t0 <= t < t1):
            i += 1
            continue
        prev = rows[i - 1][1]
        j, low = i, b
        while j + 1 < len(rows) and rows[j + 1][2]:
            j += 1
            low = min(low, rows[j][1])
        k = i - 1
        while k > 0 and rows[k][1] == rows[k - 1][1]:
            k -= 1
        end = rows[j + 1][0] if j + 1 < len(rows) else rows[j][0]
        eps.append({"duration_ms": (end - t) * 1e3, "low_ratio": low / prev, "since_change_ms": (t - rows[k][0]) * 1e3})
        i = j + 1
    return eps


def episodes(t0: float, t1: float, real_runs: list[Path], traces: list[Path]) -> None:
    """Over-use episodes of the delay-based detector, Chromium's (the sender's RTC event
    log: every change of the estimate or of the detector state) against the simulator's
    (traces of the patched build, whose last field is the detector signal at each target
    update): how many a minute, how many lower the delay-based estimate by 5 % or more,
    how long the others last, and the time from the estimate's last change to an
    episode's start (AimdRateControl::TimeToReduceFurther lets the first over-use update
    decrease only once min(RTT, 200 ms) has passed since the last change)."""
    import json

    import rtc_event_log  # scripts/

    series = []
    for rd in real_runs:
        t_ref = json.loads((rd / "browser.json").read_text())["t0_unix_s"]
        d = rtc_event_log.read(rd / "rtc-event-log-sender.log").delay_based
        series.append(("chromium", [(u.unix_s - t_ref, u.bitrate_bps, u.state == "overusing") for u in d]))
    for p in traces:
        rows = []
        for line in open(p):
            if line.startswith("T "):
                f = line.split()
                if len(f) < 11:
                    raise SystemExit(f"{p}: no detector signal in the trace (build with the current patch)")
                rows.append((int(f[1]) / 1e6, float(f[4]), f[10] == "Overusing"))
        if not rows:
            raise SystemExit(f"{p}: no T lines (built with the trace patch?)")
        series.append(("simulator", rows))
    print("| source | runs | over-use episodes a minute | lowering the estimate >= 5 % (a minute) | not | "
          "their duration ms p50 (p25, p75) | ms from the last change to the start, lowering p50 (>= 200 ms) | the others |")
    print("|---|---|---|---|---|---|---|---|")
    for name in ("chromium", "simulator"):
        runs = [rows for n, rows in series if n == name]
        if not runs:
            continue
        eps, minutes = [], 0.0
        for rows in runs:
            end = min(t1, rows[-1][0])
            minutes += max(0.0, end - t0) / 60
            eps += overuse_episodes(rows, t0, end)
        low = [e for e in eps if e["low_ratio"] < DROP]
        other = [e for e in eps if e["low_ratio"] >= DROP]
        print(f"| {name} | {len(runs)} | {len(eps) / minutes:.1f} | {len(low)} ({len(low) / minutes:.1f}) | {len(other)} | "
              f"{q([e['duration_ms'] for e in other])} | {q([e['since_change_ms'] for e in low]).split()[0]} "
              f"({sum(e['since_change_ms'] >= 200 for e in low)}) | {q([e['since_change_ms'] for e in other]).split()[0]} "
              f"({sum(e['since_change_ms'] >= 200 for e in other)}) |")


MULTIPLICATIVE_PER_S = 0.045  # a rise step faster than this share a second: 1.08^t


def sim_aimd_rows(p: Path) -> tuple[list, list, list, list]:
    """From a trace of scripts/patches/issue21-trace-aimd.patch: the delay-based estimate
    and detector state at every feedback (`D us estimate state ran acked alr packets
    modified threshold aimd_state lc_estimate lc_upper lc_lower num_deltas`), the target
    at every target update (`T` lines), ALR changes and probe results (`R us rate`)."""
    rows, targets, alr, probes, last = [], [], [], [], None
    for line in open(p):
        f = line.split()
        if not f:
            continue
        if f[0] == "D":
            t = int(f[1]) / 1e6
            rows.append((t, float(f[2]), f[3].lower()))
            a = f[6] == "1"
            if a != last:
                alr.append((t, a))
                last = a
        elif f[0] == "T":
            targets.append((int(f[1]) / 1e6, float(f[2])))
        elif f[0] == "R":
            probes.append(int(f[1]) / 1e6)
    if not rows:
        raise SystemExit(f"{p}: no D lines (build with scripts/patches/issue21-trace-aimd.patch)")
    return rows, targets, alr, probes


def real_aimd_rows(rd: Path) -> tuple[list, list, list, list]:
    """The same from a real run's sender event log (probes: the clusters)."""
    import json

    import rtc_event_log  # scripts/

    t_ref = json.loads((rd / "browser.json").read_text())["t0_unix_s"]
    log = rtc_event_log.read(rd / "rtc-event-log-sender.log")
    return ([(u.unix_s - t_ref, u.bitrate_bps, u.state) for u in log.delay_based],
            [(u.unix_s - t_ref, u.bitrate_bps) for u in report_targets(log)],
            [(a.unix_s - t_ref, a.in_alr) for a in log.alr],
            [c.unix_s - t_ref for c in log.probe_clusters])


def state_episodes(rows: list, state: str, t0: float, t1: float) -> list[tuple[float, float]]:
    """(start s, duration s) of each run of rows in ``state`` starting in [t0, t1)."""
    out, i = [], 1
    while i < len(rows):
        if rows[i][2] == state and rows[i - 1][2] != state and t0 <= rows[i][0] < t1:
            j = i
            while j + 1 < len(rows) and rows[j + 1][2] == state:
                j += 1
            end = rows[j + 1][0] if j + 1 < len(rows) else rows[j][0]
            out.append((rows[i][0], end - rows[i][0]))
            i = j + 1
        else:
            i += 1
    return out


def aimd_summary(rows: list, targets: list, alr: list, probes: list, t0: float, t1: float) -> dict:
    """The sawtooth of one run's delay-based estimate over [t0, t1) (see `aimd`)."""
    end = min(t1, rows[-1][0])
    if end <= t0:
        raise SystemExit(f"no delay-based updates in {t0} .. {t1} s")
    minutes = (end - t0) / 60
    r = [x for x in rows if t0 <= x[0] < end]
    dec, mult_t, add_t, add_rates = [], 0.0, 0.0, []
    for a, b in zip(r, r[1:]):
        dt = b[0] - a[0]
        if b[1] < DROP * a[1]:
            dec.append((b[0], a[1], b[1]))
        elif b[1] > a[1] and dt > 0:
            if (b[1] - a[1]) / a[1] / dt > MULTIPLICATIVE_PER_S:
                mult_t += dt
            else:
                add_t += dt
                add_rates.append((b[1] - a[1]) / dt / 1e3)
    span = max(1e-9, r[-1][0] - r[0][0])
    level = sum((b[0] - a[0]) * a[1] for a, b in zip(r, r[1:])) / span
    in_alr, state, last = 0.0, False, t0
    for t, a in sorted(alr) + [(end, None)]:
        t = min(max(t, t0), end)
        in_alr += (t - last) if state else 0.0
        last = t
        if a is not None:
            state = a
    times = [x[0] for x in rows]
    under = []
    for t, b in targets:
        j = bisect.bisect_right(times, t) - 1
        if t0 <= t < end and j >= 0:
            under.append(b < DROP * rows[j][1])
    over = state_episodes(rows, "overusing", t0, end)
    underuse = state_episodes(rows, "underusing", t0, end)
    return {
        "level_kbps": level / 1e3,
        "overuse_per_min": len(over) / minutes, "overuse_ms": [d * 1e3 for _, d in over],
        "underuse_per_min": len(underuse) / minutes, "underuse_ms": [d * 1e3 for _, d in underuse],
        "decreases_per_min": len(dec) / minutes, "depth": [d[2] / d[1] for d in dec],
        "rise_kbps": [(d2[1] - d1[2]) / 1e3 for d1, d2 in zip(dec, dec[1:])],
        "peak_kbps": [d[1] / 1e3 for d in dec],
        "multiplicative_share": mult_t / max(1e-9, mult_t + add_t), "additive_kbps_per_s": add_rates,
        "alr_share": in_alr / (end - t0), "loss_below_share": sum(under) / max(1, len(under)),
        "probes_per_min": sum(t0 <= p < end for p in probes) / minutes,
    }


def p50(xs: list[float]) -> float:
    return st.median(xs) if xs else float("nan")


def aimd(t0: float, t1: float, real_runs: list[Path], traces: list[Path]) -> None:
    print("| run | estimate kbit/s (mean) | over-use a minute (ms p50) | under-use a minute (ms p50) | decreases a minute | "
          "depth p50 | rise per cycle kbit/s mean (p50) | peak kbit/s p50 | multiplicative share of rising | "
          "additive kbit/s per s p50 | ALR share | loss-based under 95 % | probe clusters a minute |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    runs = [(f"Chromium {rd.name}", real_aimd_rows(rd)) for rd in real_runs]
    runs += [(f"simulator {p.name}", sim_aimd_rows(p)) for p in traces]
    for name, data in runs:
        a = aimd_summary(*data, t0, t1)
        rise = a["rise_kbps"]
        print(f"| {name} | {a['level_kbps']:.0f} | {a['overuse_per_min']:.1f} ({p50(a['overuse_ms']):.0f}) | "
              f"{a['underuse_per_min']:.1f} ({p50(a['underuse_ms']):.0f}) | {a['decreases_per_min']:.1f} | "
              f"{p50(a['depth']):.2f} | {st.mean(rise) if rise else float('nan'):.0f} ({p50(rise):.0f}) | "
              f"{p50(a['peak_kbps']):.0f} | {a['multiplicative_share']:.2f} | {p50(a['additive_kbps_per_s']):.1f} | "
              f"{a['alr_share']:.2f} | {a['loss_below_share']:.2f} | {a['probes_per_min']:.1f} |")


FEEDBACK_US = 62_500  # Chromium 156's transport feedback cadence here (receiver logs)
PADDING_MAX_B = 400  # padding-only RTX packets are 279 B of RTP in these runs


def real_packet_classes(rd: Path, flow: str) -> tuple[list[tuple[int, int, int, str]], list[float]]:
    """A real run's delivered packets of ``flow`` at the bottleneck as (arrival us,
    departure us, size, class): "media", "fec" (after its frame's marker), "rtx",
    "padding" (see `replay`); and each ULPFEC packet's delay (ms) after its frame's last
    media packet, at the bottleneck."""
    import gcc_share  # scripts/

    rows = [r for r in csv.DictReader(open(rd / "bottleneck-forward.csv")) if r["flow"] == flow]
    if not rows:
        raise SystemExit(f"{rd}: no packets of flow {flow!r}")
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["ssrc"]] = counts.get(r["ssrc"], 0) + 1
    media = max(counts, key=counts.get)
    frames: dict[int, list] = {}
    for t, _, _, rtp in gcc_share.rtp_packets(rd):
        if str(int.from_bytes(rtp[8:12], "big")) == media:
            frames.setdefault(int.from_bytes(rtp[4:8], "big"), []).append(
                (int.from_bytes(rtp[2:4], "big"), rtp[1] >> 7, round(t * 1e6)))
    fec_times, fec_after_ms = [], []
    for pk in frames.values():
        media_pk, fec_pk = gcc_share.split_frame(pk)
        last = max((p[2] for p in media_pk), default=None)
        for p in fec_pk:
            fec_times.append(p[2])
            if last is not None:
                fec_after_ms.append((p[2] - last) / 1e3)
    fec_times.sort()
    out = []
    for r in rows:
        if not r["departure_us"]:
            continue
        a, size = int(r["arrival_us"]), int(r["size"])
        if r["ssrc"] != media:
            kind = "padding" if size < PADDING_MAX_B else "rtx"
        else:
            k = bisect.bisect_left(fec_times, a - 2)
            kind = "fec" if k < len(fec_times) and fec_times[k] <= a + 2 else "media"
        out.append((a, int(r["departure_us"]), size, kind))
    return out, fec_after_ms


def split_rtx(rd: Path, classes: list[tuple[int, int, int, str]]) -> list[tuple[int, int, int, str]]:
    """``classes`` with each "rtx" packet (RTX SSRC, 400 B or more) split as
    scripts/rtx_padding.py matches it to the media packets the bottleneck dropped:
    "retransmissions" (the RTX of a dropped packet: a NACK's answer) or "payload-padding"
    (its frame lost nothing of its length: `GeneratePadding`'s RTX copy of a sent packet)."""
    import rtx_padding  # scripts/

    media, rtx, _ = rtx_padding.read_run(rd)
    return relabel_rtx(classes, {(r.arrival_us, r.size): c.kind for r, c in zip(rtx, rtx_padding.classify(media, rtx))})


def relabel_rtx(classes: list[tuple[int, int, int, str]],
                kinds: dict[tuple[int, int], str]) -> list[tuple[int, int, int, str]]:
    """Each "rtx" packet of ``classes`` (arrival us, departure us, size, class) relabelled by
    rtx_padding.py's class of the RTX packet with its arrival and size: "redundant" ->
    "payload-padding", "retransmission" / "repeat" -> "retransmissions"."""
    names = {"redundant": "payload-padding", "retransmission": "retransmissions", "repeat": "retransmissions"}
    return [(a, d, z, names.get(kinds.get((a, z), ""), k)) if k == "rtx" else (a, d, z, k)
            for a, d, z, k in classes]


def kept(classes: list[tuple[int, int, int, str]], leave_out: list[str]) -> list[tuple[int, int, int, str]]:
    """The packets the replay keeps: ``leave_out``'s classes dropped, and "rtx" dropping both
    of its parts when they are split."""
    gone = set(leave_out) | ({"retransmissions", "payload-padding"} if "rtx" in leave_out else set())
    return [p for p in classes if p[3] not in gone]


def fec_after_cell(fec_after_ms: list[float]) -> str:
    """ULPFEC delays after their frame's last media packet: p25 / p50 / p75 (share over 5 ms)."""
    fa = sorted(fec_after_ms)
    if not fa:
        return "-"
    return (f"{fa[len(fa) // 4]:.1f} / {fa[len(fa) // 2]:.1f} / {fa[3 * len(fa) // 4]:.1f} "
            f"({sum(x > 5 for x in fa) / len(fa):.2f})")


def trend_cells(samples: list, t0: float, t1: float) -> str:
    """The replayed detector's modified trend, p95 of its updates in [t0, t1), and the share
    of those updates over the adaptive threshold (`TrendlineEstimator::Detect`'s over-use
    test, before its 10 ms / two-update hold)."""
    s = [x for x in samples if t0 <= x.recv_us / 1e6 < t1]
    if not s:
        return "- | -"
    m = sorted(x.modified for x in s)
    over = sum(x.modified > x.threshold for x in s) / len(s)
    return f"{m[min(len(m) - 1, int(0.95 * len(m)))]:.1f} | {over:.3f}"


def sim_packet_classes(p_rows: list[list[str]]) -> tuple[set, list[float]]:
    """The `P` lines of scripts/patches/issue21-trace-packets.patch (`P us is_fec frame_id
    index count bytes`): the (send us, bytes) of every ULPFEC packet, and each ULPFEC
    packet's delay (ms) after its frame's last media packet, over the whole run, as
    `real_packet_classes` gives Chromium's."""
    fec, last_media, fec_sent = set(), {}, []
    for f in p_rows:
        us, is_fec, frame, index, count, size = int(f[1]), f[2] == "1", f[3], int(f[4]), int(f[5]), int(f[6])
        if is_fec:
            fec.add((us, size))
            fec_sent.append((frame, us))
        elif index + 1 == count:
            last_media[frame] = us
    return fec, [(us - last_media[k]) / 1e3 for k, us in fec_sent if k in last_media]


def replay(t0: float, t1: float, real_runs: list[Path], traces: list[Path], flow: str,
           resolution_us: int, leave_out: list[str]) -> None:
    import json

    import delay_detector as dd  # scripts/
    import rtc_event_log  # scripts/

    print(f"send times at {resolution_us} us; left out: {', '.join(leave_out) or 'nothing'}")
    print("| run | packets replayed | groups a second | over-use episodes a minute: replay | the run's own detector | "
          "ULPFEC after its frame's last media packet, ms p25 / p50 / p75 (share over 5 ms) | "
          "modified trend p95 | updates over the threshold |")
    print("|---|---|---|---|---|---|---|---|")
    for rd in real_runs:
        classes, fec_after = real_packet_classes(rd, flow)
        if {"retransmissions", "payload-padding"} & set(leave_out):
            classes = split_rtx(rd, classes)
        pk = kept(classes, leave_out)
        fec_cell = fec_after_cell(fec_after)
        det = dd.Detector(send_resolution_us=resolution_us)
        for a, d, size, _ in sorted(pk, key=lambda p: (p[1], p[0])):
            det.packet(a, d, size)
        end_us = pk[-1][1] if pk else 0
        ticks = list(range(0, end_us, FEEDBACK_US))
        mine = dd.overuse_onsets([t / 1e6 for t in ticks], dd.states_at(det.samples, ticks), t0, t1)
        groups = sum(t0 <= s.recv_us / 1e6 < t1 for s in det.samples) / (t1 - t0)
        if not (rd / "rtc-event-log-sender.log").is_file():
            # a run without --rtc-event-log (p000-table5's first runs): the replay alone
            print(f"| Chromium {rd.name} | {len(pk)} | {groups:.1f} | {len(mine) / ((t1 - t0) / 60):.1f} | no event log | "
                  f"{fec_cell} | {trend_cells(det.samples, t0, t1)} |")
            continue
        t_ref = json.loads((rd / "browser.json").read_text())["t0_unix_s"]
        log = rtc_event_log.read(rd / "rtc-event-log-sender.log").delay_based
        theirs = dd.overuse_onsets([u.unix_s - t_ref for u in log], [u.state for u in log], t0, t1)
        minutes = (min(t1, log[-1].unix_s - t_ref) - t0) / 60 if log else float("nan")
        print(f"| Chromium {rd.name} | {len(pk)} | {groups:.1f} | {len(mine) / minutes:.1f} | {len(theirs) / minutes:.1f} (event log) | "
              f"{fec_cell} | {trend_cells(det.samples, t0, t1)} |")
    for p in traces:
        batches: dict[int, list] = {}
        d_rows, p_rows = [], []
        for line in open(p):
            f = line.split()
            if f and f[0] == "K":
                batches.setdefault(int(f[1]), []).append((int(f[2]), int(f[3]), int(f[4])))
            elif f and f[0] == "D":
                d_rows.append((int(f[1]) / 1e6, f[3].lower()))
            elif f and f[0] == "P":
                p_rows.append(f)
        if not batches:
            raise SystemExit(f"{p}: no K lines (build with scripts/patches/issue21-trace-aimd.patch)")
        fec_sent, fec_after = sim_packet_classes(p_rows)
        det = dd.Detector(send_resolution_us=resolution_us)
        ticks, states, n = [], [], 0
        for fb in sorted(batches):
            for s, r, z in sorted(batches[fb], key=lambda x: (x[1], x[0])):
                if "fec" in leave_out and (s, z) in fec_sent:
                    continue
                det.packet(s, r, z)
                n += 1
            ticks.append(fb / 1e6)
            states.append(det.state)
        mine = dd.overuse_onsets(ticks, states, t0, t1)
        theirs = dd.overuse_onsets([x[0] for x in d_rows], [x[1] for x in d_rows], t0, t1)
        minutes = (min(t1, ticks[-1]) - t0) / 60
        groups = sum(t0 <= s.recv_us / 1e6 < t1 for s in det.samples) / (t1 - t0)
        print(f"| simulator {p.name} | {n} | {groups:.1f} | {len(mine) / minutes:.1f} | "
              f"{len(theirs) / minutes:.1f} (D lines) | {fec_after_cell(fec_after) if p_rows else '-'} | "
              f"{trend_cells(det.samples, t0, t1)} |")


def alr_replay(t0: float, t1: float, runs: list[Path], overhead: int, scale: float) -> None:
    """libwebrtc's ALR detector (scripts/alr_detector.py) replayed on a real run's own
    sent packets (the event log's outgoing RTP packets with a transport-wide sequence
    number, each `overhead` bytes more, times `scale`) and its loss-based targets, against
    the ALR states the run's detector logged."""
    import json

    import alr_detector  # scripts/
    import rtc_event_log  # scripts/

    print(f"packet sizes + {overhead} B, x {scale:g}")
    print("| run | packets | ALR share: replay (changes) | the run's event log (changes) |")
    print("|---|---|---|---|")
    for rd in runs:
        t_ref = json.loads((rd / "browser.json").read_text())["t0_unix_s"]
        log = rtc_event_log.read(rd / "rtc-event-log-sender.log")
        # (s, order, value): a target update before a packet logged in the same ms
        ev = [(u.unix_s - t_ref, 0, u.bitrate_bps) for u in log.loss_based if u.bitrate_bps > 0]
        ev += [(p.unix_s - t_ref, 1, p.size) for p in log.outgoing_rtp if p.transport_sequence_number is not None]
        ev.sort(key=lambda e: (e[0], e[1]))
        d, changes, n = alr_detector.AlrDetector(), [], 0
        for t, kind, v in ev:
            if kind == 0:
                d.set_estimated_bitrate(v)
                continue
            if d.max_bytes == 0:  # before the first target (none logged yet)
                continue
            was = d.in_alr
            d.on_bytes_sent(int((v + overhead) * scale), round(t * 1000))
            n += t0 <= t < t1
            if d.in_alr != was:
                changes.append((t, d.in_alr))
        logged = [(a.unix_s - t_ref, a.in_alr) for a in log.alr]
        inside = lambda c: sum(t0 <= t < t1 for t, _ in c)  # noqa: E731
        print(f"| {rd.parent.name}/{rd.name} | {n} | {alr_detector.share_on(changes, t0, t1):.2f} ({inside(changes)}) | "
              f"{alr_detector.share_on(logged, t0, t1):.2f} ({inside(logged)}) |")


def trace(t0: float, t1: float, paths: list[Path]) -> None:
    ratio, acked, loss_below, kinds, per_min = [], [], [], {"delay": 0, "other": 0}, []
    for p in paths:
        prev, n, below, total = None, 0, 0, 0
        for line in open(p):
            if not line.startswith("T "):
                continue
            f = line.split()
            t = int(f[1]) / 1e6
            if not t0 <= t < t1:
                prev = None
                continue
            tgt, delay, loss, dec = float(f[2]), float(f[4]), float(f[5]), int(f[6])
            ack = None if f[9] == "None" else float(f[9][5:-1])
            total += 1
            below += loss < DROP * delay
            if prev and tgt < DROP * prev[0]:
                n += 1
                ratio.append(tgt / prev[0])
                if dec > prev[1]:
                    kinds["delay"] += 1
                    if ack:
                        acked.append(ack / prev[0])
                else:
                    kinds["other"] += 1
            prev = (tgt, dec)
        if total == 0:
            raise SystemExit(f"{p}: no T lines in {t0} .. {t1} s (built with the trace patch?)")
        per_min.append(n * 60 / (t1 - t0))
        loss_below.append(below / total)
    print(f"runs {len(paths)}; falls per minute {q(per_min)}; delay-based {kinds['delay']}, other {kinds['other']}")
    print(f"fall ratio {q(ratio)}; acknowledged rate / previous target at a delay-based fall {q(acked)}")
    print(f"share of updates with loss-based BWE v2 under 95 % of the delay-based estimate {q(loss_below)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("real", help="real runs: acknowledged rate and AIMD decreases")
    r.add_argument("flow")
    r.add_argument("start", type=float)
    r.add_argument("end", type=float)
    r.add_argument("runs", type=Path, nargs="+", metavar="RUN_DIR")
    r.add_argument("--target-at-close", action="store_true",
                   help="the target of a bin: the last getStats sample before it closes, as the simulator's series "
                   "(default: timeseries.csv's, the mean of the bin's samples)")
    e = sub.add_parser("evlog", help="real runs with --rtc-event-log: each fall of the target and its cause")
    e.add_argument("flow")
    e.add_argument("start", type=float)
    e.add_argument("end", type=float)
    e.add_argument("runs", type=Path, nargs="+", metavar="RUN_DIR")
    e.add_argument("--verbose", action="store_true", help="also print every fall")
    e.add_argument("--target-at-close", action="store_true", help="as for real")
    o = sub.add_parser("episodes", help="over-use episodes: real runs' event logs against simulator traces")
    o.add_argument("start", type=float)
    o.add_argument("end", type=float)
    o.add_argument("--real", type=Path, nargs="*", default=[], metavar="RUN_DIR")
    o.add_argument("--traces", type=Path, nargs="*", default=[], metavar="TRACE")
    m = sub.add_parser("aimd", help="the delay-based estimate's sawtooth: event logs against simulator traces")
    m.add_argument("start", type=float)
    m.add_argument("end", type=float)
    m.add_argument("--real", type=Path, nargs="*", default=[], metavar="RUN_DIR")
    m.add_argument("--traces", type=Path, nargs="*", default=[], metavar="TRACE")
    y = sub.add_parser("replay", help="libwebrtc's over-use detector replayed on a run's own packets")
    y.add_argument("start", type=float)
    y.add_argument("end", type=float)
    y.add_argument("--real", type=Path, nargs="*", default=[], metavar="RUN_DIR")
    y.add_argument("--traces", type=Path, nargs="*", default=[], metavar="TRACE")
    y.add_argument("--flow", default="gcc", help="the real runs' video flow (default gcc)")
    y.add_argument("--send-resolution-us", type=int, default=1000,
                   help="send times cut to this many us (default 1000: Chromium's socket clock; 1: exact)")
    y.add_argument("--leave-out", nargs="*", default=[],
                   choices=("rtx", "padding", "fec", "retransmissions", "payload-padding"),
                   help="packet classes left out of the replay (simulator traces: fec, with P lines)")
    w = sub.add_parser("alr", help="libwebrtc's ALR detector replayed on a real run's logged packets and targets")
    w.add_argument("start", type=float)
    w.add_argument("end", type=float)
    w.add_argument("runs", type=Path, nargs="+", metavar="RUN_DIR")
    w.add_argument("--overhead", type=int, default=28,
                   help="bytes added to each RTP packet (the transport overhead; default 28: IPv4 + UDP)")
    w.add_argument("--scale", type=float, default=1.0,
                   help="a diagnostic: count this share of each packet's bytes (default 1)")
    t = sub.add_parser("trace", help="simulator traces of the patched build")
    t.add_argument("start", type=float)
    t.add_argument("end", type=float)
    t.add_argument("traces", type=Path, nargs="+", metavar="TRACE")
    a = ap.parse_args()
    if not a.start < a.end:
        raise SystemExit(f"the window must have start < end, got {a.start} .. {a.end}")
    if a.cmd == "real":
        missing = [str(d) for d in a.runs if not (d / "bottleneck-forward.csv").is_file() or not (d / "timeseries.csv").is_file()]
        if missing:
            raise SystemExit(f"no bottleneck-forward.csv and timeseries.csv in: {', '.join(missing)}")
        real(a.flow, a.start, a.end, a.runs, a.target_at_close)
    elif a.cmd == "episodes":
        missing = [str(d) for d in a.real if not (d / "rtc-event-log-sender.log").is_file() or not (d / "browser.json").is_file()]
        missing += [str(p) for p in a.traces if not p.is_file()]
        if missing or not (a.real or a.traces):
            raise SystemExit(f"episodes: no event log / trace in: {', '.join(missing) or '(none given)'}")
        episodes(a.start, a.end, a.real, a.traces)
    elif a.cmd in ("aimd", "replay"):
        # replay also takes runs without an event log (the replay column alone)
        need = ["rtc-event-log-sender.log", "browser.json"] if a.cmd == "aimd" else ["bottleneck-forward.csv"]
        missing = [str(d) for d in a.real if not all((d / n).is_file() for n in need)]
        missing += [str(p) for p in a.traces if not p.is_file()]
        if missing or not (a.real or a.traces):
            raise SystemExit(f"{a.cmd}: no {', '.join(need)} / trace in: {', '.join(missing) or '(none given)'}")
        if a.cmd == "aimd":
            aimd(a.start, a.end, a.real, a.traces)
        else:
            if a.send_resolution_us < 1:
                raise SystemExit(f"--send-resolution-us must be >= 1, got {a.send_resolution_us}")
            replay(a.start, a.end, a.real, a.traces, a.flow, a.send_resolution_us, a.leave_out)
    elif a.cmd == "alr":
        need = ("rtc-event-log-sender.log", "browser.json")
        missing = [str(d) for d in a.runs if not all((d / n).is_file() for n in need)]
        if missing:
            raise SystemExit(f"alr: no {', '.join(need)} in: {', '.join(missing)}")
        if a.overhead < 0 or not a.scale > 0:
            raise SystemExit(f"alr: --overhead must be >= 0 and --scale > 0, got {a.overhead}, {a.scale}")
        alr_replay(a.start, a.end, a.runs, a.overhead, a.scale)
    elif a.cmd == "evlog":
        need = ("bottleneck-forward.csv", "timeseries.csv", "getstats.json", "browser.json", "rtc-event-log-sender.log")
        missing = [str(d) for d in a.runs if not all((d / n).is_file() for n in need)]
        if missing:
            raise SystemExit(f"no {', '.join(need)} in: {', '.join(missing)} (run with --rtc-event-log)")
        evlog(a.flow, a.start, a.end, a.runs, a.verbose, a.target_at_close)
    else:
        missing = [str(p) for p in a.traces if not p.is_file()]
        if missing:
            raise SystemExit(f"no such trace: {', '.join(missing)}")
        trace(a.start, a.end, a.traces)


if __name__ == "__main__":
    main()
