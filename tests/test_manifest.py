"""manifest.json in every output folder, and the output folder's claim: a non-empty
folder is refused unless --force (which empties it) or --resume (reproduce, sweep);
Ctrl-C leaves an "interrupted" manifest and names the command that completes the rest."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from catalogue_support import make_catalogue
from cli_support import assert_one_line_error, flowstate

from flowstate import manifest
from flowstate.catalogue import reproduce
from flowstate.cli.main import main
from flowstate.errors import UsageError
from flowstate.output_folder import Claim, claim, incomplete

SCENARIO = """\
name = "manifest test"
duration = "2s"
[link]
capacity = "2Mbps"
delay = "20ms"
queue = "100ms"
[coupling]
mechanism = "fsev2"
[[flows]]
name = "video"
kind = "gcc"
group = "call"
[[flows]]
name = "bulk"
kind = "cbr"
overrides = { rate = "500kbps" }
"""

ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


@pytest.fixture
def scenario_file(tmp_path: Path) -> Path:
    path = tmp_path / "m.toml"
    path.write_text(SCENARIO)
    return path


def _manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def _assert_finished(doc: dict, kind: str) -> None:
    from flowstate import __version__

    assert doc["kind"] == kind and doc["status"] == "complete"
    assert doc["flowstate_version"] == __version__
    assert doc["git_commit"] is None or re.fullmatch(r"[0-9a-f]{40}", doc["git_commit"])
    assert ISO_UTC.match(doc["started_at"]) and ISO_UTC.match(doc["finished_at"])
    assert doc["started_at"] <= doc["finished_at"]
    assert {"python", "os", "machine", "cpu_count"} <= set(doc["platform"])
    assert doc["command"][0] == "flowstate" and doc["command"][1] == kind.split("-")[0]


# ---------------------------------------------------------------- content


def test_a_run_records_the_scenario_after_set_the_seeds_and_the_coupling(scenario_file, tmp_path):
    out = tmp_path / "o"
    r = flowstate("run", scenario_file, "--seed", 4, "--set", "link.capacity=3Mbps", "--out", out)
    assert r.returncode == 0, r.stderr
    doc = _manifest(out)
    _assert_finished(doc, "run")
    assert doc["command"] == ["flowstate", "run", str(scenario_file), "--seed", "4", "--set", "link.capacity=3Mbps",
                              "--out", str(out)]  # fmt: skip
    assert doc["seeds"] == [4] and doc["sets"] == ["link.capacity=3Mbps"] and doc["unsets"] == []
    assert doc["scenario"]["link"]["capacity"] == "3Mbps" and doc["scenario"]["name"] == "manifest test"
    assert doc["coupling"] == {"mechanism": "fsev2", "groups_mode": "static", "groups": {"video": "call", "bulk": None}}


def test_a_batch_records_every_seed(scenario_file, tmp_path):
    out = tmp_path / "o"
    assert flowstate("run", scenario_file, "--runs", 3, "--seed", 7, "--out", out).returncode == 0
    doc = _manifest(out)
    _assert_finished(doc, "run")
    assert doc["seeds"] == json.loads((out / "summary.json").read_text())["seeds"] == [7, 8, 9]


def test_a_scenario_without_coupling_is_uncoupled():
    doc = manifest.coupling_of({"flows": [{"name": "a"}, {"name": "b", "group": 2, "count": 2}]})
    assert doc == {"mechanism": "none", "groups": {"a": None, "b1": "2", "b2": "2"}}


def test_a_reproduction_entry_records_each_point(tmp_path):
    root = make_catalogue(tmp_path / "cat")
    out = tmp_path / "o"
    r = flowstate("reproduce", "tiny", "--runs", 2, "--seed", 5, "--catalogue", root, "--out", out, "--no-report")
    assert r.returncode == 0, r.stderr
    doc = _manifest(out)
    _assert_finished(doc, "reproduce")
    assert doc["seeds"] == [5, 6]
    assert set(doc["scenario"]) == {"plain", "heavy"}
    assert doc["scenario"]["heavy"]["flows"][1]["overrides"]["rate"] == "600kbps"
    assert doc["scenario"]["plain"]["flows"][1]["overrides"]["rate"] == "300kbps"
    assert doc["coupling"]["mechanism"] == "none" and doc["coupling"]["groups"] == {"gcc": "call", "bg": None}


def test_a_sweep_and_each_of_its_points_record_what_made_them(tmp_path, scenario_file):
    out = tmp_path / "s"
    r = flowstate("sweep", scenario_file, "--set", "link.capacity=1Mbps,3Mbps", "--seeds", "1-2", "--out", out,
                  "--workers", 1, "--no-plots")  # fmt: skip
    assert r.returncode == 0, r.stderr
    doc = _manifest(out)
    _assert_finished(doc, "sweep")
    assert doc["sets"] == ["link.capacity=1Mbps,3Mbps"] and doc["seeds"] == [1, 2]
    points = [json.loads(p.read_text()) for p in sorted((out / "points").glob("*.json"))]
    assert len(points) == 4
    for point in points:
        m = point["manifest"]
        _assert_finished(m, "sweep-point")
        assert m["seeds"] == [point["seed"]] and m["scenario"] == point["scenario"]
        assert m["sets"] == [f"link.capacity={point['scenario']['link']['capacity']}"]
        assert m["coupling"]["mechanism"] == "fsev2"
    assert {p["manifest"]["sets"][0] for p in points} == {"link.capacity=1Mbps", "link.capacity=3Mbps"}


def test_the_git_commit_is_null_without_git(monkeypatch):
    import subprocess

    def no_git(*args, **kwargs):
        raise FileNotFoundError("git")

    manifest.source_revision.cache_clear()
    monkeypatch.setattr(subprocess, "run", no_git)
    try:
        assert manifest.source_revision() == (None, None)
    finally:
        manifest.source_revision.cache_clear()


# ---------------------------------------------------------------- the output folder


def test_a_second_run_into_the_same_folder_is_refused(scenario_file, tmp_path):
    assert flowstate("run", scenario_file, cwd=tmp_path).returncode == 0
    r = flowstate("run", scenario_file, cwd=tmp_path)
    assert_one_line_error(
        r, "out/manifest_test already holds a previous run's outputs: pass --force to replace them, or --out another"
    )


def test_force_clears_what_the_earlier_run_left(scenario_file, tmp_path):
    out = tmp_path / "o"
    assert flowstate("run", scenario_file, "--out", out).returncode == 0
    (out / "report.html").write_text("<p>video 0.136 Mbit/s</p>")
    (out / "figures").mkdir()
    (out / "figures" / "old-figure.png").write_bytes(b"png")
    (out / "results.json").write_text("{}")
    r = flowstate("run", scenario_file, "--out", out, "--force")
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["links.csv", "manifest.json", "summary.json", "timeseries.csv"]
    assert _manifest(out)["status"] == "complete"


def test_force_deletes_nothing_in_a_folder_flowstate_did_not_write(scenario_file, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("x")
    r = flowstate("run", scenario_file, "--out", mine, "--force")
    assert_one_line_error(r, "holds files flowstate did not write")
    assert (mine / "thesis.tex").exists()


def test_claim_of_each_kind_of_folder(tmp_path, monkeypatch):
    # testbed and browser claim their folders with this function (they need real time).
    monkeypatch.chdir(tmp_path)
    assert claim(tmp_path / "new") is Claim.NEW
    (tmp_path / "empty").mkdir()
    assert claim(tmp_path / "empty") is Claim.NEW
    old = tmp_path / "old"
    old.mkdir()
    (old / "summary.json").write_text("{}")
    with pytest.raises(UsageError, match=r"old already holds a previous run's outputs: pass --force"):
        claim(old)
    with pytest.raises(UsageError, match=r"--resume to finish them"):
        claim(old, resumable=True)
    with pytest.raises(UsageError, match="give one"):
        claim(old, force=True, resume=True, resumable=True)
    assert claim(old, resume=True, resumable=True) is Claim.RESUMED and (old / "summary.json").exists()
    assert claim(old, force=True) is Claim.REPLACED and not any(old.iterdir())
    with pytest.raises(UsageError, match="working folder"):
        (tmp_path / "summary.json").write_text("{}")
        claim(Path("."), force=True)


def test_a_failed_start_leaves_no_folder(tmp_path, monkeypatch):
    folder = tmp_path / "f"
    with pytest.raises(RuntimeError):
        with manifest.recording(folder / "g", kind="run", command=["flowstate"], seeds=[1], scenario={}):
            raise RuntimeError("bad input found once the work began")
    assert not folder.exists()
    # A manifest saying "failed" and nothing else (a killed process) is not worth keeping either.
    folder.mkdir()
    manifest.write(folder, manifest.document(kind="run", command=["x"], seeds=[1], scenario={}, status="failed"))
    assert claim(folder) is Claim.NEW and not any(folder.iterdir())


# ---------------------------------------------------------------- reproduce: Ctrl-C and --resume


def _reproduce(root: Path, out: Path, *extra: str) -> int:
    return main(["reproduce", "tiny", "--runs", "1", "--catalogue", str(root), "--out", str(out), *extra])


def test_an_interrupted_reproduction_says_how_to_complete_it_and_resume_finishes(tmp_path, monkeypatch, capsys):
    root = make_catalogue(tmp_path / "cat")
    out = tmp_path / "o"

    def ctrl_c(folder):
        raise KeyboardInterrupt

    monkeypatch.setattr(reproduce, "build_report", ctrl_c)  # Ctrl-C once the results are written
    assert _reproduce(root, out) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    resume = f"flowstate reproduce tiny --out {out} --runs 1 --catalogue {root} --resume"
    assert err[0] == (
        f"flowstate: interrupted (no entry finished; not finished: tiny); to complete it: {resume} "
        f"(or, for its report only, flowstate report {out})"
    )
    assert _manifest(out)["status"] == "interrupted" and _manifest(out)["finished_at"] is None
    assert (out / "results.json").is_file() and not (out / "report.html").exists()

    monkeypatch.undo()
    assert _reproduce(root, out) == 2  # neither --force nor --resume
    assert "--resume to finish them" in capsys.readouterr().err

    def no_runs(*args, **kwargs):
        raise AssertionError("--resume reran an entry whose results are written")

    monkeypatch.setattr(reproduce, "start", no_runs)
    assert _reproduce(root, out, "--resume") == 0
    assert _manifest(out)["status"] == "complete" and (out / "report.html").is_file()
    # A complete entry: --resume prints it again from its results, --force reruns it.
    assert _reproduce(root, out, "--resume") == 0
    captured = capsys.readouterr()
    assert f"tiny: already complete in {out} (--force reruns it)" in captured.err and "HOLDS" in captured.out
    monkeypatch.undo()
    stale = out / "figures" / "stale.png"
    stale.write_bytes(b"png")
    assert _reproduce(root, out, "--force") == 0 and not stale.exists()


def test_a_reproduction_cut_short_before_its_results_reruns_on_resume(tmp_path, monkeypatch, capsys):
    root = make_catalogue(tmp_path / "cat")
    out = tmp_path / "o"

    def ctrl_c(self, progress=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(reproduce.PendingRuns, "collect", ctrl_c)
    assert _reproduce(root, out) == 130
    err = capsys.readouterr().err
    assert "to complete it: flowstate reproduce tiny" in err and "flowstate report" not in err
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json"]
    assert _manifest(out)["status"] == "interrupted"
    # flowstate report on it: one line naming what is missing and how to complete it.
    assert main(["report", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"flowstate: error: {out} is incomplete (its reproduce is interrupted)")
    assert "no results.json" in err[0] and err[0].endswith("--resume")
    assert incomplete(out) is not None
    monkeypatch.undo()
    assert _reproduce(root, out, "--resume", "--no-report") == 0
    assert _manifest(out)["status"] == "complete" and (out / "results.json").is_file()
    assert incomplete(out) is None


def test_report_removes_the_figures_of_an_earlier_report(scenario_file, tmp_path):
    out = tmp_path / "o"
    assert flowstate("run", scenario_file, "--out", out).returncode == 0
    (out / "figures").mkdir()
    stale = out / "figures" / "from-an-older-report.png"
    stale.write_bytes(b"png")
    r = flowstate("report", out)
    assert r.returncode == 0, r.stderr
    assert not stale.exists() and (out / "report.html").is_file() and any((out / "figures").glob("*.png"))


def test_a_testbed_run_cut_short_is_recorded_as_interrupted(scenario_file, tmp_path, monkeypatch):
    # The testbed's real-time run replaced by a simulated one with the testbed's extra
    # outputs (the real one needs a minute of wall clock; tests/test_testbed.py).
    import io

    from flowstate import _native
    from flowstate.cli import testbed as testbed_command
    from flowstate.simulation import load_scenario

    def fake_testbed(scenario, **kwargs):
        text, file = load_scenario(scenario)
        raw = _native.simulate(text, file, seed=kwargs.get("seed"), runs=1, threads=1)[0]
        counters = {"sender": {}, "receiver": {}, "bottleneck": {}, "sctp": {}}
        return testbed_command.TestbedResult(
            {**raw, **counters, "interrupted": True, "sender_pcap": b"", "receiver_pcap": b""}
        )

    monkeypatch.setattr(testbed_command, "testbed", fake_testbed)
    out = tmp_path / "tb"
    testbed_command.main(str(scenario_file), seed=3, out=str(out), report=False, command=["flowstate", "testbed"],
                         stdout=io.StringIO(), stderr=io.StringIO())  # fmt: skip
    doc = _manifest(out)
    assert doc["kind"] == "testbed" and doc["status"] == "interrupted" and doc["seeds"] == [3]
    assert doc["finished_at"] is None and doc["coupling"]["mechanism"] == "fsev2"
    with pytest.raises(UsageError, match="already holds a previous run's outputs"):
        testbed_command.main(str(scenario_file), out=str(out), report=False, stdout=io.StringIO())
    testbed_command.main(str(scenario_file), out=str(out), report=False, force=True, stdout=io.StringIO())
    assert _manifest(out)["seeds"] == [1]


def test_an_interrupted_reproduction_of_several_entries_names_what_finished(tmp_path, monkeypatch, capsys):
    from catalogue_support import EXPERIMENT

    root = make_catalogue(tmp_path / "cat")
    make_catalogue(root, EXPERIMENT.replace('id = "tiny"', 'id = "tiny2"'), name="tiny2")
    out = tmp_path / "o"
    real_collect = reproduce.PendingRuns.collect
    calls = []

    def ctrl_c_on_the_second(self, progress=None):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real_collect(self, progress)

    monkeypatch.setattr(reproduce.PendingRuns, "collect", ctrl_c_on_the_second)
    argv = ["reproduce", "tiny", "tiny2", "--runs", "1", "--catalogue", str(root), "--out", str(out), "--no-report"]
    assert main(argv) == 130
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == (
        "flowstate: interrupted (finished: tiny; not finished: tiny2); to complete it: flowstate reproduce tiny tiny2 "
        f"--out {out} --runs 1 --catalogue {root} --no-report --resume"
    )
    assert _manifest(out / "tiny")["status"] == "complete" and _manifest(out / "tiny2")["status"] == "interrupted"
    monkeypatch.undo()
    assert main([*argv, "--resume"]) == 0
    assert "tiny: already complete" in capsys.readouterr().err
    assert _manifest(out / "tiny2")["status"] == "complete"
    index = json.loads((out / "catalogue.json").read_text())
    assert [e["id"] for e in index["experiments"]] == ["tiny", "tiny2"]


def test_resume_empties_nothing_flowstate_did_not_write(tmp_path):
    root = make_catalogue(tmp_path / "cat")
    from catalogue_support import EXPERIMENT

    make_catalogue(root, EXPERIMENT.replace('id = "tiny"', 'id = "tiny2"'), name="tiny2")
    out = tmp_path / "o"
    (out / "tiny").mkdir(parents=True)
    (out / "tiny" / "summary.json").write_text("{}")  # an older run's, kept until checked
    (out / "tiny2").mkdir()
    (out / "tiny2" / "notes.txt").write_text("mine")
    r = flowstate("reproduce", "tiny", "tiny2", "--runs", 1, "--catalogue", root, "--out", out, "--resume")
    assert_one_line_error(r, "tiny2 holds files flowstate did not write")
    assert (out / "tiny" / "summary.json").exists() and (out / "tiny2" / "notes.txt").exists()
