"""docs/REPRODUCTION.md's generated tables against the catalogue, without simulating: every
entry has its block under its own heading, every claim its row and every row a claim, and
the contents lists every entry once. The generator itself
(``flowstate.catalogue.reproduction_doc``) rewrites only its blocks, from a results folder
made here by hand."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from flowstate.catalogue import catalogue
from flowstate.catalogue import reproduction_doc as doc

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "REPRODUCTION.md"


@pytest.fixture(scope="module")
def entries() -> list[catalogue.Experiment]:
    return catalogue.load_all(catalogue.find_root(ROOT / "scenarios"))


@pytest.fixture(scope="module")
def text() -> str:
    return DOC.read_text(encoding="utf-8")


def _claim(text: str) -> str:
    return " ".join(text.split())


def test_every_entry_has_one_block_and_every_block_an_entry(entries, text):
    names = list(doc.blocks(text))
    ids = {e.id for e in entries}
    assert sorted(n for n in names if n != doc.CONTENTS) == sorted(ids), (
        "entries without a block: "
        f"{sorted(ids - set(names))}; blocks without an entry: {sorted(set(names) - ids - {doc.CONTENTS})}"
    )
    assert doc.CONTENTS in names


def test_every_claim_has_a_row_and_every_row_a_claim(entries, text):
    blocks = doc.blocks(text)
    problems = []
    for exp in entries:
        rows = [row[0] for row in doc.table_rows(blocks.get(exp.id, ""))]
        claims = [_claim(c.text) for c in exp.claims]
        problems += [f"{exp.id}: no row for the claim {c!r}" for c in claims if c not in rows]
        problems += [f"{exp.id}: a row without a claim: {r!r}" for r in rows if r not in claims]
        if not problems and rows != claims:
            problems.append(f"{exp.id}: the rows are not in the catalogue's order")
    assert not problems, "\n".join(problems) + (
        "\nregenerate: flowstate reproduce --all --out RESULTS; "
        "python -m flowstate.catalogue.reproduction_doc RESULTS --write docs/REPRODUCTION.md"
    )


def test_contents_lists_every_entry_once_with_its_claim_count(entries, text):
    rows = doc.table_rows(doc.blocks(text)[doc.CONTENTS])
    listed = [re.fullmatch(r"\[(.+)\]\(#.+\)", row[0]) for row in rows[:-1]]
    assert all(listed), rows
    ids = [m.group(1) for m in listed]
    assert sorted(ids) == sorted(e.id for e in entries)
    counts = {e.id: len(e.claims) for e in entries}
    for exp_id, row in zip(ids, rows):
        assert row[2].endswith(f" {counts[exp_id]}"), (exp_id, row)
    assert rows[-1][2].endswith(f" of {sum(counts.values())}")


def test_each_block_sits_under_its_entry_heading(entries, text):
    for exp in entries:
        start = text.index(f"<!-- generated: {exp.id} -->")
        heading = re.findall(r"^#+ (.+)$", text[:start], re.M)[-1]
        assert heading == exp.id, (exp.id, heading)


# --- the generator, on results made by hand ----------------------------------------


def _results(exp_id: str, claims: list[dict], runs: int = 3) -> dict:
    return {
        "id": exp_id,
        "title": f"{exp_id}'s title",
        "runs": runs,
        "short": False,
        "points": [
            {
                "name": "a",
                "summary": {
                    "aggregate": {"jain_index": 0.9, "spread": {"jain_index": {"min": 0.85, "max": 0.95}}},
                    "flows": [{"name": "gcc", "rtt_ms": {"mean": 120.0}, "spread": {"rtt_ms": {"mean": {"min": 110.0, "max": 131.0}}}}],
                },
                "derived": {},
            }
        ],
        "comparison": [{"point": "a", "metric": "flows.gcc.rtt_ms.mean", "label": "GCC RTT (ms)", "paper": 115.0}],
        "claims": claims,
    }


def _claim_result(text: str, status: str, refs: dict, paper: list | None = None, off: bool = False) -> dict:
    return {"text": text, "status": status, "values": refs, "paper_values": paper or [],
            "relative_difference": 0.5 if off else None, "value_off": off}


def _write(folder: Path, results: dict) -> None:
    (folder / results["id"]).mkdir(parents=True)
    (folder / results["id"] / "results.json").write_text(json.dumps(results), encoding="utf-8")


def _source() -> str:
    return "\n".join([
        "# Doc", "", "Prose before.", "", "<!-- generated: contents -->", "stale", "<!-- end -->", "",
        "### x1", "", "Prose of x1.", "", "<!-- generated: x1 -->", "<!-- end -->", "", "Rerun: x1.", "",
    ])


def test_regenerate_rewrites_the_blocks_and_keeps_the_prose(tmp_path):
    results = tmp_path / "results"
    _write(results, _results("x1", [
        _claim_result("fair: Jain >= 0.8", "holds", {"{a:aggregate.jain_index}": 0.9}),
        _claim_result("low RTT | below 100 ms", "fails", {"{a:flows.gcc.rtt_ms.mean}": 120.0},
                      paper=[{"ref": "{a:flows.gcc.rtt_ms.mean}", "paper": 115.0}], off=True),
    ]))
    path = tmp_path / "DOC.md"
    path.write_text(_source(), encoding="utf-8")
    assert doc.main([str(results), "--check", str(path)]) == 1
    assert doc.main([str(results), "--write", str(path)]) == 0
    new = path.read_text(encoding="utf-8")
    for prose in ("Prose before.", "### x1", "Prose of x1.", "Rerun: x1."):
        assert prose in new
    rows = doc.table_rows(doc.blocks(new)["x1"])
    assert rows == [
        ["fair: Jain >= 0.8", "-", "Jain index 0.900 (0.850-0.950)", "holds"],
        ["low RTT | below 100 ms", "GCC RTT 115 ms", "gcc RTT mean 120 ms (110-131)", "**fails, value off by +50 %**"],
    ]
    assert doc.table_rows(doc.blocks(new)["contents"]) == [
        ["[x1](#x1)", "x1's title", "**1** of 2", "3"],
        ["all entries", "1 entries", "1 of 2", ""],
    ]
    assert doc.main([str(results), "--check", str(path)]) == 0  # the same folder gives the same text
    assert doc.regenerate(new, doc.load_results(results)) == new


def test_an_entry_without_a_block_or_a_block_without_results_is_an_error(tmp_path, capsys):
    results = tmp_path / "results"
    _write(results, _results("x1", []))
    _write(results, _results("x2", []))
    path = tmp_path / "DOC.md"
    path.write_text(_source(), encoding="utf-8")
    assert doc.main([str(results), "--write", str(path)]) == 2
    assert "no block for x2" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == _source()
    path.write_text(_source() + "<!-- generated: x3 -->\n<!-- end -->\n", encoding="utf-8")
    with pytest.raises(doc.DocError, match="no results for the blocks x3"):
        doc.regenerate(path.read_text(encoding="utf-8"), doc.load_results(results))


def test_short_results_are_refused(tmp_path):
    results = tmp_path / "results"
    _write(results, {**_results("x1", []), "short": True})
    with pytest.raises(doc.DocError, match="--short"):
        doc.load_results(results)


def test_numbers_and_anchors():
    assert [doc.number(v) for v in (305.4, 13.14, 1.451, 0.3821, 0.00214, 0.0)] == ["305", "13.1", "1.45", "0.382", "0.0021", "0.000"]
    assert doc.spread(-1.45, -1.43) == " (-1.45 to -1.43)" and doc.spread(2.0, 2.0) == ""
    assert doc.anchor("rfc8867-5.1") == "rfc8867-51" and doc.anchor("p000-table5") == "p000-table5"
