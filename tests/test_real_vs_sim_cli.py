"""tools/real_vs_sim.py's command line: `--kernel-tcp` runs the simulated TCP
competitor on Linux's defaults (sack, timestamps, linux_rto; hystart in CUBIC), what the
real competitor runs (docs/REPRODUCTION.md, "rfc8867-5.6: the x0.6 and the TCP RTT's
x0.79 are the competitor's loss recovery"), without it the scenario's RFC defaults stay;
an unknown case or `--tables-only` without real runs is a one-line error, not an empty
table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import real_vs_sim
from tool_support import TOOLS

ROOT = TOOLS.parent


def _tcp_overrides(doc: dict) -> dict:
    (tcp,) = [f for f in doc["flows"] if str(f.get("kind", "")).startswith("tcp")]
    return dict(tcp.get("overrides") or {})


def test_kernel_tcp_sets_linux_defaults_on_the_competitor_only():
    m = real_vs_sim
    case = next(c for c in m.CASES if c.name == "rfc8867-5.6")
    plain = m.scenario_doc(case, chromium_preset=True, side=m.SimSide("chromium-m156"))
    kernel = m.scenario_doc(case, chromium_preset=True, side=m.SimSide("chromium-m156", kernel_tcp=True))
    assert not {"sack", "timestamps", "linux_rto", "hystart"} & _tcp_overrides(plain).keys()
    assert _tcp_overrides(kernel) == {**_tcp_overrides(plain), "sack": True, "timestamps": True,
                                      "linux_rto": True, "hystart": True}
    # the video flow is untouched
    assert [f for f in plain["flows"] if not f["kind"].startswith("tcp")] == [
        f for f in kernel["flows"] if not f["kind"].startswith("tcp")
    ]
    assert "kernel-tcp" in m.SimSide("chromium-m156", kernel_tcp=True).tag
    assert "kernel-tcp" not in m.SimSide("chromium-m156").tag


def test_the_kernel_competitor_runs_and_differs():
    import flowstate

    m = real_vs_sim
    case = next(c for c in m.CASES if c.name == "rfc8867-5.6")
    docs = []
    for kernel in (False, True):
        doc = m.scenario_doc(case, chromium_preset=True, side=m.SimSide("chromium-m156", kernel_tcp=kernel))
        docs.append(flowstate.run(doc, seed=1, runs=1))
    assert docs[0].trace_hashes != docs[1].trace_hashes


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOLS / "real_vs_sim.py"), *args],
                          capture_output=True, text=True, timeout=120)


def test_unknown_case_is_a_one_line_error():
    out = _cli("--tables-only", "--only", "no-such-case")
    assert out.returncode == 2
    assert "--only: no such case no-such-case" in out.stderr
    assert "Traceback" not in out.stderr


def test_tables_only_without_real_runs_is_an_error_and_writes_nothing(tmp_path: Path):
    folder = tmp_path / "none"
    out = _cli("--tables-only", "--out", str(folder), "--only", "p000-fig3")
    assert out.returncode == 2
    assert "--tables-only: no real runs in" in out.stderr
    assert "Traceback" not in out.stderr
    assert not folder.exists()


def test_full_set_is_the_five_send_chain_settings_on_every_gcc_flow():
    m = real_vs_sim
    for name in ("p000-fig3", "rfc8867-5.6"):
        case = next(c for c in m.CASES if c.name == name)
        named = m.scenario_doc(case, chromium_preset=True, side=m.SimSide("chromium-m156", full_set=True))
        gcc = [f["name"] for f in named["flows"] if f["kind"] == "gcc"]
        spelled = m.SimSide("chromium-m156", settings=tuple(
            (f"flows.{flow}.overrides.{k}", v)
            for flow in gcc
            for k, v in (("vp8_frame_drop", True), ("chromium_pacer", True), ("pacing_factor", 1.1),
                         ("chromium_fec", True), ("chromium_adjuster", True))))
        assert named == m.scenario_doc(case, chromium_preset=True, side=spelled)
        plain = m.scenario_doc(case, chromium_preset=True, side=m.SimSide("chromium-m156"))
        assert [f for f in named["flows"] if f["kind"] != "gcc"] == [f for f in plain["flows"] if f["kind"] != "gcc"]
    assert "full-set" in m.SimSide("chromium-m156", full_set=True).tag


def test_a_long_set_of_settings_gets_a_short_distinct_tag():
    m = real_vs_sim
    options = ("loss_v2_m150", "loss_v2_padding", "send_time_ms", "chromium_feedback_cadence")
    many = tuple((f"flows.{flow}.overrides.{k}", True) for flow in ("gcc", "media") for k in options)
    a = m.SimSide("chromium-m156", "dcsctp", many, kernel_tcp=True, full_set=True)
    b = m.SimSide("chromium-m156", "dcsctp", many[:-1], kernel_tcp=True, full_set=True)
    assert len(a.tag) <= m.TAG_MAX and len(b.tag) <= m.TAG_MAX
    assert a.tag != b.tag
    assert a.tag.startswith("chromium-m156-dcsctp-full-set-kernel-tcp-")
    short = m.SimSide("chromium-m156", "dcsctp")
    assert short.tag == "chromium-m156-dcsctp"


def test_flowstate_run_names_an_output_folder_it_cannot_make(tmp_path: Path):
    import flowstate
    from flowstate.errors import FlowstateError
    import pytest

    too_long = tmp_path / ("x" * 300)
    with pytest.raises(FlowstateError, match="cannot be an output folder: File name too long"):
        flowstate.run({"duration": "1s", "link": {"capacity": "1Mbps", "delay": "10ms"},
                       "flows": [{"name": "a", "kind": "cbr"}]}, out=too_long)


def test_the_stored_real_runs_give_the_published_video_table(tmp_path: Path):
    """references/chromium-156-video's real side of the video table of
    docs/investigations/2026-12-frame-level-video.md: the real medians (min-max) of the
    frame rate, frame delay and freezes, beside the simulator's figures."""
    refs = ROOT / "references" / "chromium-156-video"
    out = _cli("--tables-only", "--refs", str(refs), "--out", str(tmp_path / "t"), "--preset", "chromium-m156",
               "--sctp-preset", "dcsctp", "--full-set", "--kernel-tcp", "--stacks", "chromium",
               "--only", "p000-fig2", "p000-table5")
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if line.startswith("| gcc | ")]
    assert rows[0].startswith("| gcc | 4.3 (2.2-4.5) | ")  # p000-table5: frames/s
    assert "| 456 (398-468) | " in rows[0] and "| 13.1 (6.0-13.6) | " in rows[0]
    assert rows[1].startswith("| gcc | 29.6 (28.5-30.0) | 29.8 ok | 174 (163-193) | ")  # p000-fig2


def test_stacks_chromium_leaves_the_own_stack_out(tmp_path: Path):
    out = _cli("--tables-only", "--refs", str(ROOT / "references" / "chromium-156"), "--out", str(tmp_path / "t"),
               "--stacks", "chromium", "--only", "p002-fig11")
    assert out.returncode == 0, out.stderr
    assert ", chromium: 3 real runs" in out.stdout and ", flowstate:" not in out.stdout
