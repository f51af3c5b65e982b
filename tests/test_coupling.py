"""The coupling managers through the Python API: the papers' worked examples,
the allocation kinds, and typed errors."""

import math

import pytest

import flowstate
from flowstate import CouplingError, CouplingManager

G = 1


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


def test_priorities_1_3_1_give_fifths():
    # Paper 000 section IV-A.
    fse = CouplingManager("fse")
    a, b, c = (fse.register_rate(G, priority=p, initial_rate_bps=1e6) for p in (1, 3, 1))
    allocations = {x.flow: x.rate_bps for x in fse.update_rate(0.0, b, 3e6)}
    assert fse.aggregate_bps(G) == pytest.approx(5e6)
    assert close(allocations[a], 1e6) and close(allocations[b], 3e6) and close(allocations[c], 1e6)


def test_desired_rate_leaves_the_rest_to_the_other_flow():
    # Paper 000 Fig. 6: 2 Mbit/s with DR 0.75 -> 0.75 / 1.25.
    fse = CouplingManager("fse")
    capped = fse.register_rate(G, initial_rate_bps=1e6, desired_rate_bps=0.75e6)
    greedy = fse.register_rate(G, initial_rate_bps=1e6)
    allocations = {x.flow: x for x in fse.update_rate(0.0, greedy, 1e6)}
    assert close(allocations[capped].rate_bps, 0.75e6)
    assert close(allocations[greedy].rate_bps, 1.25e6)
    assert allocations[greedy].kind == "rate"


def test_two_to_one_priorities_with_sctp_under_fsev2():
    # Paper 000 Table 6: GCC P = 2, SCTP P = 1 -> 2/3 and 1/3.
    fse = CouplingManager("fsev2")
    gcc = fse.register_rate(G, priority=2.0, initial_rate_bps=2e6)
    sctp = fse.register_window(G, priority=1.0, initial_cwnd=12_000, initial_rtt_s=0.096)
    allocations = {x.flow: x for x in fse.update_rate(0.0, gcc, 2e6)}
    assert close(allocations[gcc].rate_bps, 2e6)
    assert close(allocations[sctp].rate_bps, 1e6)
    window = allocations[sctp]
    assert window.kind == "window"
    assert window.cwnd % 1200 == 0 and window.cwnd >= 1200
    assert window.cwnd == 1e6 * 0.096 / 8 // 1200 * 1200
    # The repr reads as Python: plain numbers and None, not Rust's Some(..).
    assert window.ssthresh is None
    assert repr(window) == f"Allocation(flow={sctp}, rate_bps=1000000.0, cwnd={window.cwnd}, ssthresh=None)"


def test_three_eighths_shares_under_fse_ng():
    # Paper 000 Table 7: 2 GCC (P = 1.5) + SCTP (P = 1).
    fse = CouplingManager("fse-ng", count_change_twice=False)
    g1 = fse.register_rate(G, priority=1.5, initial_rate_bps=2e6)
    g2 = fse.register_rate(G, priority=1.5, initial_rate_bps=2e6)
    sctp = fse.register_window(G, priority=1.0, initial_cwnd=4800, initial_max_cwnd=64_000)
    allocations = {x.flow: x for x in fse.update_rate(0.0, g1, 2e6, rtt_s=0.1)}
    total = fse.aggregate_bps(G)
    assert close(allocations[g1].rate_bps / total, 3 / 8)
    assert close(allocations[g2].rate_bps / total, 3 / 8)
    assert close(allocations[sctp].rate_bps / total, 2 / 8)
    assert allocations[sctp].kind == "max_window"
    assert allocations[sctp].max_cwnd == int(total * 2 / 8 * 0.1 / 8)
    # The last rate flow leaving restores SCTP's own cap.
    assert fse.deregister(g1) == []
    (reset,) = fse.deregister(g2)
    assert reset.flow == sctp and reset.kind == "max_window" and reset.max_cwnd == 64_000


def test_flows_and_priority_changes():
    fse = CouplingManager("fse", deregister_policy="subtract")
    a = fse.register_rate(G, initial_rate_bps=1e6, flow_id=77)
    assert a == 77
    b = fse.register_rate(G, initial_rate_bps=1e6)
    fse.set_priority(a, 3.0)
    fse.set_desired_rate(b, None)
    allocations = {x.flow: x.rate_bps for x in fse.update_rate(0.5, b, 1e6)}
    assert close(allocations[a], 1.5e6)
    info = {f["id"]: f for f in fse.flows(G)}
    assert info[a]["priority"] == 3.0 and info[b]["desired_rate_bps"] is None
    assert info[a]["kind"] == "rate"
    assert fse.aggregate_bps(2) is None
    assert set(flowstate.MECHANISMS) == {"none", "fse", "fse-simple", "conservative-fse", "fse-ng", "ext-fse-ng", "fsev2"}


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda m: m.register_rate(G, priority=0, initial_rate_bps=1e6), "priority must be"),
        (lambda m: m.register_rate(G, priority=-1, initial_rate_bps=1e6), "priority must be"),
        (lambda m: m.register_rate(G, initial_rate_bps=float("nan")), "initial_rate_bps must be"),
        (lambda m: m.register_rate(G, initial_rate_bps=1e6, desired_rate_bps=-5), "desired_rate_bps"),
        (lambda m: m.update_rate(0.0, 999, 1e6), "flow 999 is not registered"),
        (lambda m: m.deregister(999), "flow 999 is not registered"),
        (lambda m: m.update_rate(float("nan"), 999, 1e6), "now_s must be"),
        (lambda m: m.register_window(G, initial_cwnd=1200, initial_rtt_s=-0.1), "initial_rtt_s"),
    ],
)
def test_bad_input_raises_coupling_error(call, message):
    manager = CouplingManager("fsev2")
    with pytest.raises(CouplingError, match=message):
        call(manager)


def test_duplicate_registration_and_bad_options():
    fse = CouplingManager("fsev2")
    fse.register_rate(G, initial_rate_bps=1e6, flow_id=5)
    with pytest.raises(CouplingError, match="flow 5 is already registered"):
        fse.register_rate(G, initial_rate_bps=1e6, flow_id=5)
    with pytest.raises(CouplingError, match="unknown coupling mechanism 'fsev9'"):
        CouplingManager("fsev9")
    with pytest.raises(CouplingError, match="unknown option 'bogus' for fse-ng"):
        CouplingManager("fse-ng", bogus=True)
    with pytest.raises(CouplingError, match="deregister_policy"):
        CouplingManager("fse", deregister_policy="drop")
    with pytest.raises(CouplingError, match="does not couple Window flows"):
        CouplingManager("fse").register_window(G, initial_cwnd=4800)
    assert isinstance(CouplingError("x"), ValueError)
