"""Named links and parking lots from Python: per-link metrics in the summary and in
links.csv, ``flowstate run`` prints them, and the browser plan takes one bottleneck and
refuses several with one line (pure Python: no browser is started)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import flowstate
from flowstate.browser.plan import PlanError, make_plan
from flowstate.cli import run as run_cli
from flowstate.overrides import load_toml

ROOT = Path(__file__).resolve().parent.parent
PARKING_LOT = ROOT / "scenarios" / "topologies" / "parking-lot.toml"


def _short(doc: dict) -> dict:
    return {**doc, "duration": "12s", "measure": {"start": "2s"}}


def test_parking_lot_has_per_link_metrics_and_links_csv(tmp_path: Path) -> None:
    result = flowstate.run(_short(load_toml(PARKING_LOT)), seed=1, runs=2)
    links = result.summary["links"]
    assert [l["name"] for l in links] == ["hop1", "hop2", "hop3"]
    for link in links:
        assert link["utilization"] > 0.9
        assert "spread" in link and "utilization" in link["spread"]
    result.write(tmp_path)
    lines = (tmp_path / "links.csv").read_text().splitlines()
    assert lines[0].startswith("run,seed,time_s,link,throughput_mbps")
    # 2 runs x 3 links x 24 bins of 500 ms.
    assert len(lines) == 1 + 2 * 3 * 24
    frame = result.link_timeseries
    assert set(frame["link"]) == {"hop1", "hop2", "hop3"}


def test_dumbbell_summaries_name_link_and_reverse_link() -> None:
    text = 'name = "d"\nduration = "2s"\n[link]\ncapacity = "1Mbps"\ndelay = "10ms"\nqueue = "10pkt"\n[[flows]]\nname = "c"\nkind = "cbr"\noverrides = { rate = "500kbps" }\n'
    result = flowstate.run(toml=text)
    assert [l["name"] for l in result.summary["links"]] == ["link", "reverse_link"]
    assert 0.45 < result.summary["links"][0]["utilization"] < 0.55


def test_run_prints_the_links_table(tmp_path: Path) -> None:
    out = io.StringIO()
    scenario = tmp_path / "pl.toml"
    scenario.write_text(PARKING_LOT.read_text().replace('duration = "60s"', 'duration = "12s"').replace('start = "10s"', 'start = "2s"'))
    run_cli.main(str(scenario), out=str(tmp_path / "out"), stdout=out, stderr=io.StringIO())
    text = out.getvalue()
    assert "links" in text and "hop2" in text and "utilization" in text
    assert (tmp_path / "out" / "links.csv").exists()


def test_browser_plan_refuses_a_parking_lot_and_takes_one_named_link() -> None:
    doc = load_toml(PARKING_LOT)
    doc["flows"] = [{"name": "video", "kind": "gcc", "hops": [1, 3]}]
    with pytest.raises(PlanError) as e:
        make_plan(doc, file="pl.toml")
    # The field and the message: the command puts the file in front, once.
    assert str(e.value) == (
        "flows[0].hops: crosses 3 links (hop1, hop2, hop3); the emulator and the testbed "
        "emulate one bottleneck per direction; run multi-link topologies in the simulator (flowstate run)"
    )
    doc["flows"] = [{"name": "video", "kind": "gcc", "hops": [2], "return_delay": "25ms"}]
    plan = make_plan(doc, file="pl.toml")
    assert plan.reverse_delay_s == pytest.approx(0.025)


def test_link_metric_paths() -> None:
    from flowstate.metric_paths import metric_stats
    from flowstate.sweep.metrics import MetricError, check_summary_path, summary_value

    check_summary_path("links.hop2.utilization", ["a"])
    check_summary_path("links.link.queuing_delay_ms.p95", ["a"])
    with pytest.raises(MetricError, match="no field 'utilisation'"):
        check_summary_path("links.hop2.utilisation", ["a"])
    summary = {"links": [{"name": "hop2", "utilization": 0.5, "spread": {"utilization": {"std": 0.1, "min": 0.4, "max": 0.6}}}]}
    assert summary_value(summary, "links.hop2.utilization") == 0.5
    with pytest.raises(MetricError, match="no link of the summary matches"):
        summary_value(summary, "links.hop9.utilization")
    assert metric_stats({"summary": summary}, "links.hop2.utilization") == {"mean": 0.5, "std": 0.1, "min": 0.4, "max": 0.6}


def test_paths_address_named_links_and_their_trace_files(tmp_path: Path) -> None:
    from flowstate.overrides import PathError, resolve_trace_files, set_path

    doc = load_toml(ROOT / "scenarios" / "topologies" / "parking-lot-links.toml")
    set_path(doc, "links.hop2.capacity", "1Mbps")
    assert doc["links"][1]["capacity"] == "1Mbps"
    with pytest.raises(PathError, match="no link named 'hop9'"):
        set_path(doc, "links.hop9.capacity", "1Mbps")
    doc["links"][0]["capacity_trace"] = {"file": "x.csv", "format": "csv"}
    doc["parking_lot"] = {"hops": 1, "link": {"capacity_trace": {"file": "y.csv", "format": "csv"}}}
    resolve_trace_files(doc, tmp_path)
    assert doc["links"][0]["capacity_trace"]["file"] == str(tmp_path / "x.csv")
    assert doc["parking_lot"]["link"]["capacity_trace"]["file"] == str(tmp_path / "y.csv")


def test_catalogue_points_know_their_link_names() -> None:
    from flowstate.catalogue.catalogue import Point

    def point(scenario: dict) -> Point:
        return Point(name="p", variant="v", label="", grid={}, dir="", scenario=scenario)

    assert point({"link": {}}).link_names() == ["link", "reverse_link"]
    lot = load_toml(PARKING_LOT)
    assert point(lot).link_names() == ["hop1", "hop2", "hop3"]
    named = load_toml(ROOT / "scenarios" / "topologies" / "moving-bottleneck.toml")
    assert point(named).link_names() == ["access", "core", "edge", "uplink"]
