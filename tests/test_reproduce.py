"""flowstate.catalogue.reproduce and `flowstate reproduce` end to end on a tiny catalogue."""

from __future__ import annotations

import csv
import io
import json

import pytest
from catalogue_support import BASE, EXPERIMENT, make_catalogue

from flowstate.catalogue import catalogue
from flowstate.catalogue import reproduce
from flowstate.cli import reproduce as reproduce_command
from cli_support import flowstate


@pytest.fixture
def tiny(tmp_path):
    return catalogue.load_id(make_catalogue(tmp_path / "cat"), "tiny")


def _strip_elapsed(doc):
    return {k: v for k, v in doc.items() if k != "elapsed_s"}


def test_reproduce_writes_points_and_results(tiny, tmp_path):
    out = tmp_path / "out"
    ticks = []
    results = reproduce.reproduce(tiny, out=out, jobs=2, progress=lambda d, t: ticks.append((d, t)))
    assert ticks[-1] == (6, 6) and len(ticks) == 6  # 2 points x 3 runs
    on_disk = json.loads((out / "results.json").read_text())
    assert on_disk == results
    assert set(results) == {
        "id", "paper", "reference", "title", "finding", "notes", "runs", "seed", "short",
        "elapsed_s", "axes", "points", "comparison", "claims", "figures",
    }  # fmt: skip
    assert results["runs"] == 3 and results["seed"] == 1 and results["short"] is False
    assert [p["name"] for p in results["points"]] == ["plain", "heavy"]
    plain, heavy = results["points"]
    assert plain["summary"]["seeds"] == [1, 2, 3]
    assert heavy["label"] == "heavy CBR" and heavy["dir"] == "heavy" and heavy["grid"] == {}
    for p in results["points"]:
        assert (out / p["dir"] / "summary.json").is_file()
        with open(out / p["dir"] / "timeseries.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        assert {r["run"] for r in rows} == {"0", "1", "2"}
    # The heavier CBR flow leaves GCC less (derived metric, mean over the runs).
    g_plain, g_heavy = plain["derived"]["gcc_mean"], heavy["derived"]["gcc_mean"]
    assert len(g_plain["values"]) == 3 and g_plain["min"] <= g_plain["mean"] <= g_plain["max"]
    assert g_heavy["mean"] < g_plain["mean"]
    util = plain["summary"]["aggregate"]["utilization"]
    assert results["comparison"][0] == {
        "point": "plain", "metric": "aggregate.utilization", "label": "utilization", "paper": 0.9,
        "ours": util,
        "std": plain["summary"]["aggregate"]["spread"]["utilization"]["std"],
        "min": plain["summary"]["aggregate"]["spread"]["utilization"]["min"],
        "max": plain["summary"]["aggregate"]["spread"]["utilization"]["max"],
    }  # fmt: skip
    assert results["comparison"][1]["ours"] == g_heavy["mean"]
    assert results["comparison"][1]["label"] == "derived.gcc_mean"
    assert [c["status"] for c in results["claims"]] == ["holds", "fails", "holds"]
    assert results["claims"][0]["values"] == {"{plain:aggregate.utilization}": util}
    assert results["figures"] == [{"kind": "rate", "points": ["plain", "heavy"]}]


def test_reproduce_is_deterministic_whatever_the_jobs(tiny, tmp_path):
    a = reproduce.reproduce(tiny, out=tmp_path / "a", jobs=1, runs=2, seed=7)
    b = reproduce.reproduce(tiny, out=tmp_path / "b", jobs=3, runs=2, seed=7)
    assert _strip_elapsed(a) == _strip_elapsed(b)
    text = lambda p: json.dumps(_strip_elapsed(json.loads(p.read_text())))  # noqa: E731
    assert text(tmp_path / "a/results.json") == text(tmp_path / "b/results.json")
    assert (tmp_path / "a/plain/timeseries.csv").read_text() == (tmp_path / "b/plain/timeseries.csv").read_text()
    assert a["points"][0]["summary"]["seeds"] == [7, 8]


def test_runs_started_ahead_on_a_shared_pool_give_the_same_results(tmp_path):
    """`flowstate reproduce` with several entries submits an entry's runs while the
    entry before it is written: the same results as each entry on its own."""
    from concurrent.futures import ThreadPoolExecutor

    root = make_catalogue(tmp_path / "cat")
    make_catalogue(root, EXPERIMENT.replace('id = "tiny"', 'id = "tiny2"'), name="tiny2")
    entries = [catalogue.load_id(root, i) for i in ("tiny", "tiny2")]
    alone = [reproduce.reproduce(e, out=tmp_path / "alone" / e.id, runs=2, seed=3, jobs=2) for e in entries]
    with ThreadPoolExecutor(max_workers=2) as pool:
        ahead = [reproduce.start(e, pool, runs=2, seed=3) for e in entries]
        shared = [
            reproduce.reproduce(e, out=tmp_path / "shared" / e.id, runs=2, seed=3, pending=p)
            for e, p in zip(entries, ahead)
        ]
    assert [_strip_elapsed(d) for d in shared] == [_strip_elapsed(d) for d in alone]
    for e in entries:
        csv_text = lambda side: (tmp_path / side / e.id / "plain/timeseries.csv").read_text()  # noqa: E731
        assert csv_text("shared") == csv_text("alone")


def test_entries_with_the_same_scenarios_but_their_names_share_the_runs(tmp_path, monkeypatch):
    """Two entries whose points differ only in the scenario's name: each run key is
    simulated once, and each entry's results (the summary's scenario name included) are
    those of the entry reproduced on its own."""
    from concurrent.futures import ThreadPoolExecutor

    root = make_catalogue(tmp_path / "cat")
    other = BASE.replace('name = "tiny"', 'name = "twin"')
    make_catalogue(root, EXPERIMENT.replace('id = "tiny"', 'id = "twin"'), base=other, name="twin")
    entries = [catalogue.load_id(root, i) for i in ("tiny", "twin")]
    alone = [reproduce.reproduce(e, out=tmp_path / "alone" / e.id, runs=2, seed=3, jobs=2) for e in entries]
    calls = []
    simulate = reproduce._native.simulate
    monkeypatch.setattr(reproduce._native, "simulate", lambda *a, **k: calls.append(k["seed"]) or simulate(*a, **k))
    with ThreadPoolExecutor(max_workers=2) as pool:
        shared_runs = reproduce.SharedRuns.counting(pool, entries, runs=2, seed=3, short=False)
        ahead = [reproduce.start(e, pool, runs=2, seed=3, shared=shared_runs) for e in entries]
        shared = [
            reproduce.reproduce(e, out=tmp_path / "shared" / e.id, runs=2, seed=3, pending=p)
            for e, p in zip(entries, ahead)
        ]
    assert sorted(calls) == [3, 3, 4, 4]  # 2 points x 2 seeds, not 2 entries x 2 x 2
    assert [p["summary"]["scenario"] for d in shared for p in d["points"]] == ["tiny"] * 2 + ["twin"] * 2
    assert [_strip_elapsed(d) for d in shared] == [_strip_elapsed(d) for d in alone]
    for e in entries:
        for point in ("plain", "heavy"):
            for f in ("summary.json", "timeseries.csv"):
                text = lambda side: (tmp_path / side / e.id / point / f).read_text()  # noqa: E731
                assert text("shared") == text("alone")
    assert shared_runs._runs == {}  # every result let go once its last user had it


def test_a_reproduction_simulates_without_the_trace_hash(tiny, tmp_path, monkeypatch):
    """Nothing a reproduction writes uses the fingerprint, so its runs skip it; the
    results are those of runs with it (the summaries and series do not depend on it)."""
    raws = []
    simulate = reproduce._native.simulate
    monkeypatch.setattr(reproduce._native, "simulate", lambda *a, **k: raws.extend(simulate(*a, **k)) or raws[-1:])
    monkeypatch.setattr(reproduce, "as_pooled_run", dict)  # the runs as they were
    with_hash = reproduce.reproduce(tiny, out=tmp_path / "a", runs=1)
    assert all(isinstance(r["trace_hash"], int) for r in raws) and len(raws) == 2
    monkeypatch.undo()
    monkeypatch.setattr(reproduce._native, "simulate", lambda *a, **k: raws.extend(simulate(*a, **k)) or raws[-1:])
    without = reproduce.reproduce(tiny, out=tmp_path / "b", runs=1)
    assert [r["trace_hash"] for r in raws[2:]] == [None, None]
    assert _strip_elapsed(with_hash) == _strip_elapsed(without)
    for point in ("plain", "heavy"):
        for f in ("summary.json", "timeseries.csv"):
            assert (tmp_path / "a" / point / f).read_text() == (tmp_path / "b" / point / f).read_text()


def test_the_command_shares_runs_between_entries(tmp_path, monkeypatch):
    root = make_catalogue(tmp_path / "cat")
    make_catalogue(root, EXPERIMENT.replace('id = "tiny"', 'id = "twin"'), name="twin")
    calls = []
    simulate = reproduce._native.simulate
    monkeypatch.setattr(reproduce._native, "simulate", lambda *a, **k: calls.append(k["seed"]) or simulate(*a, **k))
    reproduce_command.main(
        [], all_=True, runs=1, catalogue_dir=str(root), out=str(tmp_path / "out"), no_report=True, jobs=2,
        stdout=io.StringIO(), stderr=io.StringIO(),
    )  # fmt: skip
    assert calls == [1, 1]  # plain and heavy once each, for both entries


def test_the_command_queues_every_entry_before_collecting_the_first(tmp_path, monkeypatch):
    # The pool must never wait for the main thread to write an entry's files: every
    # entry's runs are on it before the first entry is collected.
    root = make_catalogue(tmp_path / "cat")
    for name in ("tiny2", "tiny3"):
        make_catalogue(root, EXPERIMENT.replace('id = "tiny"', f'id = "{name}"'), name=name)
    order = []
    start, collect = reproduce.start, reproduce.reproduce
    monkeypatch.setattr(reproduce, "start", lambda exp, *a, **k: order.append(("start", exp.id)) or start(exp, *a, **k))
    monkeypatch.setattr(reproduce, "reproduce", lambda exp, **k: order.append(("collect", exp.id)) or collect(exp, **k))
    status = reproduce_command.main(
        [], all_=True, runs=1, catalogue_dir=str(root), out=str(tmp_path / "out"), no_report=True, jobs=2,
        stdout=io.StringIO(), stderr=io.StringIO(),
    )  # fmt: skip
    assert status == 0
    assert order == [("start", "tiny"), ("start", "tiny2"), ("start", "tiny3"),
                     ("collect", "tiny"), ("collect", "tiny2"), ("collect", "tiny3")]  # fmt: skip
    assert json.loads((tmp_path / "out/tiny3/results.json").read_text())["runs"] == 1


def test_short_applies_the_short_runs_and_set(tiny, tmp_path):
    results = reproduce.reproduce(tiny, out=tmp_path, short=True)
    assert results["short"] is True and results["runs"] == 2
    assert results["points"][0]["summary"]["duration_s"] == 4.0


def test_metric_stats_of_a_single_run_has_zero_spread(tiny, tmp_path):
    results = reproduce.reproduce(tiny, out=tmp_path, runs=1)
    stats = reproduce.metric_stats(results["points"][0], "flows.gcc.rtt_ms.p95")
    assert stats["std"] == 0.0 and stats["min"] == stats["mean"] == stats["max"]
    assert reproduce.metric_stats(results["points"][0], "flows.bg.rtt_ms.mean") is None  # CBR: no feedback


def _cli(*args, cwd):
    return flowstate(*args, cwd=cwd, timeout=300)


def test_cli_reproduce_prints_comparison_claims_and_paths(tmp_path):
    root = make_catalogue(tmp_path / "cat")
    r = _cli("reproduce", "tiny", "--runs", "2", "--catalogue", str(root), "--no-report", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "ours = mean ± std over 2 runs" in r.stdout
    assert "HOLDS" in r.stdout and "FAILS" in r.stdout
    assert "results: out/tiny/results.json" in r.stdout
    assert json.loads((tmp_path / "out/tiny/results.json").read_text())["runs"] == 2
    # A failed claim is a result, not an error; --check makes it one.
    r = _cli("reproduce", "tiny", "--runs", "1", "--check", "--catalogue", str(root), "--no-report", "--out", "x", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert (tmp_path / "x/results.json").is_file()


def test_cli_reproduce_all_writes_the_index(tmp_path):
    root = make_catalogue(tmp_path / "cat")
    make_catalogue(root, EXPERIMENT.replace('id = "tiny"', 'id = "tiny2"'), name="tiny2")
    r = _cli("reproduce", "--all", "--short", "--catalogue", str(root), "--out", "o", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    index = json.loads((tmp_path / "o/catalogue.json").read_text())
    assert [e["id"] for e in index["experiments"]] == ["tiny", "tiny2"]
    assert index["short"] is True
    assert [c["status"] for c in index["experiments"][0]["claims"]] == ["holds", "fails", "holds"]
    results = json.loads((tmp_path / "o/tiny/results.json").read_text())
    assert [c["value_off"] for c in index["experiments"][0]["claims"]] == [c["value_off"] for c in results["claims"]]
    assert (tmp_path / "o/tiny2/results.json").is_file()
    assert "catalogue: 2 experiments" in r.stdout


def test_a_missing_report_builder_is_a_note(tmp_path, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_report(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "flowstate.report" and fromlist and "report" in fromlist:
            raise ImportError("no flowstate.report.report")
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", no_report)
    report, note = reproduce.build_report(tmp_path)
    assert report is None and "cannot be imported (no flowstate.report.report)" in note


def test_comparison_table_without_paper_numbers(tiny, tmp_path):
    results = reproduce.reproduce(tiny, out=tmp_path, runs=1)
    results["comparison"] = []
    table = reproduce_command.comparison_table(results)
    assert [c.header for c in table.columns][:5] == ["point", "utilization", "Jain", "queuing ms", "loss %"]
    # The paper is cited from the bibliography (docs/REFERENCES.md), not as a bare "000".
    assert table.title.startswith("tiny (Islam et al. 2022 (IEEE Access), Fig. 0): ours = ")


def test_seeds_past_64_bits_are_a_one_line_error(tmp_path):
    root = make_catalogue(tmp_path / "cat")
    r = _cli("reproduce", "tiny", "--seed", str(2**64 - 1), "--runs", "2", "--catalogue", str(root), cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "must be in [0, 2^64 - 1]" in r.stderr


def test_cli_reproduce_flags_a_claim_whose_value_is_off_the_papers(tmp_path):
    # The paper's utilization set far below ours: "the link is used" still holds, flagged.
    root = make_catalogue(tmp_path / "cat", EXPERIMENT.replace("value = 0.9", "value = 0.2"))
    r = _cli("reproduce", "tiny", "--runs", "1", "--catalogue", str(root), "--no-report", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    claim = json.loads((tmp_path / "out/tiny/results.json").read_text())["claims"][0]
    assert claim["status"] == "holds" and claim["value_off"] is True and claim["relative_difference"] > 0.25
    assert claim["paper_values"][0]["paper"] == 0.2
    flag = f"holds, value off by +{round(claim['relative_difference'] * 100)} %"
    assert flag in r.stdout
    assert "{plain:aggregate.utilization}: paper 0.200" in r.stdout


def test_cli_reproduce_of_one_run_shows_values_without_plus_minus(tmp_path):
    root = make_catalogue(tmp_path / "cat")
    r = _cli("reproduce", "tiny", "--runs", "1", "--catalogue", str(root), "--no-report", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "ours = the value of one run" in " ".join(r.stdout.split())  # the title may wrap
    table = r.stdout.split("HOLDS")[0]
    assert "±" not in table and "utilization" in table
