"""tools/validate_model.py: the one Chromium configuration, the set files, the figures
it judges by, and that the stored real runs still give the tables published in
docs/REPRODUCTION.md (no browser, no root: the simulator side only)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import validate_model as vm  # noqa: E402

SETS = [ROOT / "scenarios" / "validation" / "set.toml", ROOT / "scenarios" / "l4s" / "real-set.toml"]


def test_the_model_is_one_configuration_whatever_the_scenario_says():
    doc = {"flows": [
        {"name": "g", "kind": "gcc", "preset": "paper", "overrides": {"video_max_rate": "1Mbps", "kalman_q": 0.1}},
        {"name": "d", "kind": "sctp", "preset": "usrsctp"},
        {"name": "t", "kind": "tcp-cubic"},
        {"name": "s", "kind": "scream-v2", "overrides": {"max_rate": "3Mbps", "min_ref_window": "2000B"}},
    ]}
    f = {x["name"]: x for x in vm.model_doc(doc)["flows"]}
    assert f["g"]["preset"] == "chromium-m156"
    assert f["g"]["overrides"] == {"video_max_rate": "1Mbps", "vp8_frame_drop": True}
    assert f["d"]["preset"] == "dcsctp"
    assert f["t"]["overrides"] == {"sack": True, "timestamps": True, "linux_rto": True, "hystart": True}
    assert f["s"]["overrides"] == {"max_rate": "3Mbps", "vp8_frame_drop": True}


def test_every_set_names_its_roles_and_the_split_keeps_test_cases_apart():
    for path in SETS:
        s = vm.load_set(path)
        assert {c.role for c in s.cases} <= {"calibration", "test"}
        assert len({c.name for c in s.cases}) == len(s.cases), path
    v = vm.load_set(SETS[0])
    calibration = {c.name for c in v.cases if c.role == "calibration"}
    assert calibration == {"p000-table5", "p000-fig2", "p000-fig3", "rfc8867-5.1", "rfc8867-5.6", "p002-fig11",
                           "p001-fig8"}
    tests = [c for c in v.cases if c.role == "test"]
    assert len(v.cases) >= 20 and len(tests) >= 13
    assert all(c.scenario is not None and c.scenario.is_file() for c in tests)


@pytest.mark.parametrize("text, message", [
    ("name = 'x'\nrefs = 'r'\n", "no cases"),
    ("refs = 'r'\n[[cases]]\nname = 'a'\nrole = 'train'\n", "cases[0].role: 'calibration' or 'test', got 'train'"),
    ("refs = 'r'\n[[cases]]\nrole = 'test'\n", "cases[0].name: missing"),
    ("refs = \n", "cannot read the set file"),
])
def test_a_bad_set_file_is_a_one_line_error(tmp_path, text, message):
    p = tmp_path / "set.toml"
    p.write_text(text)
    with pytest.raises(vm.SetError, match=None) as e:
        vm.load_set(p)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_capacity_events_and_reaction_times():
    doc = {"link": {"capacity_schedule": [{"at": "0s", "rate": "2Mbps"}, {"at": "20s", "rate": "0.8Mbps"},
                                          {"at": "40s", "rate": "3Mbps"}]}}
    assert vm.capacity_events(doc) == [(20.0, "down"), (40.0, "up")]
    rows = [{"run": "0", "flow": "v", "time_s": str(t), "throughput_mbps": str(x), "capacity_mbps": "3"}
            for t, x in [(39.5, 0.5), (40.0, 0.8), (41.0, 2.0), (42.0, 2.3)]]
    # Up: 90 % of min(capacity 3, max rate 2.5) = 2.25 Mbit/s, first at 42 s.
    assert vm.reaction_times(rows, "v", 40.0, "up", 2.5, "throughput_mbps") == [2.0]
    assert vm.reaction_times(rows, "v", 40.0, "up", 10.0, "throughput_mbps") == []


def test_the_tolerances_can_fail():
    def flows(sim_tput, sim_rtt):
        real = {k: vm.spread([v]) for k, v in
                {"throughput_mbps": 1.0, "share": 0.5, "rtt_mean_ms": 100.0, "queuing_mean_ms": 10.0,
                 "queuing_p95_ms": 20.0, "fps": None, "frame_delay_mean_ms": None, "freezes_per_min": None}.items()}
        sim = dict(real, throughput_mbps=vm.spread([sim_tput]), rtt_mean_ms=vm.spread([sim_rtt]))
        return {"c": {"role": "test", "flows": {"f": {"kind": "gcc", "real": real, "sim": sim}}, "reactions": []}}

    assert vm.summary_stats(flows(1.1, 110.0), "test", False)["within"] == 1
    assert vm.summary_stats(flows(1.2, 110.0), "test", False)["within"] == 0
    assert vm.summary_stats(flows(1.1, 125.0), "test", False)["within"] == 0


def test_the_generated_block_is_replaced_in_place(tmp_path):
    doc = tmp_path / "D.md"
    doc.write_text("a\n<!-- validate_model: s -->\nold\n<!-- end -->\nb\n")
    vm.write_block(doc, "s", "new\n")
    assert doc.read_text() == "a\n<!-- validate_model: s -->\nnew\n<!-- end -->\nb\n"
    assert vm.published_block(doc, "s") == "new\n"
    with pytest.raises(vm.SetError, match="no '<!-- validate_model: t -->' block"):
        vm.write_block(doc, "t", "x")


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.parent.name)
def test_the_stored_real_runs_give_the_published_table(path):
    """The real side from references/, the simulator side rerun: docs/REPRODUCTION.md's
    block is what they give (`judge SET --write docs/REPRODUCTION.md` rewrites it)."""
    rc = vm.main(["judge", str(path), "--check", str(ROOT / "docs" / "REPRODUCTION.md")])
    assert rc == 0


def test_exchangeable_flows_are_compared_by_rank():
    run = {"flows": [{"name": "a", "throughput_mbps": 1.0}, {"name": "b", "throughput_mbps": 2.0},
                     {"name": "d", "throughput_mbps": 0.5}]}
    assert vm._by_rank(run, "a", ("a", "b"))["name"] == "b"  # the leader takes the first name's place
    assert vm._by_rank(run, "b", ("a", "b"))["name"] == "a"
    assert vm._by_rank(run, "d", ("a", "b"))["name"] == "d"
    assert vm._by_rank(run, "a", ())["name"] == "a"
