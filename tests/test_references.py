"""docs/REFERENCES.md and its use: one list of the five papers and the
RFCs (flowstate.catalogue.references), the doc is its text, `flowstate list` and the report cite
the papers from it instead of bare numbers."""

from __future__ import annotations

import doctest
import subprocess
import sys
from pathlib import Path

from flowstate.catalogue import catalogue
from flowstate.catalogue import references

ROOT = Path(__file__).resolve().parent.parent
RFCS = (8699, 8698, 8298, 6817, 8867, 8868, 8888, 8382, 7983, 8261, 5681, 9438, 4960)


def test_docs_references_is_the_module_text():
    # After changing python/flowstate/catalogue/references.py:
    #   .venv/bin/python -m flowstate.catalogue.references > docs/REFERENCES.md
    assert (ROOT / "docs" / "REFERENCES.md").read_text(encoding="utf-8") == references.markdown()


def test_every_paper_and_rfc_has_authors_title_venue_year():
    assert sorted(references.PAPERS) == ["000", "001", "002", "003", "004"]
    assert sorted(int(k[3:]) for k in references.RFCS) == sorted(RFCS)
    for ref in references.ALL.values():
        assert ref.authors and ref.title and ref.venue and 1990 < ref.year < 2030
    # DOIs as the papers' text gives them.
    assert references.PAPERS["000"].doi == "10.1109/ACCESS.2022.3206041"
    assert references.PAPERS["002"].doi == "10.1145/2910017.2910605"
    papers = ROOT.parent / "shared" / "papers"
    for key, ref in references.PAPERS.items():
        found = sorted(papers.glob(f"{key}_*.txt"))
        if found:  # the paper texts are next to the repository on the project's machines
            text = " ".join(found[0].read_text(encoding="utf-8").split()).lower()
            assert " ".join(ref.title.split()).lower()[:40] in text, key
            if ref.doi:
                assert ref.doi.lower() in text, key


def test_every_catalogue_paper_is_cited():
    for exp in catalogue.load_all(catalogue.find_root(None)):
        assert references.get(exp.paper) is not None, (exp.id, exp.paper)


def test_list_cites_papers_not_numbers():
    result = subprocess.run([sys.executable, "-m", "flowstate", "list"], capture_output=True, text=True,
                            env={"COLUMNS": "250", "PATH": ""})
    assert result.returncode == 0, result.stderr
    assert "Islam et al. 2022 (IEEE Access)" in result.stdout
    assert "RFC 8867 (Sarker et al., 2021)" in result.stdout
    assert "\t000\t" not in result.stdout and "│ 000 " not in result.stdout


def test_module_doctest():
    failures, tried = doctest.testmod(references)
    assert tried >= 2 and failures == 0
