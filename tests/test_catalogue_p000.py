"""Paper 000 catalogue entries (scenarios/p000-*): well-formed, every point runs, and the
issue's must-hold claims hold on the short versions.

The `flowstate reproduce` runner checks entries in full; these tests only need
flowstate.overrides and flowstate.run, so they also guard the entries on their own.
"""

from __future__ import annotations

import itertools
import re
import tomllib
from pathlib import Path

import pytest

import flowstate
from flowstate.overrides import load_toml, with_overrides

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
ENTRIES = sorted(
    p.name for p in SCENARIOS.glob("p000-*") if p.is_dir() and p.name != "p000-table5"
)
POINT_REF = re.compile(r"\{([^{}:]+):([^{}]+)\}")


def entry(eid: str) -> dict:
    with open(SCENARIOS / eid / "experiment.toml", "rb") as f:
        return tomllib.load(f)


def points(exp: dict, short: bool) -> dict[str, dict]:
    """Point name -> scenario dict (variant set, then grid values, then [short] set)."""
    out = {}
    axes = exp.get("grid", [])
    for v in exp["variants"]:
        base = load_toml(SCENARIOS / exp["id"] / v["scenario"])
        for combo in itertools.product(*[a["values"] for a in axes]):
            sets = dict(v.get("set", {}))
            sets.update({a["key"]: x for a, x in zip(axes, combo)})
            if short:
                sets.update(exp.get("short", {}).get("set", {}))
            name = v["name"]
            if axes:
                name += "[" + ",".join(f"{a['name']}={x}" for a, x in zip(axes, combo)) + "]"
            out[name] = with_overrides(base, sets)
    return out


def test_all_paper_000_entries_are_present():
    want = {f"p000-{x}" for x in "fig2 fig3 fig4 fig5 fig6 fig8 fig9 fig10 fig11 fig12 fig13 "
            "fig14 table6 fig18 table7 fig20 fig22".split()}
    assert want <= set(ENTRIES)


@pytest.mark.parametrize("eid", ENTRIES)
def test_entry_is_well_formed(eid):
    exp = entry(eid)
    assert exp["id"] == eid
    assert exp["paper_id"] == "000"
    assert exp["runs"] >= 1 and exp["short"]["runs"] >= 1
    names = set(points(exp, short=False))
    flows = {f["name"] for sc in points(exp, short=False).values() for f in sc["flows"]}
    derived = {d["name"] for d in exp.get("derived", [])}
    assert exp["claims"], "every entry states the paper's claims"
    refs = [r for c in exp["claims"] for r in POINT_REF.findall(c["check"])]
    refs += [(p["point"], p["metric"]) for p in exp.get("paper", [])]
    for point, metric in refs:
        assert point in names, f"{eid}: unknown point {point}"
        head, _, rest = metric.partition(".")
        if head == "flows":
            assert rest.split(".")[0] in flows, f"{eid}: unknown flow in {metric}"
        elif head == "derived":
            assert rest in derived, f"{eid}: unknown derived {metric}"
        else:
            assert head == "aggregate", f"{eid}: bad metric {metric}"
    for d in exp.get("derived", []):
        assert d["args"].get("flow", next(iter(flows))) in flows


@pytest.mark.parametrize("eid", ENTRIES)
def test_every_short_point_runs(eid):
    for name, sc in points(entry(eid), short=True).items():
        s = flowstate.run(sc, seed=1, runs=1).summary
        assert s["aggregate"]["throughput_mbps"] > 0, f"{eid} {name}"


def shares(eid: str, point: str) -> dict[str, float]:
    exp = entry(eid)
    s = flowstate.run(points(exp, short=True)[point], seed=1, runs=exp["short"]["runs"]).summary
    return {f["name"]: f["share"] for f in s["flows"]}


def test_gcc_starved_at_5_but_not_at_10_mbps():
    assert shares("p000-fig3", "together")["gcc"] < 0.1
    assert shares("p000-fig2", "together")["gcc"] >= 0.1


@pytest.mark.parametrize("mechanism", ["fse-ng", "ext-fse-ng", "fsev2"])
def test_table6_and_table7_priority_shares(mechanism):
    s6 = shares("p000-table6", mechanism)
    assert abs(s6["gcc"] - 2 / 3) <= 0.04 and abs(s6["sctp"] - 1 / 3) <= 0.04, s6
    s7 = shares("p000-table7", mechanism)
    assert abs(s7["gcc1"] - 0.375) <= 0.04 and abs(s7["gcc2"] - 0.375) <= 0.04, s7
    assert abs(s7["sctp"] - 0.25) <= 0.04, s7
