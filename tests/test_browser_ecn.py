"""ECN on the real path (needs root, iproute2 and /dev/net/tun; SKIPPED with the reason
elsewhere): a kernel TCP connection with ECN through the IP-level bottleneck under
CoDel gets CE marks written into its real IP headers and reacts to them without a
loss; the same connection without ECN is never marked (its packets are dropped
instead). The host's own ``net.ipv4.tcp_ecn`` is never touched, and nothing is left
behind. No tight timing: the figures asserted hold on a loaded machine."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowstate.browser.topology import TopologyError, preflight
from real_chromium_support import namespaces

HOST_TCP_ECN = Path("/proc/sys/net/ipv4/tcp_ecn")

# 10 Mbit/s, 20 ms each way, CoDel with ECN (RFC 8289: target 5 ms, interval 100 ms)
# and a queue limit no 8 s CUBIC transfer reaches: every loss would be the AQM's.
CODEL = """
name = "ecn-codel"
duration = "60s"
[link]
capacity = "10Mbps"
delay = "20ms"
queue = { discipline = "codel", limit = "1000pkt", ecn = true }
[[flows]]
name = "cubic"
kind = "tcp-cubic"
"""


def real_path_or_skip() -> None:
    try:
        preflight()
    except TopologyError as e:
        pytest.skip(f"no real path here: {e}")


def test_kernel_tcp_with_ecn_is_marked_and_reacts_without_a_loss():
    real_path_or_skip()
    from flowstate.browser import ecn_path

    host_before = HOST_TCP_ECN.read_text()
    r = ecn_path.run(CODEL, seconds=8, tcp_ecn=1, prefix="fsten")
    s = r.summary()
    c = r.counters
    # ECT(0) segments in, CE marks out, counted at the router.
    assert s["segments"] > 1000, s
    # Every data segment is ECT(0); the SYN and pure ACKs are Not-ECT (RFC 3168 6.1.4).
    assert s["ecn_capable"] >= s["segments"] - 10, s
    assert c["ce_marked"] > 0 and s["marks"] == c["ce_marked"], s
    assert c["aqm_drops"] == 0 and c["queue_drops"] == 0, c
    # The kernel negotiated ECN, got the marks echoed (its CE-delivered count) and
    # reduced its window for them (a finite ssthresh) while the bottleneck dropped
    # nothing. Retransmissions are not asserted: on a loaded machine the kernel's
    # timers (tail loss probes, RTO) can resend segments that were never lost.
    tcp = s["tcp"]
    assert tcp["ecn"] is True, tcp
    assert tcp["ssthresh"] < 1 << 30, tcp
    if tcp["delivered_ce"] is not None:  # Linux >= 4.19
        assert tcp["delivered_ce"] > 0, tcp
    # CoDel kept the standing queue near its 5 ms target (a drop-tail queue of this
    # size would hold hundreds of ms).
    assert s["sojourn_ms_p50"] < 50, s
    # The window fell at least once under the marks.
    cwnd = [c for _, c in r.tcp.cwnd]
    assert any(b < a for a, b in zip(cwnd, cwnd[1:])), cwnd
    assert HOST_TCP_ECN.read_text() == host_before
    assert namespaces("fsten") == []


def test_kernel_tcp_without_ecn_is_never_marked():
    real_path_or_skip()
    from flowstate.browser import ecn_path

    r = ecn_path.run(CODEL, seconds=6, tcp_ecn=0, prefix="fstnn")
    s = r.summary()
    assert s["segments"] > 1000, s
    assert s["ecn_capable"] == 0 and s["marks"] == 0, s
    assert r.counters["ce_marked"] == 0 and r.counters["ecn_capable"] == 0, r.counters
    # CoDel dropped what it would have marked, and TCP retransmitted.
    assert r.counters["aqm_drops"] > 0, r.counters
    assert s["tcp"]["ecn"] is False and s["tcp"]["total_retrans"] > 0, s["tcp"]
    assert namespaces("fstnn") == []


def test_a_bad_tcp_ecn_mode_is_a_one_line_error():
    from flowstate.browser.topology import Topology

    with pytest.raises(TopologyError, match=r"^net\.ipv4\.tcp_ecn: 0, 1 or 2, got 3$"):
        Topology("fstbad").set_tcp_ecn(3)


def _plan(flows: list[dict]):
    from flowstate.browser.plan import make_plan

    doc = {
        "name": "p",
        "duration": "10s",
        "link": {"capacity": "10Mbps", "delay": "20ms", "queue": {"discipline": "codel"}},
        "flows": flows,
    }
    return make_plan(doc)


def test_the_plan_gives_kernel_tcp_ecn_to_the_namespaces():
    from flowstate.browser.plan import PlanError

    p = _plan([{"name": "a", "kind": "tcp-cubic", "ecn": "ECT0"}, {"name": "b", "kind": "tcp-newreno", "ecn": "ect0"}])
    assert p.tcp_ecn == 1 and [f.ecn for f in p.flows] == ["ect0", "ect0"]
    assert _plan([{"name": "a", "kind": "tcp-cubic"}]).tcp_ecn is None
    with pytest.raises(PlanError) as e:
        _plan([{"name": "a", "kind": "tcp-cubic", "ecn": "ect0"}, {"name": "b", "kind": "tcp-cubic"}])
    assert str(e.value) == (
        "flows.b.ecn: every kernel TCP flow shares its namespace's net.ipv4.tcp_ecn, so all must "
        "have the same ecn ('off' here, 'ect0' on flows.a)"
    )
    with pytest.raises(PlanError, match=r"^flows\.a\.ecn: kernel TCP sends classic ECN, ECT\(0\)"):
        _plan([{"name": "a", "kind": "tcp-cubic", "ecn": "ect1"}])
    # Chromium's own stack decides its codepoints: named as ignored, not refused.
    g = _plan([{"name": "v", "kind": "gcc", "ecn": "ect1"}, {"name": "d", "kind": "sctp", "ecn": "off"}])
    assert g.ignored == ["flows.v.ecn"] and g.tcp_ecn is None


BROWSER_ECN = """
name = "browser-ecn"
duration = "8s"
[link]
capacity = "10Mbps"
delay = "20ms"
queue = { discipline = "fq-codel" }
[[flows]]
name = "cubic"
kind = "tcp-cubic"
ecn = "ect0"
[measure]
start = "2s"
"""


def test_flowstate_browser_runs_an_ecn_tcp_flow_under_fq_codel(tmp_path):
    """The whole command: the scenario's fq-codel in the router, tcp_ecn set in the
    namespaces from the flow's ecn, the marks in summary.json and tcp.json."""
    real_path_or_skip()
    import json

    from real_chromium_support import cli

    scenario = tmp_path / "ecn.toml"
    scenario.write_text(BROWSER_ECN)
    out = tmp_path / "out"
    p = cli("browser", str(scenario), "--out", str(out), "--prefix", "fstbe", "--no-report", timeout=120)
    assert p.returncode == 0, p.stderr
    flow = json.loads((out / "summary.json").read_text())["flows"][0]
    assert flow["ce_marks"] > 0 and flow["lost_packets"] == 0, flow
    tcp = json.loads((out / "tcp.json").read_text())["cubic"]
    # No loss at the bottleneck (above); spurious retransmissions of a loaded machine
    # are not asserted.
    assert tcp["ecn"] is True, tcp
    assert json.loads((out / "browser.json").read_text())["tcp_ecn"] == 1
    assert namespaces("fstbe") == []
