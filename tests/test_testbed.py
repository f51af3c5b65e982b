"""`flowstate testbed`: the 30-s Table 5 variants in real time, pcaps through tshark,
bad input, Ctrl-C. (Loss, garbage injection and the stop flag are also covered by the
Rust tests in crates/flowstate-testbed/tests.)"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from flowstate import ScenarioError
from flowstate.cli.main import main
from flowstate.cli import testbed as testbed_command

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios" / "testbed"


def _flows(summary: dict) -> dict:
    return {f["name"]: f for f in summary["flows"]}


@pytest.fixture(scope="module")
def table5(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict]]:
    """Both 30-s runs once (real time: about a minute), through the CLI."""
    out = {}
    for mech in ("none", "fsev2"):
        folder = tmp_path_factory.mktemp(mech)
        code = main([ "testbed", str(SCENARIOS / f"p000-table5-{mech}-30s.toml"), "--out", str(folder), "--no-report"])
        assert code == 0
        out[mech] = (folder, json.loads((folder / "summary.json").read_text()))
    return out


def test_outputs_have_the_simulator_shape(table5: dict) -> None:
    folder, summary = table5["fsev2"]
    for name in ("summary.json", "timeseries.csv", "sender.pcap", "receiver.pcap", "testbed.json"):
        assert (folder / name).stat().st_size > 0, name
    assert set(summary) >= {"scenario", "seed", "duration_s", "window_s", "flows", "aggregate"}
    assert summary["window_s"] == [10.0, 30.0]
    header = (folder / "timeseries.csv").read_text().splitlines()[0]
    assert header.startswith("run,seed,time_s,flow,send_rate_mbps,throughput_mbps")
    counters = json.loads((folder / "testbed.json").read_text())
    assert counters["sender"]["malformed"] == 0 and counters["receiver"]["malformed"] == 0
    assert counters["sctp"][0]["established"] and counters["sctp"][0]["order_errors"] == 0


def test_uncoupled_gcc_is_squeezed_by_sctp(table5: dict) -> None:
    """Paper 000 Table 5, uncoupled: the SCTP flow takes most of the link (loose bound)."""
    _, s = table5["none"]
    f = _flows(s)
    assert f["sctp"]["share"] > 0.6, f
    assert f["gcc"]["throughput_mbps"] < 0.8, f
    assert 0.7 < s["aggregate"]["utilization"] < 1.05


def test_fsev2_splits_the_link_near_evenly(table5: dict) -> None:
    """Paper 000 Table 5, FSEv2: near-even shares (loose bounds: the machine is noisy)."""
    _, s = table5["fsev2"]
    f = _flows(s)
    assert 0.25 < f["gcc"]["share"] < 0.75, f
    assert s["aggregate"]["jain_index"] > 0.8
    assert _flows(table5["none"][1])["gcc"]["share"] < f["gcc"]["share"]


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed (scripts/install-test-tools.sh)")
def test_pcaps_decode_in_tshark_without_malformed_packets(table5: dict) -> None:
    folder, _ = table5["fsev2"]
    for pcap in ("sender.pcap", "receiver.pcap"):
        r = subprocess.run(
            ["tshark", "-r", str(folder / pcap), "-o", "sctp.checksum:CRC-32C",
             "-d", "udp.port==5004,rtp", "-d", "udp.port==5005,rtcp", "-d", "udp.port==9899,sctp",
             "-T", "fields", "-e", "frame.protocols", "-e", "_ws.malformed", "-e", "_ws.expert.severity"],
            capture_output=True, text=True, timeout=300,
        )
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        assert len(lines) > 1000
        protos = "\n".join(lines)
        assert "rtp" in protos and "sctp" in protos and "rtcp" in protos, pcap
        assert "malformed" not in protos.lower(), pcap
        # Expert info of severity error (0x00800000) would mean a broken field.
        severities = [int(v) for line in lines for field in line.split("\t")[2:] for v in field.split(",") if v]
        assert all(s < 0x00800000 for s in severities), pcap


def test_bad_scenario_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text((SCENARIOS / "p000-table5-none-30s.toml").read_text().replace('kind = "sctp"', 'kind = "tfrc"'))
    assert main(["testbed", str(bad), "--duration", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[-1].startswith("flowstate: error:") and "flows[1].kind" in err[-1]
    assert main(["testbed", str(tmp_path / "missing.toml")]) == 2
    with pytest.raises(SystemExit) as exit_info:
        main(["testbed", str(bad), "--duration", "-1"])
    assert exit_info.value.code == 2
    with pytest.raises(ScenarioError):
        testbed_command.testbed(str(tmp_path / "missing.toml"))


def test_ctrl_c_still_writes_what_was_measured(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    p = subprocess.Popen(
        [sys.executable, "-m", "flowstate", "testbed", str(SCENARIOS / "p000-table5-fsev2-30s.toml"),
         "--out", str(tmp_path), "--no-report"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    time.sleep(4)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert 3.0 < summary["duration_s"] < 8.0
    rows = (tmp_path / "timeseries.csv").read_text().splitlines()[1:]
    gcc = [float(r.split(",")[5]) for r in rows if r.split(",")[3] == "gcc"]
    assert len(gcc) >= 6 and max(gcc) > 0.05, rows
    assert "interrupted" in out
    assert (tmp_path / "sender.pcap").stat().st_size > 1000


def test_a_run_folder_gets_results_figures_and_report(tmp_path):
    """The testbed's report step on a run folder of the same shape (made by the simulator
    here, so the test is fast): results.json with one point, four figures, report.html."""
    import io

    import flowstate
    from flowstate.cli import testbed as testbed_command

    scenario = {
        "name": "tiny",
        "duration": "4s",
        "link": {"capacity": "1Mbps", "delay": "20ms", "queue": "100ms"},
        "flows": [{"name": "gcc", "kind": "gcc"}, {"name": "sctp", "kind": "sctp", "start": "1s"}],
    }
    flowstate.run(scenario, seed=1).write(tmp_path)
    stderr = io.StringIO()
    html = testbed_command._report(tmp_path, stderr)
    assert stderr.getvalue() == ""
    assert html == tmp_path / "report.html" and html.is_file()
    results = json.loads((tmp_path / "results.json").read_text())
    assert [p["dir"] for p in results["points"]] == ["."]
    assert sorted(f.name for f in (tmp_path / "figures").iterdir()) == [
        "1-rate.png", "2-rtt.png", "3-queue.png", "4-rtt_box.png"]
    assert "data:image/png;base64," in html.read_text()
