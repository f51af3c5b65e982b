"""The real Chromium 156 runs the simulator is judged against are kept in the
repository (references/chromium-156, references/README.md), so that the side-by-side
table and the option search rebuild from a fresh clone without a browser:
`tools/real_vs_sim.py --tables-only --refs references/chromium-156` and
`tools/combo_search.py` (whose default they are)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from combo_search import CASES
from tool_support import ROOT, TOOLS

REFS = ROOT / "references" / "chromium-156"
# The same three runs a case pooled with two recorded a day later (references/README.md).
REFS_5 = ROOT / "references" / "chromium-156-5runs"


@pytest.mark.parametrize("refs", [REFS, REFS_5], ids=["3runs", "5runs"])
@pytest.mark.parametrize("case", CASES)
def test_each_case_keeps_three_or_more_chromium_156_runs_of_one_clip(case: str, refs: Path):
    folder = refs / case / "chromium"
    summary = json.loads((folder / "summary.json").read_text())
    runs = summary["per_run"]
    assert len(runs) >= 3
    assert summary["runs"] == len(runs)
    # one test clip (the clip sets the real encoder's frame pattern), one browser
    assert len(set(summary["clips"])) == 1 and summary["clips"][0].endswith(".y4m")
    assert len(summary["browsers"]) == len(runs)
    assert all(b.startswith("Chromium 156.") for b in summary["browsers"])
    # the time series has every run, and each run every flow of the summary
    with open(folder / "timeseries.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    flows = {fl["name"] for fl in runs[0]["flows"]}
    for k in range(len(runs)):
        assert {r["flow"] for r in rows if int(r["run"]) == k} == flows, (case, k)
    assert {int(r["run"]) for r in rows} == set(range(len(runs)))
    # the scenario the runs played
    assert (refs / case / "chromium.toml").exists()


def test_the_table_rebuilds_from_the_kept_references(tmp_path: Path):
    out = tmp_path / "out"
    p = subprocess.run(
        [sys.executable, str(TOOLS / "real_vs_sim.py"), "--tables-only", "--refs", str(REFS), "--out", str(out),
         "--only", "rfc8867-5.1", "--sim-runs", "1", "--preset", "chromium-m156", "--sctp-preset", "dcsctp"],
        capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "rfc8867-5.1" in p.stdout
    results = json.loads(next(out.glob("results*.json")).read_text())
    entry = results["rfc8867-5.1"]["stacks"]["chromium"]
    assert entry["runs"] >= 3 and entry["sim_runs"] == 1
    # the real runs were read from the references, not written to OUT
    assert not (out / "rfc8867-5.1" / "chromium").exists()
    # GCC's trajectory: each event's time for the real and the simulated target and rate
    events = entry["reaction_s"]
    assert set(events) == {"the start", "the rise to 2.5 Mbit/s", "the drop to 0.6 Mbit/s"}
    for t in events.values():
        assert all(t[k] is not None for k in ("real", "real_target", "sim", "sim_target")), t
    drop_row = next(line for line in p.stdout.splitlines() if "after the drop" in line)
    assert drop_row.count("(target: ") == 2, drop_row  # the real and the simulated target


def test_refs_is_only_for_tables_only(tmp_path: Path):
    p = subprocess.run([sys.executable, str(TOOLS / "real_vs_sim.py"), "--refs", str(REFS), "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    assert "--refs: only with --tables-only" in p.stderr
    assert "Traceback" not in p.stderr


def test_the_option_search_reads_the_kept_references_by_default(tmp_path: Path):
    md = tmp_path / "one.md"
    p = subprocess.run([sys.executable, str(TOOLS / "combo_search.py"), "--only", "rfc8867-5.1", "--sim-runs", "1",
                        "--combo", "preset", "--markdown", str(md)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "preset" in md.read_text()


@pytest.mark.parametrize("refs", [REFS, REFS_5], ids=["3runs", "5runs"])
def test_the_own_stack_runs_of_p002_fig11_are_kept_beside_chromiums(refs: Path):
    folder = refs / "p002-fig11" / "flowstate"
    summary = json.loads((folder / "summary.json").read_text())
    assert len(summary["per_run"]) >= 3
    assert [f["kind"] for f in summary["per_run"][0]["flows"]] == ["gcc", "tcp-cubic"]
    assert (refs / "p002-fig11" / "flowstate.toml").exists()


@pytest.mark.parametrize("case", CASES)
def test_the_five_run_pool_starts_with_the_three_kept_runs(case: str):
    """chromium-156-5runs is chromium-156's runs followed by the two later ones: the
    earlier figures stay reproducible from chromium-156, the pool adds to it."""
    three = json.loads((REFS / case / "chromium" / "summary.json").read_text())["per_run"]
    five = json.loads((REFS_5 / case / "chromium" / "summary.json").read_text())["per_run"]
    assert len(five) == 5 and five[:3] == three
