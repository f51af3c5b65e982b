"""The CI version of the catalogue: `flowstate reproduce --all --short` over every
entry of scenarios/, and the headline claims of paper 000 Table 5."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from flowstate.catalogue import catalogue
from flowstate.cli import reproduce as reproduce_command

REPO_CATALOGUE = Path(__file__).resolve().parents[1] / "scenarios"


@pytest.fixture(scope="module")
def short_catalogue(tmp_path_factory):
    out = tmp_path_factory.mktemp("catalogue")
    stdout = io.StringIO()
    status = reproduce_command.main(
        [], all_=True, short=True, out=str(out), catalogue_dir=str(REPO_CATALOGUE), stdout=stdout, stderr=io.StringIO()
    )
    assert status == 0, stdout.getvalue()
    return out


def _results(out: Path, exp_id: str) -> dict:
    return json.loads((out / exp_id / "results.json").read_text())


def test_every_entry_reproduces_in_short_form(short_catalogue):
    index = json.loads((short_catalogue / "catalogue.json").read_text())
    assert [e["id"] for e in index["experiments"]] == catalogue.ids(REPO_CATALOGUE)
    for entry in index["experiments"]:
        results = _results(short_catalogue, entry["id"])
        exp = catalogue.load_id(REPO_CATALOGUE, entry["id"])
        assert results["short"] is True and results["runs"] == exp.run_count(short=True)
        assert [p["name"] for p in results["points"]] == exp.point_names()
        for point in results["points"]:
            assert (short_catalogue / entry["id"] / point["dir"] / "summary.json").is_file()
            assert point["summary"]["aggregate"]["throughput_mbps"] > 0
        assert len(results["comparison"]) == len(exp.paper_values)
        assert all(c["status"] in ("holds", "fails", "not evaluated") for c in results["claims"])


def _claim(out: Path, prefix: str) -> dict:
    claims = [c for c in _results(out, "p000-table5")["claims"] if c["text"].startswith(prefix)]
    assert len(claims) == 1, prefix
    return claims[0]


def test_p000_table5_uncoupled_starves_gcc(short_catalogue):
    claim = _claim(short_catalogue, "uncoupled:")
    assert claim["status"] == "holds", claim


@pytest.mark.parametrize("mechanism", ["FSE-NG", "Extended FSE-NG"])
def test_p000_table5_coupling_is_fair_with_low_delay(short_catalogue, mechanism):
    claim = _claim(short_catalogue, f"{mechanism}:")
    assert claim["status"] == "holds", claim


@pytest.mark.xfail(
    strict=False,
    reason="short form (50 s): FSEv2's GCC RTT (~230 ms) is not below 75 % of the uncoupled "
    "case (~300 ms); SCTP's slow-start queue weighs more in 40 s than in the full entry's 110 s, "
    "where the claim holds (202 vs 305 ms); standing queue in docs/ALGORITHMS.md (FSEv2)",
)
def test_p000_table5_fsev2_is_fair_with_low_delay(short_catalogue):
    claim = _claim(short_catalogue, "FSEv2:")
    assert claim["status"] == "holds", claim


def _claim_of(out: Path, exp_id: str, prefix: str) -> dict:
    claims = [c for c in _results(out, exp_id)["claims"] if c["text"].startswith(prefix)]
    assert len(claims) == 1, prefix
    return claims[0]


# The static threshold's claim (GCC starves) is not checked here: it fails in the full
# entry (GCC ~0.5 over 40-150 s with TCP's Linux-like timeouts) while the short form's 80 s
# still sees TCP's early lead; what it depends on is tested in test_tcp_timeout_starvation.
def test_p002_fig11_adaptive_threshold_does_not_starve_gcc(short_catalogue):
    claim = _claim_of(short_catalogue, "p002-fig11", "paper's order: adaptive threshold: GCC is not starved")
    assert claim["status"] == "holds", claim

