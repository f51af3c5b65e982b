"""GCC against TCP at 1 Mbit/s (papers 001 / 002): the starvation the papers report
depends on how TCP sets ssthresh when its retransmission timer expires during fast
recovery (docs/ALGORITHMS.md, TCP "Timeouts"; docs/REPRODUCTION.md, p002-fig11)."""

from pathlib import Path
from statistics import mean

import flowstate
from flowstate.overrides import load_toml, with_overrides

FIG11 = Path(__file__).resolve().parent.parent / "scenarios" / "p002-fig11" / "base.toml"
SEEDS = (1, 2, 3)


def gcc_share(**sets) -> float:
    """Mean GCC share over 40-150 s (TCP from 30 s), static threshold, seeds 1-3."""
    scenario = with_overrides(load_toml(FIG11), {"flows.gcc.overrides.threshold": "static", **sets})
    shares = []
    for seed in SEEDS:
        flows = {f["name"]: f for f in flowstate.run(scenario, seed=seed).summary["flows"]}
        shares.append(flows["gcc"]["share"])
    return mean(shares)


def test_static_threshold_starves_gcc_only_with_eq4_on_the_inflated_flight_size():
    # RFC 5681 eq. 4 on the FlightSize inflated by NewReno recovery: each timeout in
    # recovery restarts TCP with a huge ssthresh, and GCC (static threshold) starves.
    assert gcc_share(**{"flows.tcp.overrides.rto_keeps_recovery_ssthresh": False}) < 0.2
    # Linux keeps the recovery's ssthresh: GCC holds about half the link or more.
    assert gcc_share() > 0.4
