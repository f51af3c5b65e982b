"""`flowstate list-options` and the demo read the one definition the native module exports
(`_native.definitions()`): every mechanism, option, preset, flow kind and override
is printed, `--json` is the export itself, and no mechanism list is copied in Python."""

import json
import subprocess
import sys

from flowstate import _native
from flowstate.cli import demo


def flowstate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flowstate", *args], capture_output=True, text=True)


def test_the_export_has_the_contract_shape():
    d = _native.definitions()
    assert set(d) == {"mechanisms", "gcc_presets", "sctp_presets", "flow_kinds", "ecn", "overrides", "bounds"}
    assert [(e["name"], e["codepoint"]) for e in d["ecn"]] == [("off", "not-ect"), ("ect0", "ect0"), ("ect1", "ect1")]
    # Every coupling manager, then the simulator's web-api mode, which `run` accepts too.
    assert [m["name"] for m in d["mechanisms"]] == [*_native.MECHANISMS, "web-api"]
    assert [m["manager"] for m in d["mechanisms"]] == [True] * len(_native.MECHANISMS) + [False]
    web_api = d["mechanisms"][-1]
    assert [o["name"] for o in web_api["options"]][:3] == ["interval", "delay", "rate_window"]
    assert web_api["options"][0]["default"] == '"150ms"' 
    assert [k["name"] for k in d["flow_kinds"]] == list(_native.FLOW_KINDS)
    for m in d["mechanisms"]:
        assert {"name", "display_name", "description", "source", "flow_kinds", "options"} <= set(m)
        for o in m["options"]:
            assert {"name", "default", "unit", "description"} <= set(o)
    for o in d["overrides"]:
        assert {"key", "applies_to", "default", "unit", "description"} <= set(o)
    assert d["gcc_presets"] and d["sctp_presets"] and d["overrides"]


def test_list_options_prints_everything_the_export_has():
    d = _native.definitions()
    r = flowstate("list-options")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    # Into a pipe: tab-separated lines, one per row, never wrapped or boxed.
    assert "│" not in out and "━" not in out
    rows = [line.split("\t") for line in out.splitlines() if line and not line.startswith("# ")]
    first = {row[0] for row in rows}
    cells = {cell for row in rows for cell in row}
    for m in d["mechanisms"]:
        assert m["name"] in first, m["name"]
        for o in m["options"]:
            assert [m["name"], o["name"]] in [row[:2] for row in rows], (m["name"], o["name"])
    for p in d["gcc_presets"] + d["sctp_presets"]:
        assert p["name"] in first, p["name"]
    for k in d["flow_kinds"]:
        assert k["name"] in first, k["name"]
        assert (k["default_group"] or "-") in cells
    for o in d["overrides"]:
        assert o["key"] in first, o["key"]
        if o["unit"]:
            assert o["unit"] in cells
    # Every row has its table's column count: no cell was split over lines.
    for block in out.strip().split("\n\n"):
        lines = block.splitlines()[1:]
        assert len({len(line.split("\t")) for line in lines}) == 1, lines[:3]
    assert f"{len(d['mechanisms'])} coupling mechanisms" in out
    assert f"{len(d['overrides'])} flow overrides" in out
    for b in d["bounds"]:
        assert b["field"] in out, b["field"]
    assert f"{len(d['bounds'])} bounds" in out


def test_the_bounds_are_exported_with_their_limits():
    bounds = {b["field"]: b for b in _native.definitions()["bounds"]}
    assert bounds["sbd.base_interval"]["limit"] == "10 ms ..= 60 s"
    assert bounds["sbd.n"]["limit"] == "1 ..= 10000"
    assert all(b["limit"] and b["why"] for b in bounds.values())


def test_list_options_json_is_the_export():
    r = flowstate("list-options", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == json.loads(json.dumps(_native.definitions()))


def test_the_demo_mechanisms_come_from_the_export():
    # The demo shows the mechanisms that couple media (rate) and data (window) flows.
    d = _native.definitions()
    coupled_as = {k["name"]: k["coupling"] for k in d["flow_kinds"]}
    couple_both = [
        m["name"] for m in d["mechanisms"] if m["manager"] and {"rate", "window"} <= {coupled_as[k] for k in m["flow_kinds"]}
    ]
    assert demo.WINDOW_MECHANISMS == tuple(n for n in couple_both if n != demo.UNCOUPLED)
    assert demo.WINDOW_MECHANISMS == ("fse-ng", "ext-fse-ng", "fsev2")
    r = flowstate("demo", "--mechanism", "fse")
    assert r.returncode == 2 and "expected one of fse-ng, ext-fse-ng, fsev2" in r.stderr


def test_a_mechanism_added_to_the_export_is_listed_and_demoed(monkeypatch):
    # Nothing is copied in Python: a mechanism the bindings add shows up in list-options
    # and, if it couples rate and window flows, in the demo.
    import io

    from flowstate.cli import list_options

    real = _native.definitions()
    toy = {"name": "toy-fse", "display_name": "Toy FSE", "description": "a new one", "source": "nowhere",
           "flow_kinds": ["gcc", "sctp"], "options": [{"name": "toy_gain", "default": 0.5, "unit": "1/s",
                                                        "description": "a gain"}]}
    monkeypatch.setattr(_native, "definitions", lambda: {**real, "mechanisms": [*real["mechanisms"], toy]})
    assert demo._media_and_data_mechanisms()[-1] == "toy-fse"
    out = io.StringIO()
    list_options.main(stdout=out)
    rows = [line.split("\t") for line in out.getvalue().splitlines()]
    assert ["toy-fse", "Toy FSE"] in [row[:2] for row in rows]
    assert ["toy-fse", "toy_gain", "0.5", "1/s", "a gain"] in rows


def test_list_is_plain_into_a_pipe_and_json_on_request():
    from flowstate.catalogue import catalogue

    entries = catalogue.load_all(catalogue.find_root(None))
    r = flowstate("list")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == f"# {len(entries)} experiments"
    assert lines[1].split("\t")[:2] == ["id", "paper (docs/REFERENCES.md)"]
    assert [line.split("\t")[0] for line in lines[2:]] == [e.id for e in entries]
    r = flowstate("list", "--json")
    assert r.returncode == 0, r.stderr
    listed = json.loads(r.stdout)
    assert [e["id"] for e in listed] == [e.id for e in entries]
    assert listed[0]["points"] == list(entries[0].point_names())
    assert {"id", "paper", "reference", "title", "description", "points", "runs", "file"} <= set(listed[0])
