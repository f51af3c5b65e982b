"""tools/combo_search.py: the combinations of the chromium-m156 options it
evaluates (names, the options each one needs, the one-option neighbours of the greedy
search, every valid combination), the judgement of a case (real_vs_sim.py's 15 % / 20 %
rule) and one-line errors for bad input."""

from __future__ import annotations

import subprocess
import sys

import combo_search as cs
import pytest
from tool_support import TOOLS


def test_combination_names():
    assert cs.parse_combo("bare") == frozenset()
    assert cs.parse_combo("preset") == frozenset(cs.PRESET)
    assert cs.parse_combo("full") == frozenset(cs.FULL_SET)
    assert cs.parse_combo("full+loss_v2_m150-pacing_1.1") == (
        frozenset(cs.FULL_SET) - {"pacing_1.1"} | {"loss_v2_m150"})
    assert cs.parse_combo("chromium_fec+fec_delay_ms") == {"chromium_fec", "fec_delay_ms"}
    assert cs.label(cs.parse_combo("preset+vp8_frame_drop")) == "preset+vp8_frame_drop"
    assert cs.label(frozenset(cs.PRESET)) == "preset"
    assert cs.label(frozenset()) == "bare"
    assert cs.label(cs.parse_combo("chromium_fec+send_time_ms")) == "bare+chromium_fec+send_time_ms"
    for text in ("full-chromium_fec+send_time_ms", "preset-fec_delay_ms+nack_rtx", "bare+vp8_frame_drop"):
        assert cs.parse_combo(cs.label(cs.parse_combo(text))) == cs.parse_combo(text)


@pytest.mark.parametrize("text, words", [
    ("full+nope", "no option 'nope'"),
    ("loss_v2_padding", "loss_v2_padding needs loss_v2_m150"),
    ("fec_delay_ms", "fec_delay_ms needs chromium_fec"),
    ("full+loss_v2_m150+loss_v2_padding-loss_v2_m150", "needs loss_v2_m150"),
])
def test_bad_combinations_are_named(text, words):
    with pytest.raises(ValueError, match=words):
        cs.parse_combo(text)


def test_overrides_are_the_simulators():
    o = cs.overrides(cs.parse_combo("full+fec_delay_ms"))
    assert o == {"vp8_frame_drop": True, "chromium_pacer": True, "pacing_factor": 1.1,
                 "chromium_fec": True, "chromium_adjuster": True, "fec_delay_ms": 5.4,
                 "loss_v2_m150": False, "loss_v2_padding": False, "send_time_ms": False,
                 "chromium_feedback_cadence": False, "nack_rtx": False, "rtcp_report_random": False}
    # the same send chain as real_vs_sim.py --full-set, every other option off
    full = cs.overrides(cs.parse_combo("full"))
    assert {k: full[k] for k in cs.real_vs_sim.FULL_SET} == cs.real_vs_sim.FULL_SET


def test_the_preset_combination_is_the_presets_defaults():
    """`preset` sets what chromium-m156 does without overrides: the same run."""
    import flowstate

    case = next(c for c in cs.real_vs_sim.CASES if c.name == "rfc8867-5.1")
    named = flowstate.run(cs.scenario(case, cs.parse_combo("preset"), "rfc"), seed=1, runs=1)
    doc = cs.scenario(case, frozenset(), "rfc")
    for f in doc["flows"]:
        if f.get("kind") == "gcc":
            f["overrides"] = {k: v for k, v in f["overrides"].items() if k not in cs.overrides(())}
    default = flowstate.run(doc, seed=1, runs=1)
    assert named.trace_hashes == default.trace_hashes


def test_neighbours_keep_what_an_option_needs():
    start = cs.parse_combo("chromium_fec+loss_v2_m150+loss_v2_padding")
    nb = set(cs.neighbours(start, ["loss_v2_m150", "fec_delay_ms", "send_time_ms"]))
    assert frozenset({"chromium_fec"}) in nb  # removing m150 removes the padding too
    assert start | {"fec_delay_ms"} in nb
    assert start | {"send_time_ms"} in nb
    assert len(nb) == 3
    # adding an option adds what it needs
    assert frozenset({"chromium_fec", "fec_delay_ms"}) in cs.neighbours(frozenset(), ["fec_delay_ms"])


def test_every_combination_is_valid_and_complete():
    combos = cs.every_combination(frozenset({"vp8_frame_drop"}), ["chromium_fec", "fec_delay_ms", "loss_v2_m150",
                                                                   "loss_v2_padding"])
    # fec: none / fec / fec + delay; loss: none / m150 / m150 + padding
    assert len(combos) == 9 == len(set(combos))
    assert all("vp8_frame_drop" in c for c in combos)
    for c in combos:
        cs.check(c)


def _entry(video, video_real, rtt, rtt_real):
    return {"flows": {"gcc": {"kind": "gcc", "throughput_mbps": {"median": video_real},
                              "rtt_mean_ms": {"median": rtt_real}},
                      "sctp": {"kind": "sctp", "throughput_mbps": {"median": 1.6}, "rtt_mean_ms": {"median": 300}}},
            "sim": {"sctp": {"throughput_mbps": 1.6, "rtt_mean_ms": 300},
                    "gcc": {"throughput_mbps": video, "rtt_mean_ms": rtt}}}


def test_a_case_is_within_target_as_real_vs_sim_judges_it():
    ok = cs.case_result(_entry(0.115, 0.100, 350, 300))  # x1.15, x1.17
    assert ok[0].name == "gcc" and all(f.ok for f in ok)
    assert cs.miss(ok) == 0
    high = cs.case_result(_entry(0.120, 0.100, 300, 300))  # x1.20
    assert not high[0].ok and cs.miss(high) > 0
    late = cs.case_result(_entry(0.100, 0.100, 370, 300))  # RTT x1.23
    assert not late[0].ok
    assert cs.score({"a": ok, "b": high})[0] == 1
    assert "x1.20" in cs.cell(high) and cs.cell(ok).startswith("**")


def test_bad_arguments_are_one_line(tmp_path):
    def cli(*args):
        return subprocess.run([sys.executable, str(TOOLS / "combo_search.py"), *args],
                              capture_output=True, text=True, timeout=60)

    p = cli("--refs", str(tmp_path), "--combo", "full+nope")
    assert p.returncode == 2 and "no option 'nope'" in p.stderr.strip().splitlines()[-1]
    p = cli("--refs", str(tmp_path), "--combo", "full")
    assert p.returncode == 2 and "no real runs for p000-table5" in p.stderr.strip().splitlines()[-1]
    p = cli("--refs", str(tmp_path), "--only", "p999")
    assert p.returncode == 2 and "no such case p999" in p.stderr.strip().splitlines()[-1]


def test_write_toml_writes_each_case_and_runs_nothing(tmp_path):
    out = tmp_path / "toml"
    p = subprocess.run([sys.executable, str(TOOLS / "combo_search.py"), "--refs", str(tmp_path / "none"),
                        "--only", "p000-table5", "rfc8867-5.6", "--combo", "full+nack_rtx", "--tcp", "kernel",
                        "--write-toml", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    names = sorted(f.name for f in out.iterdir())
    assert names == ["p000-table5.full+nack_rtx.kernel.toml", "rfc8867-5.6.full+nack_rtx.kernel.toml"]
    text = (out / "rfc8867-5.6.full+nack_rtx.kernel.toml").read_text()
    assert "nack_rtx = true" in text and "hystart = true" in text


def test_sctp_set_goes_on_every_sctp_flow_only(tmp_path):
    assert cs.parse_sctp_set(["renack_retransmissions=false", "mtu=1200"]) == {
        "renack_retransmissions": False, "mtu": 1200}
    with pytest.raises(ValueError, match="expected KEY=VALUE"):
        cs.parse_sctp_set(["renack_retransmissions"])
    out = tmp_path / "toml"
    p = subprocess.run([sys.executable, str(TOOLS / "combo_search.py"), "--refs", str(tmp_path / "none"),
                        "--only", "p000-table5", "--combo", "preset", "--sctp-set",
                        "renack_retransmissions=false", "--write-toml", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    text = (out / "p000-table5.preset.rfc.toml").read_text()
    assert text.count("renack_retransmissions = false") == 1, text
    p = subprocess.run([sys.executable, str(TOOLS / "combo_search.py"), "--refs", str(tmp_path),
                        "--sctp-set", "oops"], capture_output=True, text=True)
    assert p.returncode == 2 and "--sctp-set 'oops': expected KEY=VALUE" in p.stderr.strip().splitlines()[-1]


def test_a_miss_inside_the_real_runs_range_is_marked():
    # real median 0.20 over runs 0.14-0.26: 0.25 misses (x1.25) but lies inside the runs
    inside = cs.FlowResult("gcc", "gcc", 0.20, 0.25, 100.0, 100.0, 0.14, 0.26)
    outside = cs.FlowResult("gcc", "gcc", 0.20, 0.30, 100.0, 100.0, 0.14, 0.26)
    tcp = cs.FlowResult("tcp", "tcp-cubic", 1.0, 1.0, 100.0, 100.0, 0.9, 1.1)
    assert inside.in_real_range and not outside.in_real_range
    assert cs.cell([inside, tcp]) == "0.250 (x1.25, in range)"
    assert cs.cell([outside, tcp]) == "0.300 (x1.50)"
    # a competitor's miss is marked the same way; a pass is not
    wide = cs.FlowResult("tcp", "tcp-cubic", 1.0, 1.2, 100.0, 100.0, 0.8, 1.3)
    assert cs.cell([inside, wide]) == "0.250 (x1.25, in range); tcp x1.20, in range"
    assert cs.cell([tcp, tcp]).startswith("**1.000 ok")
    # references without a range (older summaries) mark nothing
    bare = cs.FlowResult("gcc", "gcc", 0.20, 0.25, 100.0, 100.0)
    assert bare.in_real_range is None and cs.cell([bare, tcp]) == "0.250 (x1.25)"
