"""The RMCAT catalogue entries: every RFC 8867 case (5.1-5.8) with GCC, NADA
and SCReAM as points on the same network, and the coupled NADA / LEDBAT entries.

The entries parse and validate; each case has every controller, each controller's
points run exactly the GCC point's scenario except for the media flows' controller; the
claims name every controller; and on the short versions some claims hold per
controller (a scenario test)."""

from __future__ import annotations

import copy
import io
from pathlib import Path
from typing import Any

import pytest
import rmcat_table

from flowstate.catalogue import catalogue, reproduce
from flowstate.overrides import load_toml

ROOT = Path(__file__).resolve().parents[1]
REPO_CATALOGUE = ROOT / "scenarios"
CASES = [f"rfc8867-5.{i}" for i in range(1, 9)]
MEDIA = {"gcc": "GCC", "nada": "NADA", "scream": "SCReAM"}
COUPLED = ["p003-nada-prio", "p000-table5-nada", "p003-ledbat"]


def _controller(point: catalogue.Point) -> str:
    kinds = {f["kind"] for f in point.scenario["flows"] if f["kind"] in MEDIA}
    assert len(kinds) == 1, f"{point.name}: media flows of several controllers {kinds}"
    return kinds.pop()


def _without_controller(scenario: dict[str, Any]) -> dict[str, Any]:
    """The scenario with its name and the media flows' controller (kind, preset,
    overrides) left out: what must be equal across a case's controllers."""
    s = copy.deepcopy(scenario)
    s.pop("name", None)
    for f in s["flows"]:
        if f["kind"] in MEDIA:
            for key in ("kind", "preset", "overrides"):
                f.pop(key, None)
    return s


def test_every_case_and_coupled_entry_is_in_the_catalogue():
    ids = catalogue.ids(REPO_CATALOGUE)
    assert set(CASES + COUPLED) <= set(ids)


@pytest.mark.parametrize("case", CASES)
def test_each_case_has_gcc_nada_and_scream_on_the_same_network(case):
    exp = catalogue.load_id(REPO_CATALOGUE, case)
    for short in (False, True):
        points = {p.name: p for p in exp.points(short=short)}
        by_controller: dict[str, list[str]] = {}
        for p in points.values():
            by_controller.setdefault(_controller(p), []).append(p.name)
        assert set(by_controller) == set(MEDIA), f"{case}: controllers {sorted(by_controller)}"
        # As many points per controller (5.6: two queue sizes each).
        assert len({len(v) for v in by_controller.values()}) == 1, by_controller
        for kind in ("nada", "scream"):
            for name in by_controller[kind]:
                # The GCC counterpart keeps its old name (`v`, or `q300` for `nada-q300`)
                # so its results stay comparable with earlier runs.
                twin = name.removeprefix(f"{kind}-") if name.startswith(f"{kind}-") else "v"
                assert twin in by_controller["gcc"], f"{case}: no GCC point {twin} for {name}"
                assert _without_controller(points[name].scenario) == _without_controller(
                    points[twin].scenario
                ), f"{case}: {name} differs from {twin} in more than the media controller"


@pytest.mark.parametrize("case", CASES)
def test_each_case_states_its_claims_for_every_controller(case):
    exp = catalogue.load_id(REPO_CATALOGUE, case)
    texts = [c.text for c in exp.claims]
    per = {label: [t for t in texts if t.startswith(label + ":")] for label in MEDIA.values()}
    assert all(per.values()), f"{case}: a controller without claims: {per}"
    # The same expectations for each controller.
    stripped = {label: [t.split(":", 1)[1] for t in ts] for label, ts in per.items()}
    assert stripped["GCC"] == stripped["NADA"] == stripped["SCReAM"]


def test_table5_nada_is_table5_with_nada_as_the_media_flow():
    gcc = load_toml(REPO_CATALOGUE / "p000-table5" / "base.toml")
    nada = load_toml(REPO_CATALOGUE / "p000-table5-nada" / "nada.toml")
    assert [f["kind"] for f in nada["flows"]] == ["nada", "sctp"]
    for s in (gcc, nada):
        s["flows"][0].pop("name")
    assert _without_controller(nada) == _without_controller(gcc)


@pytest.mark.parametrize("exp_id", COUPLED)
def test_coupled_entries_load_with_their_mechanisms(exp_id):
    exp = catalogue.load_id(REPO_CATALOGUE, exp_id)
    mechanisms = {p.scenario["coupling"]["mechanism"] for p in exp.points()}
    assert "none" in mechanisms and len(mechanisms) >= 3, mechanisms
    kinds = {f["kind"] for p in exp.points() for f in p.scenario["flows"]}
    assert kinds & {"nada", "ledbat"}, kinds


# --- a scenario test: the short versions, claims per controller ----------------------


@pytest.fixture(scope="module")
def case_5_1(tmp_path_factory):
    exp = catalogue.load_id(REPO_CATALOGUE, "rfc8867-5.1")
    return reproduce.reproduce(exp, short=True, out=tmp_path_factory.mktemp("rfc8867-5.1"))


def _status(results: dict[str, Any], text: str) -> str:
    claims = [c for c in results["claims"] if c["text"] == text]
    assert len(claims) == 1, text
    return claims[0]["status"]


@pytest.mark.parametrize("controller", list(MEDIA.values()))
def test_5_1_every_controller_follows_the_capacity_without_a_standing_queue(case_5_1, controller):
    for claim in (
        "follows 1 Mbit/s: mean rate 20-40 s in 0.6 .. 1.05 Mbit/s",
        "uses the higher capacity: mean rate 45-60 s above the 20-40 s rate",
        "no standing queue: queuing p50 < 100 ms",
    ):
        assert _status(case_5_1, f"{controller}: {claim}") == "holds", (controller, claim)


def test_the_rfc8868_table_has_a_row_per_controller(case_5_1, tmp_path):
    import json

    (tmp_path / "rfc8867-5.1").mkdir()
    (tmp_path / "rfc8867-5.1" / "results.json").write_text(json.dumps(case_5_1))
    text = rmcat_table.table(tmp_path)
    rows = [line for line in text.splitlines() if line.startswith("| 5.1 |")]
    assert [r.split(" | ")[1] for r in rows] == ["GCC (chromium)", "NADA", "SCReAM"]
    # Every RFC 8868 column has a value (one-way delay and jitter included).
    assert all("| - |" not in r for r in rows), rows
    assert io.StringIO(text).readline().startswith("| case | point |")
