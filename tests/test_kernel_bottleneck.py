"""`flowstate testbed --netns` and scripts/kernel_bottleneck.py: the testbed's media
flows against kernel TCP through a kernel tbf (end-to-end run only as root)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from flowstate.cli import main

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "kernel_bottleneck.py"


def _script():
    spec = importlib.util.spec_from_file_location("kernel_bottleneck", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_scenario_units_become_the_kernel_paths_parameters() -> None:
    kb = _script()
    assert kb.seconds("25ms", "x") == pytest.approx(0.025)
    assert kb.seconds("100s", "x") == 100.0
    assert kb.seconds(2, "x") == 2.0
    assert kb.rate_bps("1Mbps", "x") == 1e6
    assert kb.rate_bps("500kbps", "x") == 5e5
    assert kb.queue_bytes("30kB", 1e6) == 30_000
    assert kb.queue_bytes("20pkt", 1e6) == 30_000
    assert kb.queue_bytes("240ms", 1e6) == 30_000
    for bad, call in (("fast", kb.rate_bps), ("soon", kb.seconds)):
        with pytest.raises(kb.Fail):
            call(bad, "link.x")
    with pytest.raises(kb.Fail, match="link.queue"):
        kb.queue_bytes("lots", 1e6)


def _scenario(tmp_path: Path) -> Path:
    f = tmp_path / "s.toml"
    f.write_text(
        'name = "kb"\nduration = "8s"\n[link]\ncapacity = "1Mbps"\ndelay = "10ms"\nqueue = "30kB"\n'
        '[[flows]]\nname = "gcc"\nkind = "gcc"\npreset = "paper-static"\n'
        '[[flows]]\nname = "tcp"\nkind = "tcp-cubic"\nstart = "3s"\n[measure]\nstart = "3s"\n'
    )
    return f


@pytest.mark.parametrize(
    "netns, words",
    [
        (["snd", "rcv=10.0.0.2"], "the sender side must be NAME=IP"),
        (["snd=10.0.0.1", "rcv=ten"], "'ten' is not an IP address"),
        (["flowstate-absent-s=10.0.0.1", "flowstate-absent-r=10.0.0.2"], "sender namespace 'flowstate-absent-s'"),
    ],
)
def test_bad_netns_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], netns, words) -> None:
    scenario = tmp_path / "g.toml"
    scenario.write_text(
        'name = "g"\nduration = "2s"\n[link]\ncapacity = "1Mbps"\ndelay = "10ms"\nqueue = "30kB"\n'
        '[[flows]]\nname = "gcc"\nkind = "gcc"\n'
    )
    assert main(["testbed", str(scenario), "--no-report", "--out", str(tmp_path / "o"), "--netns", *netns]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("flowstate: error:") and words in err[0], err


def test_script_without_root_or_with_bad_input_is_one_line(tmp_path: Path) -> None:
    p = subprocess.run(
        [sys.executable, str(SCRIPT), str(_scenario(tmp_path)), "--prefix", "much-too-long"],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kernel_bottleneck:"), p.stderr


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("ip") is None or shutil.which("tc") is None or not Path("/dev/net/tun").exists(),
    reason="needs root, iproute2 and /dev/net/tun",
)
def test_gcc_and_kernel_tcp_share_a_kernel_tbf(tmp_path: Path) -> None:
    out = tmp_path / "out"
    prefix = f"kt{os.getpid() % 100000}"
    p = subprocess.run(
        [sys.executable, str(SCRIPT), str(_scenario(tmp_path)), "--out", str(out), "--prefix", prefix],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    report = json.loads((out / "kernel_bottleneck.json").read_text())
    flows = report["flows"]
    assert flows["tcp"]["where"] == "kernel TCP (cubic)"
    assert flows["gcc"]["where"] == "testbed"
    assert flows["tcp"]["throughput_mbps"] > 0.05 and flows["gcc"]["throughput_mbps"] > 0.05, flows
    assert sum(f["share"] for f in flows.values()) == pytest.approx(1.0)
    assert report["tbf"]["kind"] == "tbf" and report["tbf"]["packets"] > 100
    assert report["utilization"] < 1.08, "the tbf caps the aggregate"
    assert (out / "summary.json").exists() and (out / "kernel-tcp.json").exists()
    # The namespaces are gone afterwards.
    assert prefix not in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
