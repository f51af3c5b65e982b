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
from cli_support import default_sigint

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
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, preexec_fn=default_sigint,
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
    # the time series, and the video's frames (the testbed's receiver has the frame model)
    assert sorted(f.name for f in (tmp_path / "figures").iterdir()) == [
        "1-rate.png", "2-rtt.png", "3-queue.png", "4-rtt_box.png", "5-frames.png"]
    assert "data:image/png;base64," in html.read_text()


def _ccfb_rows(pcap: Path) -> list[list[str]]:
    """tshark's fields of every RTCP packet and every RTP packet of a testbed pcap."""
    r = subprocess.run(
        ["tshark", "-r", str(pcap), "-d", "udp.port==5004,rtp", "-d", "udp.port==5005,rtcp",
         "-T", "fields", "-E", "separator=|", "-e", "frame.time_epoch", "-e", "frame.protocols",
         "-e", "rtp.ssrc", "-e", "rtp.seq", "-e", "rtcp.pt", "-e", "rtcp.rtpfb.fmt", "-e", "rtcp.mediassrc",
         "-e", "rtcp.fci", "-e", "rtcp.length_check", "-e", "_ws.malformed"],
        capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    return [line.split("|") for line in r.stdout.splitlines()]


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed (scripts/install-test-tools.sh)")
def test_nada_and_scream_feedback_is_rfc8888_that_tshark_decodes(tmp_path: Path) -> None:
    """NADA and SCReAM on the testbed: their feedback on the wire is RTCP PT 205 FMT 11
    (RFC 8888). Wireshark 4.0 has no RFC 8888 dissector: it decodes the RTCP header, the
    sender and the first stream's SSRC and checks the length; the FCI bytes it hands over
    are parsed here by RFC 8888 section 3.1 and checked against the RTP packets in the
    same capture (every packet reported received arrived, at the reported time)."""
    code = main(["testbed", str(SCENARIOS / "rmcat-nada-scream-20s.toml"), "--out", str(tmp_path),
                 "--no-report"])
    assert code == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    for f in summary["flows"]:
        assert f["throughput_mbps"] > 0.2, f
    rows = _ccfb_rows(tmp_path / "receiver.pcap")
    assert not any(r[9] for r in rows), "malformed packets"
    arrivals: dict[tuple[int, int], float] = {}
    reports = []
    for t, protos, rtp_ssrc, rtp_seq, pt, fmt, media_ssrc, fci, length_check, _ in rows:
        if protos.endswith(":rtp"):
            arrivals[(int(rtp_ssrc, 16), int(rtp_seq))] = float(t)
        elif protos.endswith(":rtcp"):
            assert (pt, fmt) == ("205", "11"), (pt, fmt)
            assert length_check.startswith("OK") or length_check in ("1", "True"), length_check
            reports.append((float(t), int(media_ssrc, 16), bytes.fromhex(fci.replace(":", ""))))
    # NADA reports every 100 ms, SCReAM every 20 ms: about 60 per second of the run.
    assert len(reports) > 300, len(reports)
    checked = 0
    for t, ssrc, fci in reports:
        assert ssrc in (1, 2), ssrc
        begin, n = int.from_bytes(fci[0:2], "big"), int.from_bytes(fci[2:4], "big")
        blocks = [int.from_bytes(fci[4 + 2 * k:6 + 2 * k], "big") for k in range(n)]
        padded = 4 + 2 * n + (2 if n % 2 else 0)
        assert len(fci) == padded + 4, (len(fci), n)
        report_ts = int.from_bytes(fci[padded:padded + 4], "big") / 65536.0
        # The report timestamp is the receiver's clock, which also stamps the capture
        # (the testbed's time zero is the epoch of its pcaps): within 5 ms.
        assert abs(report_ts - t) < 0.005, (report_ts, t)
        for k, b in enumerate(blocks):
            if b & 0x8000:
                seq = (begin + k) % 65536
                ato = (b & 0x1FFF) / 1024.0
                assert (ssrc, seq) in arrivals, (ssrc, seq)
                assert abs((report_ts - ato) - arrivals[(ssrc, seq)]) < 0.003
                checked += 1
    assert checked > 1000, checked


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed (scripts/install-test-tools.sh)")
def test_ledbat_runs_over_utp_that_tshark_decodes(tmp_path: Path) -> None:
    """LEDBAT on the testbed travels as uTP (BEP 29): tshark's bt-utp dissector decodes
    every data packet and ack (types ST_DATA 0 and ST_STATE 2, connection id 0x4000),
    and the acks' timestamp_difference is the one-way delay LEDBAT works from: at
    least the path's 50 ms, at most 50 ms plus the 300 ms queue."""
    code = main(["testbed", str(SCENARIOS / "rmcat-ledbat-10s.toml"), "--out", str(tmp_path), "--no-report"])
    assert code == 0
    flow = json.loads((tmp_path / "summary.json").read_text())["flows"][0]
    assert flow["throughput_mbps"] > 1.5 and flow["goodput_mbps"] > 1.4, flow
    r = subprocess.run(
        ["tshark", "-r", str(tmp_path / "receiver.pcap"), "-d", "udp.port==6881,bt-utp",
         "-T", "fields", "-E", "separator=|", "-e", "frame.protocols", "-e", "bt-utp.type",
         "-e", "bt-utp.connection_id", "-e", "bt-utp.timestamp_diff_us", "-e", "_ws.malformed"],
        capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    rows = [line.split("|") for line in r.stdout.splitlines()]
    assert rows and all(":bt-utp" in p for p, *_ in rows), {p for p, *_ in rows}
    assert not any(m for *_, m in rows), "malformed packets"
    assert {c for _, _, c, _, _ in rows} == {"16384"}
    types = [t for _, t, _, _, _ in rows]
    assert types.count("0") > 1000 and types.count("2") > 400, (types.count("0"), types.count("2"))
    diffs = [int(d) / 1e3 for _, t, _, d, _ in rows if t == "2" and d != "0"]
    assert diffs and min(diffs) >= 50.0 and max(diffs) < 400.0, (min(diffs), max(diffs))
