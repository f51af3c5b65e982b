"""`flowstate report DIR` for any output folder and `flowstate compare` (issue 19 item 1):
a run, a --runs batch, a browser-shaped run, a folder of runs and a sweep get the figures
and report.html of a reproduction without the paper's columns; compare draws folders
side by side; a reproduction's comparison figures cover the RTT and delay the paper
gives numbers for."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import flowstate
from flowstate.report import folder_results
from flowstate.report import report
from flowstate.cli import report as report_command
from cli_support import flowstate as flowstate_cli

SCENARIO = {
    "name": "tiny",
    "duration": "4s",
    "link": {"capacity": "1Mbps", "delay": "20ms", "queue": "100ms"},
    "flows": [{"name": "gcc", "kind": "gcc"}, {"name": "sctp", "kind": "sctp", "start": "1s"}],
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two run folders of two runs each: uncoupled and FSEv2."""
    root = tmp_path_factory.mktemp("runs")
    flowstate.run(SCENARIO, runs=2).write(root / "none")
    flowstate.run({**SCENARIO, "coupling": {"mechanism": "fsev2"}}, runs=2).write(root / "fsev2")
    return root


def headings(html: str) -> list[str]:
    import re

    return re.findall(r"<h2>([^<]*)</h2>", html)


def test_report_of_a_run_folder_has_the_figures_and_no_paper_columns(runs, tmp_path):
    folder = shutil.copytree(runs / "none", tmp_path / "run")
    result = flowstate_cli("report", folder)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"wrote {folder / 'report.html'}"
    html = (folder / "report.html").read_text()
    assert headings(html) == ["Set-up", "Figures", "Per-point summary"]
    assert "paper" not in html.lower()
    assert sorted(p.name for p in (folder / "figures").iterdir()) == [
        "1-rate.png", "2-rtt.png", "3-queue.png", "4-rtt_box.png"]
    results = json.loads((folder / "results.json").read_text())
    assert results["source"] == "folder" and results["runs"] == 2
    assert [p["dir"] for p in results["points"]] == ["."]
    assert "priority-weighted Jain index" in html
    # A new run into the same folder: the report follows it (results.json is rebuilt).
    flowstate.run({**SCENARIO, "name": "renamed"}).write(folder)
    assert flowstate_cli("report", folder).returncode == 0
    assert json.loads((folder / "results.json").read_text())["id"] == "renamed"


def test_browser_shaped_folder_is_named_real(runs, tmp_path):
    folder = shutil.copytree(runs / "none", tmp_path / "browser")
    (folder / "run-1").mkdir()
    (folder / "run-1" / "browser.json").write_text("{}")
    doc = folder_results.results_for(folder)
    assert folder_results.folder_kind(folder) == "browser"
    assert doc["reference"].startswith("real run") and doc["points"][0]["label"] == "real"
    assert report_command.build(folder).is_file()


def test_folder_of_runs_and_sweep_folder(runs, tmp_path):
    doc = folder_results.results_for(runs)
    assert [p["name"] for p in doc["points"]] == ["fsev2", "none"]
    assert {f["kind"] for f in doc["figures"]} == {"rate", "rtt", "queue", "rtt_box", "bar"}
    sweep_out = tmp_path / "sweep"
    scenario = tmp_path / "s.toml"
    scenario.write_text(
        'name = "tiny"\nduration = "3s"\n[link]\ncapacity = "1Mbps"\ndelay = "20ms"\nqueue = "100ms"\n'
        '[[flows]]\nname = "gcc"\nkind = "gcc"\n'
    )
    result = flowstate_cli("sweep", scenario, "--set", "link.capacity=1Mbps,2Mbps", "--seeds", "1-2",
                           "--out", sweep_out, "--workers", "1")
    assert result.returncode == 0, result.stderr
    result = flowstate_cli("report", sweep_out)
    assert result.returncode == 0, result.stderr
    results = json.loads((sweep_out / "results.json").read_text())
    assert len(results["points"]) == 2 and results["points"][0]["summary"]["runs"] == 2
    assert any(f["kind"] == "sweep" for f in results["figures"])
    assert "Side by side" in headings((sweep_out / "report.html").read_text())


def test_compare_writes_side_by_side_table_and_overlaid_figures(runs, tmp_path):
    out = tmp_path / "cmp"
    result = flowstate_cli("compare", runs / "none", runs / "fsev2", "--out", out)
    assert result.returncode == 0, result.stderr
    assert "side by side" in result.stdout and "priority-weighted Jain index" in result.stdout
    assert result.stdout.rstrip().endswith(f"report: {out / 'report.html'}")
    results = json.loads((out / "results.json").read_text())
    assert [p["name"] for p in results["points"]] == ["none", "fsev2"]
    assert all((out / p["dir"] / "timeseries.csv").is_file() for p in results["points"])  # relative to out
    assert [f for f in results["figures"] if f["kind"] == "rate"][0]["overlay"] is True
    html = (out / "report.html").read_text()
    assert headings(html) == ["Set-up", "Side by side", "Figures", "Per-point summary"]
    assert len(list((out / "figures").glob("*-bar.png"))) == 5
    # One folder is not a comparison; a missing one is a one-line error.
    for args in ([runs / "none"], [runs / "none", tmp_path / "missing"]):
        bad = flowstate_cli("compare", *args, "--out", tmp_path / "x")
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def test_report_of_an_empty_folder_names_what_it_looks_for(tmp_path):
    result = flowstate_cli("report", tmp_path)
    assert result.returncode == 2
    assert "summary.json" in result.stderr and result.stderr.count("\n") == 1


def test_paper_rtt_and_delay_numbers_get_a_comparison_figure():
    results = {
        "figures": [{"kind": "bar", "metrics": ["flows.gcc.throughput_mbps"]}],
        "comparison": [
            {"point": "a", "metric": "flows.gcc.throughput_mbps", "paper": 1.0},
            {"point": "a", "metric": "flows.gcc.rtt_ms.mean", "paper": 100.0},
            {"point": "b", "metric": "flows.gcc.rtt_ms.mean", "paper": 110.0},
            {"point": "a", "metric": "flows.gcc.queuing_delay_ms.p95", "paper": 20.0},
            {"point": "a", "metric": "flows.sctp.rtt_ms.mean", "paper": None},
        ],
    }
    report.add_paper_delay_figure(results)
    assert results["figures"][-1] == {
        "kind": "bar", "metrics": ["flows.gcc.rtt_ms.mean", "flows.gcc.queuing_delay_ms.p95"],
        "title": report.DELAY_FIGURE_TITLE,
    }
    report.add_paper_delay_figure(results)  # idempotent
    assert len(results["figures"]) == 2
