"""The real path of `flowstate browser` (needs root, iproute2 and /dev/net/tun; each
test says SKIPPED with the reason elsewhere): the IP-level bottleneck's accuracy,
kernel TCP behind the router, one-line errors, and that nothing is left behind on
any exit path."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from flowstate.browser import command
from flowstate.browser.topology import TopologyError, preflight
from cli_support import default_sigint
from real_chromium_support import cli, namespaces

ROOT = Path(__file__).resolve().parents[1]


def real_path_or_skip() -> None:
    try:
        preflight()
    except TopologyError as e:
        pytest.skip(f"no real path here: {e}")


TCP_ONLY = """
name = "tcp-only"
duration = "8s"
[link]
capacity = "10Mbps"
delay = "20ms"
queue = "60ms"
[[flows]]
name = "cubic"
kind = "tcp-cubic"
[measure]
start = "2s"
end = "8s"
"""


def test_not_root_is_a_one_line_error_exit_2(tmp_path, monkeypatch, capsys):
    scenario = tmp_path / "s.toml"
    scenario.write_text(TCP_ONLY)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    from flowstate.cli.main import main

    assert main(["browser", str(scenario), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["flowstate: error: flowstate browser needs root (network namespaces and TUN devices); run it with sudo"]
    assert not (tmp_path / "o").exists()


def test_no_chromium_is_a_one_line_error_exit_2(tmp_path):
    real_path_or_skip()
    scenario = tmp_path / "s.toml"
    scenario.write_text(TCP_ONLY.replace('kind = "tcp-cubic"', 'kind = "gcc"'))
    p = cli("browser", str(scenario), "--chromium", str(tmp_path / "no-such-chromium"), "--prefix", "fstn")
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [
        f"flowstate: error: flowstate browser --chromium: no browser at {tmp_path / 'no-such-chromium'} "
        "(install the Debian package 'chromium')"
    ]
    assert namespaces("fstn") == []


def test_a_scenario_that_cannot_run_for_real_is_named_before_any_set_up(tmp_path):
    scenario = tmp_path / "s.toml"
    grouped = TCP_ONLY.replace('kind = "tcp-cubic"', 'kind = "tcp-cubic"\ngroup = "g"')
    scenario.write_text(grouped + '\n[coupling]\nmechanism = "fsev2"\n')
    p = cli("browser", str(scenario), "--prefix", "fstm")
    assert p.returncode == 2
    assert "coupling.mechanism: an unmodified browser has no coupling" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    assert namespaces("fstm") == []


def test_ip_bottleneck_accuracy_at_10_mbps():
    """The short accuracy check of CI: rate, timing and the standing queue."""
    real_path_or_skip()
    from flowstate.browser.accuracy import measure

    r = measure(10, seconds=3, prefix="fstacc")
    assert abs(r["rate_error"]) < 0.01, r
    assert r["timing_error_us"]["p50"] < 500, r
    assert 90 <= r["queue_ms"] <= 110, r
    assert r["queue_drops"] > 0, r  # the load was above the capacity
    assert namespaces("fstacc") == []


def test_kernel_cubic_fills_the_link_behind_the_router(tmp_path):
    real_path_or_skip()
    scenario = tmp_path / "tcp.toml"
    scenario.write_text(TCP_ONLY)
    out = tmp_path / "out"
    p = cli("browser", str(scenario), "--out", str(out), "--prefix", "fstk", "--no-report", timeout=120)
    assert p.returncode == 0, p.stderr
    import json

    s = json.loads((out / "summary.json").read_text())
    flow = s["flows"][0]
    assert s["aggregate"]["utilization"] > 0.9, s
    # Base RTT 40 ms; CUBIC keeps the 60 ms queue partly filled.
    assert 40 < flow["rtt_ms"]["mean"] < 40 + 60 + 20, flow
    assert flow["queuing_delay_ms"]["p95"] <= 61, flow
    for name in ("bottleneck-forward.csv", "bottleneck-forward.pcap", "tcp.json", "browser.json", "timeseries.csv"):
        assert (out / name).stat().st_size > 0, name
    assert namespaces("fstk") == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_mid_run_removes_everything_and_keeps_the_results(tmp_path, sig):
    real_path_or_skip()
    scenario = tmp_path / "tcp.toml"
    scenario.write_text(TCP_ONLY.replace('duration = "8s"', 'duration = "60s"').replace('end = "8s"', 'end = "60s"'))
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "flowstate", "browser", str(scenario), "--out", str(out), "--prefix", "fsts", "--no-report"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    try:
        deadline = time.time() + 30
        while time.time() < deadline and len(namespaces("fsts")) < 3:
            time.sleep(0.1)
        assert len(namespaces("fsts")) == 3
        time.sleep(3)  # the flow is running
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert namespaces("fsts") == []
    assert (out / "summary.json").exists(), err  # what was measured up to the signal
    assert "cut short" in err
    assert proc.returncode == (130 if sig == signal.SIGINT else 143)
    # A second run can start right after, with the same names.
    p = cli("browser", str(scenario), "--duration", "4", "--out", str(tmp_path / "again"),
            "--prefix", "fsts", "--no-report", timeout=60)
    assert p.returncode == 0, p.stderr
    assert namespaces("fsts") == []


def test_a_mahimahi_trace_shapes_the_real_path_as_the_simulator(tmp_path):
    """The IP-level bottleneck delivers by the trace (crates/flowstate-sim/src/trace.rs,
    one link model), and utilization is measured against the trace's own capacity."""
    real_path_or_skip()
    trace = ROOT / "scenarios" / "traces" / "step.mahimahi"
    scenario = tmp_path / "trace.toml"
    scenario.write_text(
        TCP_ONLY.replace('capacity = "10Mbps"', f'capacity_trace = {{ file = "{trace}", format = "mahimahi", loop = true }}')
        .replace('queue = "60ms"', 'queue = "60pkt"')
    )
    out = tmp_path / "out"
    p = cli("browser", str(scenario), "--out", str(out), "--prefix", "fstt", "--no-report", timeout=120)
    assert p.returncode == 0, p.stderr
    import json

    s = json.loads((out / "summary.json").read_text())
    import flowstate

    sim = flowstate.run(scenario).summary
    # Kernel CUBIC keeps the trace's link busy; the capacity both use is the trace's.
    assert s["aggregate"]["utilization"] > 0.9, s
    cap_real = s["flows"][0]["throughput_mbps"] / s["aggregate"]["utilization"]
    cap_sim = sim["flows"][0]["throughput_mbps"] / sim["aggregate"]["utilization"]
    assert abs(cap_real - cap_sim) / cap_sim < 0.02, (cap_real, cap_sim)
    assert namespaces("fstt") == []
