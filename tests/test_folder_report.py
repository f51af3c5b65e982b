"""`flowstate report DIR` for any output folder and `flowstate compare`:
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
        "1-rate.png", "2-rtt.png", "3-queue.png", "4-rtt_box.png", "5-frames.png"]
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
    # throughput, share, RTT, queuing delay, aggregate; the video's frame rate, freezes,
    # frame delay; the frames figure over time
    assert len(list((out / "figures").glob("*-bar.png"))) == 8
    assert len(list((out / "figures").glob("*-frames.png"))) == 1
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


# ---------------------------------------------------------------- provenance, groups, one run


def _with_provenance(folder: Path, *, sets: list[str], mechanism: str = "fsev2", groups: bool = True,
                     warnings: tuple[str, ...] = ()) -> Path:
    """Adds what newer versions write to a run folder: manifest.json (mechanism, --set
    values) and summary.json's per-flow ``group``, ``coupling`` and ``warnings``."""
    (folder / "manifest.json").write_text(json.dumps({
        "flowstate_version": "0", "git_commit": None, "command": ["flowstate", "run"], "kind": "run",
        "status": "complete", "seeds": [1, 2], "sets": sets, "unsets": [], "scenario": {},
        "coupling": {"mechanism": mechanism, "groups": {"gcc": "g1", "sctp": "g1"}},
    }))
    summary = json.loads((folder / "summary.json").read_text())
    if groups:
        for flow in summary["flows"]:
            flow["group"] = "g1" if flow["name"] == "gcc" else None
        summary["coupling"] = {"mechanism": mechanism, "groups_mode": "static"}
    summary["warnings"] = list(warnings)
    (folder / "summary.json").write_text(json.dumps(summary))
    return folder


def test_compare_labels_each_folder_from_its_manifest(runs, tmp_path):
    two = _with_provenance(shutil.copytree(runs / "fsev2", tmp_path / "two"),
                           sets=["duration=4s", "link.capacity=2Mbps"])
    four = _with_provenance(shutil.copytree(runs / "fsev2", tmp_path / "four"),
                            sets=["duration=4s", "link.capacity=1Mbps", "link.capacity=4Mbps"])
    old = shutil.copytree(runs / "none", tmp_path / "old")  # written before manifests
    out = tmp_path / "cmp"
    result = flowstate_cli("compare", two, four, old, "--out", out)
    assert result.returncode == 0, result.stderr
    labels = ["fsev2, link.capacity=2Mbps", "fsev2, link.capacity=4Mbps", "old"]
    results = json.loads((out / "results.json").read_text())
    assert [p["name"] for p in results["points"]] == labels
    html = (out / "report.html").read_text()
    assert all(f'<th scope="col" class=num>{label}</th>' in html for label in labels)
    header = [line for line in result.stdout.splitlines() if "flow" in line and "metric" in line][0]
    assert "link.capacity=2Mbps" in result.stdout and "link.capacity=4Mbps" in result.stdout, header


def test_provenance_labels_fall_back_to_the_folder_name():
    folders = [Path("/x/a"), Path("/x/b"), Path("/x/c")]
    same = {"sets": ["duration=4s"], "coupling": {"mechanism": "fsev2"}}
    assert folder_results.provenance_labels(folders, [None, None, None]) == ["a", "b", "c"]
    # The same mechanism and --set values: the label gets the folder's name.
    assert folder_results.provenance_labels(folders, [same, same, None]) == ["fsev2 (a)", "fsev2 (b)", "c"]
    # A mechanism chosen with --set is the mechanism, not a difference.
    by_set = [{"sets": ["coupling.mechanism=none"]}, {"sets": ["coupling.mechanism=fsev2"]}]
    assert folder_results.provenance_labels(folders[:2], by_set) == ["none", "fsev2"]


def test_report_and_compare_show_groups_mechanism_and_warnings(runs, tmp_path):
    folder = _with_provenance(shutil.copytree(runs / "fsev2", tmp_path / "run"), sets=[],
                              warnings=("link.delay: a one-way delay of 1.5 s is over 1 s",))
    assert flowstate_cli("report", folder).returncode == 0
    html = (folder / "report.html").read_text()
    assert '<aside class="warnings"' in html and "a one-way delay of 1.5 s is over 1 s" in html
    assert '<th scope="col">coupling group</th>' in html
    assert '<span class="kind">(gcc)</span></span></td><td>g1</td>' in html
    assert '<span class="kind">(sctp)</span></span></td><td>not coupled</td>' in html
    assert "<td>fsev2 (groups: static)</td>" in html
    result = flowstate_cli("compare", folder, runs / "none", "--out", tmp_path / "cmp")
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if "coupling" in line]
    assert any("coupling group" in r and "g1" in r for r in rows)
    assert any("not coupled" in r for r in rows)
    assert any("fsev2 (groups: static)" in r for r in rows)
    # Older folders (no groups, no mechanism, no warnings): no such column, row or box.
    plain = shutil.copytree(runs / "none", tmp_path / "plain")
    summary = json.loads((plain / "summary.json").read_text())
    for key in ("coupling", "warnings"):
        summary.pop(key, None)
    for flow in summary["flows"]:
        flow.pop("group", None)
    (plain / "summary.json").write_text(json.dumps(summary))
    assert flowstate_cli("report", plain).returncode == 0
    text = (plain / "report.html").read_text()
    assert "coupling group" not in text and 'class="warnings"' not in text


def test_a_single_run_shows_its_values_without_plus_minus(tmp_path):
    one = tmp_path / "one"
    flowstate.run(SCENARIO, runs=1).write(one)
    assert flowstate_cli("report", one).returncode == 0
    html = (one / "report.html").read_text()
    body = html.split('<section id="summary">')[1]
    assert "<td class=num>" in body and "±" not in body.split("</p>", 1)[1]
    assert '<th scope="row">seeds</th><td>1</td>' in html
    three = tmp_path / "three"
    flowstate.run(SCENARIO, runs=3).write(three)
    result = flowstate_cli("compare", one, three, "--out", tmp_path / "cmp")
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if "throughput (Mbit/s)" in line]
    cells = [[c.strip() for c in row.split("│")[3:5]] for row in rows]
    assert cells and all("±" not in a and "±" in b for a, b in cells), cells
    side = (tmp_path / "cmp" / "report.html").read_text().split('<section id="side-by-side">')[1]
    throughput = [row for row in side.split("</tr>") if "<td>throughput (Mbit/s)</td>" in row]
    assert throughput and all(row.count("±") == 1 for row in throughput)


def test_a_page_title_names_the_folder_once(runs, tmp_path):
    folder = shutil.copytree(runs / "none", tmp_path / "run")
    assert flowstate_cli("report", folder).returncode == 0
    html = (folder / "report.html").read_text()
    assert "<h1>tiny</h1>" in html and "<title>tiny</title>" in html


def test_a_folder_of_runs_labels_each_run_from_its_manifest(runs, tmp_path):
    root = tmp_path / "batch"
    _with_provenance(shutil.copytree(runs / "fsev2", root / "a"), sets=["link.capacity=1Mbps"], groups=False)
    _with_provenance(shutil.copytree(runs / "none", root / "b"), sets=["link.capacity=2Mbps"], mechanism="none",
                     groups=False)
    doc = folder_results.results_for(root)
    assert [(p["name"], p["label"]) for p in doc["points"]] == [
        ("a", "fsev2, link.capacity=1Mbps"), ("b", "none, link.capacity=2Mbps")]
