"""flowstate.catalogue.catalogue: loading, checking and expanding experiment.toml files."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from catalogue_support import BASE, EXPERIMENT, load_error, make_catalogue

from flowstate.catalogue import catalogue
from flowstate.catalogue.catalogue import CatalogueError
from cli_support import flowstate

REPO_CATALOGUE = Path(__file__).resolve().parents[1] / "scenarios"


@pytest.mark.parametrize("exp_id", catalogue.ids(REPO_CATALOGUE))
def test_every_entry_of_the_repository_loads_and_validates(exp_id):
    exp = catalogue.load_id(REPO_CATALOGUE, exp_id)
    assert exp.id == exp_id
    assert exp.point_names(), "an entry without points"
    assert len(exp.points(short=True)) == len(exp.points())
    assert exp.description or exp.title


def test_the_headline_entry_is_there():
    exp = catalogue.load_id(REPO_CATALOGUE, "p000-table5")
    assert exp.paper == "000"
    mechanisms = ["none", "fse-ng", "ext-fse-ng", "fsev2"]
    # The paper-era points, then the same with today's Chromium (chromium-m156 + dcsctp).
    assert exp.point_names() == mechanisms + [f"m156-{m}" for m in mechanisms]
    assert exp.points()[3].scenario["coupling"]["mechanism"] == "fsev2"
    m156 = exp.points()[7].scenario
    assert m156["coupling"]["mechanism"] == "fsev2"
    assert [f.get("preset") for f in m156["flows"]] == ["chromium-m156", "dcsctp"]
    assert len(exp.paper_values) == 24 and len(exp.claims) == 6


def test_find_root_prefers_the_argument_then_the_environment(tmp_path, monkeypatch):
    make_catalogue(tmp_path)
    assert catalogue.find_root(tmp_path) == tmp_path
    monkeypatch.setenv(catalogue.ENV_CATALOGUE, str(tmp_path))
    assert catalogue.find_root() == tmp_path
    monkeypatch.delenv(catalogue.ENV_CATALOGUE)
    assert catalogue.find_root().resolve() == REPO_CATALOGUE
    with pytest.raises(CatalogueError, match="catalogue folder not found"):
        catalogue.find_root(tmp_path / "nope")


GRID = EXPERIMENT.replace(
    "[[paper]]",
    """[[grid]]
name = "cbr"
key = "flows[1].overrides.rate"
values = ["100kbps", "200kbps"]
label = "CBR rate"

[[grid]]
name = "prio"
key = "flows.gcc.priority"
values = [1.0, 0.5]

[[paper]]""",
    1,
).replace('point = "plain"', 'point = "plain[cbr=100kbps,prio=1.0]"').replace(
    "{plain:", "{plain[cbr=100kbps,prio=1.0]:"
).replace("{heavy:", "{heavy[cbr=200kbps,prio=0.5]:").replace('point = "heavy"', 'point = "heavy[cbr=100kbps,prio=0.5]"').replace(
    'kind = "rate"', 'kind = "sweep"\nx = "cbr"\ny = "flows.gcc.share"\n\n[[figures]]\nkind = "bar"\nmetrics = ["derived.gcc_mean"]\npoints = ["plain[cbr=200kbps,prio=0.5]"]'
)


def test_points_expand_variants_times_grid_in_axis_order(tmp_path):
    exp = catalogue.load_id(make_catalogue(tmp_path, GRID), "tiny")
    names = exp.point_names()
    assert names == [
        "plain[cbr=100kbps,prio=1.0]",
        "plain[cbr=100kbps,prio=0.5]",
        "plain[cbr=200kbps,prio=1.0]",
        "plain[cbr=200kbps,prio=0.5]",
        "heavy[cbr=100kbps,prio=1.0]",
        "heavy[cbr=100kbps,prio=0.5]",
        "heavy[cbr=200kbps,prio=1.0]",
        "heavy[cbr=200kbps,prio=0.5]",
    ]
    p = exp.points()[5]
    assert p.dir == "heavy_cbr_100kbps_prio_0.5_"
    assert p.grid == {"cbr": "100kbps", "prio": 0.5}
    assert p.variant == "heavy" and p.label == "heavy CBR"
    # The grid value is applied after the variant's set: it wins over "600kbps".
    assert p.scenario["flows"][1]["overrides"]["rate"] == "100kbps"
    assert p.scenario["flows"][0]["priority"] == 0.5
    assert p.scenario["duration"] == "5s"
    assert exp.points(short=True)[5].scenario["duration"] == "4s"
    assert exp.run_count() == 3 and exp.run_count(short=True) == 2
    assert [a.label for a in exp.grid] == ["CBR rate", "prio"]
    assert exp.figures == [
        {"kind": "sweep", "points": names, "x": "cbr", "y": "flows.gcc.share"},
        {"kind": "bar", "points": ["plain[cbr=200kbps,prio=0.5]"], "metrics": ["derived.gcc_mean"]},
    ]
    assert [c.check.refs[0][0] for c in exp.claims] == ["plain[cbr=100kbps,prio=1.0]"] * 2 + ["heavy[cbr=200kbps,prio=0.5]"]


def test_point_dir():
    assert catalogue.point_dir("fsev2[p_sctp=0.5]") == "fsev2_p_sctp_0.5_"
    assert catalogue.point_dir("none") == "none"


def test_paper_id_from_the_string_key_or_the_experiment_id(tmp_path):
    no_rows = "\n".join(
        line for line in EXPERIMENT.split("[[paper]]")[0].splitlines() if not line.startswith("paper_id")
    )
    rest = "[[derived]]" + EXPERIMENT.split("[[derived]]")[1]
    exp = catalogue.load_id(make_catalogue(tmp_path, 'paper = "002"\n' + no_rows + "\n" + rest), "tiny")
    assert exp.paper == "002" and exp.paper_values == []
    folder = tmp_path / "b"
    make_catalogue(folder, (no_rows + "\n" + rest).replace('id = "tiny"', 'id = "p004-fig3"'), name="p004-fig3")
    assert catalogue.load_id(folder, "p004-fig3").paper == "004"


F = "tiny/experiment.toml"


@pytest.mark.parametrize(
    "old, new, message",
    [
        ('id = "tiny"', 'id = "other"', "id: must be the folder name 'tiny'"),
        ("runs = 3", "runs = 0", "runs: expected an integer in [1, 100000], got 0"),
        ("runs = 3", "runs = 3\ncolour = 1", "colour: unknown key"),
        ('name = "heavy"', 'name = "plain"', "variants[1].name: duplicate variant name 'plain'"),
        ('name = "heavy"', 'name = "Heavy!"', "variants[1].name: must match"),
        ('scenario = "base.toml"\nset', 'scenario = "nope.toml"\nset', "variants[1].scenario: no such file"),
        ('"flows.bg.overrides.rate"', '"flows.video.overrides.rate"', "variants[1].set: flows.video.overrides.rate: no flow named 'video'"),
        ('"flows.bg.overrides.rate"', '"flows[5].priority"', "variants[1].set: flows[5].priority: index 5 is past the end"),
        ('"600kbps"', '"50ms"', "point heavy: flows[1].overrides.rate"),
        ('duration = "4s"', 'duration = "-4s"', "point plain (short): duration"),
        ('point = "plain"', 'point = "fse"', "paper[0].point: unknown point 'fse'"),
        ('metric = "aggregate.utilization"', 'metric = "flows.video.share"', "paper[0].metric: point 'plain' has no flow 'video'"),
        ('metric = "aggregate.utilization"', 'metric = "utilization"', "paper[0].metric: bad metric path"),
        ('metric = "derived.gcc_mean"', 'metric = "derived.nope"', "paper[1].metric: unknown derived metric 'nope'"),
        ("value = 0.9", 'value = "0.9"', "paper[0].value: expected a finite number"),
        ('fn = "mean_rate"', 'fn = "median_rate"', "derived[0].fn: unknown function 'median_rate'"),
        ('from = "1s"', 'from = "1 parsec"', "derived[0].args: mean_rate: from: expected a time"),
        ('flow = "gcc", from', 'flo = "gcc", from', "derived[0].args: mean_rate: unknown argument 'flo'"),
        ('flow = "gcc", from', 'flow = "video", from', "derived[0].args: point 'plain' has no flow 'video'"),
        ("{plain:aggregate.utilization} > 2", "{fse:aggregate.utilization} > 2", "claims[1].check: unknown point 'fse'"),
        ("{plain:aggregate.utilization} > 2", "__import__('os').system('true')", "claims[1].check: "),
        ("{plain:aggregate.utilization} > 2", "{plain:aggregate.utilization} >", "claims[1].check: syntax error"),
        ('kind = "rate"', 'kind = "pie"', "figures[0].kind: unknown kind 'pie'"),
        ('kind = "rate"', 'kind = "rate"\npoints = ["nope"]', "figures[0].points: unknown point 'nope'"),
        ('kind = "rate"', 'kind = "sweep"\nx = "p"\ny = "aggregate.utilization"', "figures[0].x: unknown grid axis 'p'"),
        ('kind = "rate"', 'kind = "bar"', "figures[0].metrics: expected a non-empty array"),
        ("[[claims]]", "[claims]", "line"),
    ],
)
def test_errors_are_one_line_naming_file_and_key(tmp_path, old, new, message):
    assert old in EXPERIMENT
    text = load_error(tmp_path, EXPERIMENT.replace(old, new, 1))
    assert F in text and message in text, text


def test_an_invalid_base_scenario_is_reported_with_the_point(tmp_path):
    make_catalogue(tmp_path, base=BASE.replace('capacity = "1Mbps"', 'capacity = "fast"'))
    with pytest.raises(CatalogueError, match=r"experiment.toml: variants\[0\].scenario: point plain: link.capacity"):
        catalogue.load_id(tmp_path, "tiny")


def test_unknown_id_names_the_known_ones(tmp_path):
    make_catalogue(tmp_path)
    with pytest.raises(CatalogueError, match=r"no experiment 'nope' \(known: tiny\)"):
        catalogue.load_id(tmp_path, "nope")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return flowstate(*args, timeout=120)


def test_cli_errors_exit_2_with_one_line(tmp_path):
    make_catalogue(tmp_path, EXPERIMENT.replace('point = "plain"', 'point = "fse"'))
    for args in (["list"], ["reproduce", "tiny"], ["reproduce", "--all"]):
        r = _cli(*args, "--catalogue", str(tmp_path))
        assert r.returncode == 2, r
        assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
        assert "paper[0].point: unknown point 'fse'" in r.stderr
    r = _cli("reproduce", "--catalogue", str(tmp_path))
    assert r.returncode == 2 and "give at least one experiment id" in r.stderr
    r = _cli("reproduce", "tiny", "--runs", "0", "--catalogue", str(tmp_path))
    assert r.returncode == 2 and r.stderr.count("\n") == 1


def test_cli_list_shows_ids_and_descriptions(tmp_path):
    make_catalogue(tmp_path)
    r = _cli("list", "--catalogue", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "tiny" in r.stdout and "GCC next to 300 kbit/s of CBR" in r.stdout
