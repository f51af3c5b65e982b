"""A short, scripted demonstration of the coupling managers.

Two flows share a bottleneck: a GCC media flow (a rate flow) and an SCTP data channel
(a window flow), equal priority. Their controllers go through the events listed in
``SCRIPT`` (increase, back-off, loss), each flow applying what the manager answered
before its next event; for each mechanism the demo prints what the manager hands back.
Events are scripted, not simulated: the point is to show what each mechanism does with
the same inputs.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional, TextIO

from flowstate import CouplingManager, _native
from flowstate.cli.exit_status import ExitStatus

GROUP = 1
MTU = 1200


@dataclass(frozen=True)
class Step:
    """One controller event. GCC's new rate is its current allocation times
    ``gcc_factor`` (1.08: a multiplicative increase; 0.85: an over-use back-off). SCTP's
    new cwnd is its current cwnd plus ``sctp_add`` bytes, or times ``sctp_factor``."""

    t_s: float
    note: str
    gcc_factor: Optional[float] = None
    sctp_add: int = 0
    sctp_factor: float = 1.0


SCRIPT: tuple[Step, ...] = (
    Step(0.0, "GCC increases 8 %", gcc_factor=1.08),
    Step(0.1, "SCTP slow start: +4 MTU", sctp_add=4 * MTU),
    Step(0.2, "GCC increases 8 %", gcc_factor=1.08),
    Step(0.3, "SCTP slow start: +8 MTU", sctp_add=8 * MTU),
    Step(0.4, "GCC over-use: x 0.85", gcc_factor=0.85),
    Step(0.5, "SCTP loss: cwnd halves", sctp_factor=0.5),
    Step(0.6, "GCC increases 8 %", gcc_factor=1.08),
)

# The mechanism that couples nothing (its manager hands nothing back: nothing to show).
UNCOUPLED = "none"


def _media_and_data_mechanisms() -> tuple[str, ...]:
    """The mechanisms that couple rate (media) and window (data) flows, in the bindings'
    order, from their one definition (``_native.definitions()``)."""
    definitions = _native.definitions()
    coupled_as = {k["name"]: k["coupling"] for k in definitions["flow_kinds"]}
    return tuple(
        m["name"]
        for m in definitions["mechanisms"]
        # Coupling managers only: the simulator's web-api mode couples applications, not
        # controllers (`manager` false).
        if m.get("manager", True)
        and {"rate", "window"} <= {coupled_as.get(k) for k in m["flow_kinds"]}
        and m["name"] != UNCOUPLED
    )


WINDOW_MECHANISMS = _media_and_data_mechanisms()
RTT_S = 0.1


def _fmt_mbps(bps: float) -> str:
    return f"{bps / 1e6:6.3f}"


def run_mechanism(name: str, out: Callable[[str], None]) -> None:
    """Runs SCRIPT through one mechanism, printing one line per step. The flows apply
    what the manager answers, as a real sender would."""
    fse = CouplingManager(name)
    gcc_rate = 1_000_000.0
    cwnd, ssthresh, max_cwnd = 4 * MTU, 1_000_000, None
    gcc = fse.register_rate(GROUP, priority=1.0, initial_rate_bps=gcc_rate)
    sctp = fse.register_window(GROUP, priority=1.0, initial_cwnd=cwnd, initial_rtt_s=RTT_S)
    out(f"\n{name}: {fse.mechanism}")
    out(f"  {'t (s)':>5}  {'event':<26} {'S_CR':>6}  {'GCC':>6}  {'SCTP':>6}  SCTP is told")
    for step in SCRIPT:
        if step.gcc_factor is not None:
            allocations = fse.update_rate(step.t_s, gcc, gcc_rate * step.gcc_factor, rtt_s=RTT_S)
        else:
            cwnd = max(MTU, int(cwnd * step.sctp_factor) + step.sctp_add)
            if step.sctp_factor < 1.0:
                ssthresh = cwnd
            if max_cwnd is not None:
                cwnd = min(cwnd, max_cwnd)
            allocations = fse.update_window(step.t_s, sctp, cwnd, ssthresh=ssthresh, rtt_s=RTT_S)
        told = "-"
        for a in allocations:
            if a.flow == gcc:
                gcc_rate = a.rate_bps
            elif a.kind == "window":
                cwnd, ssthresh = a.cwnd, a.ssthresh or ssthresh
                told = f"cwnd {a.cwnd} B" + (f", ssthresh {a.ssthresh} B" if a.ssthresh else "")
            elif a.kind == "max_window":
                max_cwnd = a.max_cwnd
                cwnd = min(cwnd, max_cwnd) if max_cwnd is not None else cwnd
                told = f"max cwnd {a.max_cwnd} B"
        flows = {f["id"]: f for f in fse.flows(GROUP)}
        out(
            f"  {step.t_s:5.1f}  {step.note:<26} {_fmt_mbps(fse.aggregate_bps(GROUP) or 0.0)}"
            f"  {_fmt_mbps(flows[gcc]['allocated_rate_bps'])}"
            f"  {_fmt_mbps(flows[sctp]['allocated_rate_bps'])}  {told}"
        )


def worked_examples(out: Callable[[str], None]) -> None:
    """The papers' priority examples through the FSE."""
    out("Worked examples (FSE, RFC 8699 algorithm 1), 5 Mbit/s aggregate:")
    fse = CouplingManager("fse")
    ids = [fse.register_rate(GROUP, priority=p, initial_rate_bps=1e6) for p in (1, 3, 1)]
    allocations = fse.update_rate(0.0, ids[1], 3e6)
    shares = ", ".join(f"P={p}: {a.rate_bps / 5e6:.2f}" for p, a in zip((1, 3, 1), allocations))
    out(f"  priorities 1, 3, 1 -> shares {shares}")
    fse = CouplingManager("fse")
    capped = fse.register_rate(GROUP, initial_rate_bps=1e6, desired_rate_bps=0.75e6)
    greedy = fse.register_rate(GROUP, initial_rate_bps=1e6)
    allocations = {a.flow: a.rate_bps for a in fse.update_rate(0.0, greedy, 1e6)}
    out(
        f"  2 Mbit/s, flow 1 desired rate 0.75 -> {allocations[capped] / 1e6:.2f}"
        f" / {allocations[greedy] / 1e6:.2f} Mbit/s"
    )


def main(mechanisms: Iterable[str] = WINDOW_MECHANISMS, stream: Optional[TextIO] = None) -> None:
    def out(line: str) -> None:
        print(line, file=stream)

    worked_examples(out)
    out("\nOne GCC and one SCTP flow, equal priority, RTT 100 ms; scripted controller events;")
    out("rates in Mbit/s (S_CR: the group's aggregate; GCC, SCTP: what the manager allocates):")
    for name in mechanisms:
        run_mechanism(name, out)


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("demo", help="show what each coupling mechanism does with scripted controller reports")
    p.add_argument(
        "--mechanism",
        action="append",
        type=_mechanism,
        help="limit the demo to this mechanism (repeatable; default: all three that couple media and data)",
    )
    return p


def _mechanism(text: str) -> str:
    """A mechanism the demo shows, in any spelling the core reads (``FSEv2``, ``fse_ng``)."""
    name = _native.mechanism_name(text)
    if name not in WINDOW_MECHANISMS:
        raise argparse.ArgumentTypeError(
            f"expected one of {', '.join(WINDOW_MECHANISMS)} (any case, or as printed: FSEv2, FSE-NG), got '{text}'"
        )
    return name


def run(args: argparse.Namespace) -> ExitStatus:
    main(args.mechanism or WINDOW_MECHANISMS)
    return ExitStatus.OK
