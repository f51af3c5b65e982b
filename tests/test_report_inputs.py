"""`flowstate report` and `compare` on damaged output folders: every input is read and
checked before anything is written, so a bad file is a one-line error (exit status 2)
naming it, and the folders are left as they were; `compare --out` may not be one of its
inputs, inside one, or hold one."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Callable

import pytest

import flowstate
from cli_support import assert_one_line_error
from cli_support import flowstate as flowstate_cli
from flowstate.cli import main as cli_main
from flowstate.report import input_files

SCENARIO = {
    "name": "tiny",
    "duration": "4s",
    "link": {"capacity": "1Mbps", "delay": "20ms", "queue": "100ms"},
    "flows": [{"name": "gcc", "kind": "gcc"}, {"name": "sctp", "kind": "sctp", "start": "1s"}],
    "measure": {"start": "1s", "end": "4s"},
}


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> Path:
    """A run folder of two runs, as `flowstate run --runs 2` writes it."""
    folder = tmp_path_factory.mktemp("good") / "run"
    flowstate.run(SCENARIO, runs=2).write(folder)
    return folder


def snapshot(folder: Path) -> dict[str, str]:
    """Every file and folder under ``folder`` with a digest of its bytes."""
    out = {}
    for path in sorted(folder.rglob("*")):
        key = str(path.relative_to(folder))
        out[key] = "folder" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def run_cli(capsys, *args: str) -> tuple[int, str]:
    """`flowstate ARGS` in this process: (exit status, stderr)."""
    status = cli_main.main([str(a) for a in args])
    return status, capsys.readouterr().err


def assert_error(status: int, stderr: str, *fragments: str) -> None:
    assert status == 2, stderr
    assert stderr.startswith("flowstate: error: ") and stderr.count("\n") == 1, stderr
    for fragment in fragments:
        assert fragment in stderr, stderr


# ---------------------------------------------------------------- the damaged variants


def _write(name: str, data: str | bytes) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        path = folder / name
        if path.is_dir():
            shutil.rmtree(path)
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return damage


def _truncate(name: str) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        text = (folder / name).read_bytes()
        (folder / name).write_bytes(text[: len(text) // 2])
    return damage


def _edit_summary(change: Callable[[dict], None]) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        summary = json.loads((folder / "summary.json").read_text())
        change(summary)
        (folder / "summary.json").write_text(json.dumps(summary))
    return damage


def _edit_csv(change: Callable[..., object]) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        import pandas

        frame = pandas.read_csv(folder / "timeseries.csv")
        frame = change(frame)
        frame.to_csv(folder / "timeseries.csv", index=False)
    return damage


def _folder_for(name: str) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        path = folder / name
        if path.exists():
            path.unlink()
        (path / "inner").mkdir(parents=True)
    return damage


def _nan_all(frame):
    for column in frame.columns:
        if column not in ("flow", "time_s", "run", "seed"):
            frame[column] = float("nan")
    return frame


def _set(key: str, value: object) -> Callable[[dict], None]:
    return lambda summary: summary.__setitem__(key, value)


DEEP = "[" * 100_000 + "]" * 100_000
JUST_TOO_DEEP = json.dumps({"flows": [], "extra": json.loads("[" * (input_files.MAX_JSON_DEPTH + 1) + "]" *
                                                             (input_files.MAX_JSON_DEPTH + 1))})
GARBAGE = bytes(range(256)) * 8

# (name, damage, a fragment of the error): inputs both commands read.
INPUT_DAMAGE = [
    ("summary truncated", _truncate("summary.json"), "summary.json: not valid JSON"),
    ("summary empty", _write("summary.json", ""), "summary.json: empty"),
    ("summary binary", _write("summary.json", GARBAGE), "summary.json: not UTF-8"),
    ("summary nested 100000 deep", _write("summary.json", DEEP), "summary.json: nested more than"),
    ("summary nested just too deep", _write("summary.json", JUST_TOO_DEEP), "summary.json: nested more than"),
    ("summary a list", _write("summary.json", "[]"), "summary.json: not a summary"),
    ("summary a number", _write("summary.json", "3"), "summary.json: not a summary"),
    ("summary huge integer", _write("summary.json", '{"flows": [], "seed": ' + "9" * 5000 + "}"),
     "summary.json: not valid JSON"),
    ("flows a string", _edit_summary(_set("flows", "gcc")), "summary.json: not a summary"),
    ("flow a number", _edit_summary(_set("flows", [1])), "flows[0]: expected an object"),
    ("flow without name", _edit_summary(lambda s: s["flows"][0].pop("name")), "flows[0]: expected an object"),
    ("aggregate a list", _edit_summary(_set("aggregate", [])), "field 'aggregate'"),
    ("runs a string", _edit_summary(_set("runs", "2")), "field 'runs'"),
    ("runs zero", _edit_summary(_set("runs", 0)), "field 'runs'"),
    ("window a string", _edit_summary(_set("window_s", "1-4")), "field 'window_s'"),
    ("window infinite", _edit_summary(_set("window_s", [0, float("inf")])), "field 'window_s'"),
    ("warnings a string", _edit_summary(_set("warnings", "odd")), "field 'warnings'"),
    ("coupling a string", _edit_summary(_set("coupling", "fsev2")), "field 'coupling'"),
    ("summary a folder", _folder_for("summary.json"), "not found, nor summary.json"),
    ("timeseries empty", _write("timeseries.csv", ""), "timeseries.csv: empty"),
    ("timeseries header only", _write("timeseries.csv", "time_s,flow,throughput_mbps,rtt_ms\n"),
     "timeseries.csv: no rows"),
    ("timeseries without flow", _edit_csv(lambda f: f.drop(columns=["flow"])), "column 'flow' missing"),
    ("timeseries without time", _edit_csv(lambda f: f.drop(columns=["time_s"])), "column 'time_s' missing"),
    ("timeseries without rtt", _edit_csv(lambda f: f.drop(columns=["rtt_ms"])), "column 'rtt_ms' missing"),
    ("timeseries NaN only", _edit_csv(_nan_all), "timeseries.csv: no number in any of"),
    ("timeseries text for a number", _edit_csv(lambda f: f.assign(throughput_mbps="fast")),
     "column 'throughput_mbps' row 2: not a number"),
    ("timeseries time NaN", _edit_csv(lambda f: f.assign(time_s=float("nan"))), "column 'time_s' row 2"),
    ("timeseries flow empty", _edit_csv(lambda f: f.assign(flow=float("nan"))), "column 'flow' row 2: empty"),
    ("timeseries binary", _write("timeseries.csv", GARBAGE), "timeseries.csv: cannot read as CSV"),
    ("timeseries a folder", _folder_for("timeseries.csv"), "timeseries.csv: not a file"),
    ("results truncated", lambda f: (f / "results.json").write_text('{"id": "x", "points": ['),
     "results.json: not valid JSON"),
    ("results nested 100000 deep", _write("results.json", DEEP), "results.json: nested more than"),
    ("results wrong points", _write("results.json", '{"id": "x", "points": "p"}'), "field 'points'"),
    ("results point without summary", _write("results.json", '{"id": "x", "points": [{"name": "p"}]}'),
     "points[0].summary missing"),
    ("results claim a string", _write("results.json", '{"id": "x", "points": [], "claims": ["c"]}'),
     "claims[0]: expected an object"),
    ("results claim values a list", _write("results.json", json.dumps(
        {"id": "x", "points": [], "claims": [{"text": "t", "status": "holds", "values": [1]}]})),
     "claims[0].values is not an object"),
    ("results figure points a string", _write("results.json", json.dumps(
        {"id": "x", "points": [{"name": "p", "summary": {"flows": []}}], "figures": [{"kind": "bar", "points": "p"}]})),
     "figures[0].points: expected a list"),
]

# Files only `report` writes (into the folder it reads), and what only its page shows (a
# comparison's points are the folders' points, without the paper's columns).
OUTPUT_DAMAGE = [
    ("results paper value a string", _write("results.json", json.dumps(
        {"id": "x", "points": [{"name": "p", "summary": {"flows": []}}],
         "comparison": [{"point": "p", "metric": "aggregate.jain_index", "paper": "high", "ours": 1.0}]})),
     "results.json: unexpected content"),
    ("report.html a folder", _folder_for("report.html"), "report.html: not a file"),
    ("results.json a folder", _folder_for("results.json"), "results.json: not a file"),
    ("figures a file", _write("figures", "x"), "figures: not a folder"),
]

# The manifest, which `compare` reads for its labels and `report` for whether the
# folder's command finished.
MANIFEST_DAMAGE = [
    ("manifest truncated", _write("manifest.json", '{"sets": ['), "manifest.json: not valid JSON"),
    ("manifest a list", _write("manifest.json", "[]"), "manifest.json: expected a JSON object"),
    ("manifest sets a string", _write("manifest.json", '{"sets": "a=1"}'), "manifest.json: field 'sets'"),
    ("manifest set without value", _write("manifest.json", '{"sets": ["link.capacity"]}'), "field 'sets'"),
    ("manifest coupling a string", _write("manifest.json", '{"coupling": "fsev2"}'), "field 'coupling'"),
    ("manifest nested 100000 deep", _write("manifest.json", DEEP), "manifest.json: nested more than"),
    ("manifest binary", _write("manifest.json", GARBAGE), "manifest.json: not UTF-8"),
]


@pytest.mark.parametrize("name, damage, fragment", INPUT_DAMAGE + OUTPUT_DAMAGE + MANIFEST_DAMAGE,
                         ids=lambda v: v if isinstance(v, str) else "")
def test_report_of_a_damaged_folder_is_one_line_and_writes_nothing(good, tmp_path, capsys, name, damage, fragment):
    folder = shutil.copytree(good, tmp_path / "run")
    damage(folder)
    before = snapshot(folder)
    status, stderr = run_cli(capsys, "report", folder)
    assert_error(status, stderr, fragment)
    assert snapshot(folder) == before


@pytest.mark.parametrize("name, damage, fragment", INPUT_DAMAGE + MANIFEST_DAMAGE,
                         ids=lambda v: v if isinstance(v, str) else "")
def test_compare_with_a_damaged_folder_is_one_line_and_writes_nothing(good, tmp_path, capsys, name, damage, fragment):
    folder = shutil.copytree(good, tmp_path / "run")
    damage(folder)
    before = snapshot(folder), snapshot(good)
    out = tmp_path / "cmp"
    status, stderr = run_cli(capsys, "compare", good, folder, "--out", out)
    assert_error(status, stderr, fragment)
    assert not out.exists()
    assert (snapshot(folder), snapshot(good)) == before


def test_a_file_over_the_size_limit_is_refused_unread(good, tmp_path, capsys, monkeypatch):
    folder = shutil.copytree(good, tmp_path / "run")
    monkeypatch.setattr(input_files, "MAX_JSON_BYTES", 100)
    status, stderr = run_cli(capsys, "report", folder)
    assert_error(status, stderr, "summary.json: ", "over the limit")
    assert not (folder / "results.json").exists()


# ---------------------------------------------------------------- as the user met them


def test_cli_report_of_deeply_nested_summary_is_one_line(good, tmp_path):
    folder = shutil.copytree(good, tmp_path / "run")
    (folder / "summary.json").write_text(DEEP)
    assert_one_line_error(flowstate_cli("report", folder), "summary.json: nested more than")


def test_cli_report_without_flow_column_writes_no_results(good, tmp_path):
    folder = shutil.copytree(good, tmp_path / "run")
    _edit_csv(lambda f: f.drop(columns=["flow"]))(folder)
    assert_one_line_error(flowstate_cli("report", folder), "timeseries.csv: column 'flow' missing")
    assert not (folder / "results.json").exists() and not (folder / "figures").exists()


def test_cli_compare_with_nan_only_series_names_that_folder_and_leaves_no_output(good, tmp_path):
    folder = shutil.copytree(good, tmp_path / "nan")
    _edit_csv(_nan_all)(folder)
    out = tmp_path / "cmp"
    result = flowstate_cli("compare", good, folder, "--out", out)
    assert_one_line_error(result, f"{folder / 'timeseries.csv'}: no number")
    assert "cmp" not in result.stderr and not out.exists()


@pytest.mark.parametrize("where", ["same", "inside", "around"])
def test_compare_refuses_an_output_folder_among_its_inputs(good, tmp_path, capsys, where):
    other = shutil.copytree(good, tmp_path / "other" / "run")
    out = {"same": other, "inside": other / "cmp", "around": tmp_path / "other"}[where]
    before = snapshot(other)
    status, stderr = run_cli(capsys, "compare", good, other, "--out", out)
    assert_error(status, stderr, f"--out {out}", str(other), "outside the compared")
    assert snapshot(other) == before and not (other / "cmp").exists()


def test_compare_refuses_an_output_folder_named_by_another_path(good, tmp_path, capsys):
    other = shutil.copytree(good, tmp_path / "other")
    status, stderr = run_cli(capsys, "compare", good, other, "--out", other / "x" / "..")
    assert_error(status, stderr, "outside the compared")


# ---------------------------------------------------------------- a sweep folder


def _sweep(good: Path, folder: Path) -> Path:
    """A sweep folder as `flowstate sweep` stores it: sweep.json and one task per point
    and seed in points/."""
    summary = json.loads((good / "summary.json").read_text())
    (folder / "points").mkdir(parents=True)
    (folder / "sweep.json").write_text(json.dumps(
        {"spec": {"name": "s", "axes": [{"name": "cap", "key": "link.capacity", "values": ["1Mbps", "2Mbps"]}]}}))
    for i, cap in enumerate(("1Mbps", "2Mbps")):
        (folder / "points" / f"{i}.json").write_text(json.dumps({"point": {"cap": cap}, "seed": 1, "summary": summary}))
    return folder


SWEEP_DAMAGE = [
    ("sweep.json truncated", _truncate("sweep.json"), "sweep.json: not valid JSON"),
    ("sweep.json without spec", _write("sweep.json", "{}"), "sweep.json: not a sweep file"),
    ("sweep.json axes a string", _write("sweep.json", '{"spec": {"axes": "cap"}}'), "spec.axes is not a list"),
    ("sweep.json nested 100000 deep", _write("sweep.json", DEEP), "sweep.json: nested more than"),
    ("task binary", _write("points/0.json", GARBAGE), "0.json: not UTF-8"),
    ("task without summary", _write("points/0.json", '{"point": {"cap": "1Mbps"}}'), "0.json: not a sweep task"),
    ("task flows a number", _write("points/1.json", '{"point": {}, "summary": {"flows": [7]}}'),
     "1.json: summary: flows[0]: expected an object"),
    ("task a folder", _folder_for("points/1.json"), "1.json: not a file"),
]


@pytest.mark.parametrize("name, damage, fragment", SWEEP_DAMAGE, ids=lambda v: v if isinstance(v, str) else "")
def test_report_of_a_damaged_sweep_folder_is_one_line_and_writes_nothing(good, tmp_path, capsys, name, damage,
                                                                        fragment):
    folder = _sweep(good, tmp_path / "sweep")
    damage(folder)
    before = snapshot(folder)
    status, stderr = run_cli(capsys, "report", folder)
    assert_error(status, stderr, fragment)
    assert snapshot(folder) == before


def test_report_of_the_undamaged_sweep_fixture_draws(good, tmp_path, capsys):
    folder = _sweep(good, tmp_path / "sweep")
    status, stderr = run_cli(capsys, "report", folder)
    assert status == 0, stderr
    assert (folder / "report.html").is_file()
