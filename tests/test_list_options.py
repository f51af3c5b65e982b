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
    assert set(d) == {"mechanisms", "gcc_presets", "sctp_presets", "flow_kinds", "overrides", "bounds"}
    assert [m["name"] for m in d["mechanisms"]] == list(_native.MECHANISMS)
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
    for m in d["mechanisms"]:
        assert f" {m['name']} " in out, m["name"]
        for o in m["options"]:
            assert f" {o['name']} " in out, (m["name"], o["name"])
    for p in d["gcc_presets"] + d["sctp_presets"]:
        assert f" {p['name']} " in out, p["name"]
    for k in d["flow_kinds"]:
        assert f" {k['name']} " in out, k["name"]
    for o in d["overrides"]:
        assert f" {o['key']} " in out, o["key"]
        if o["unit"]:
            assert o["unit"] in out
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
    couple_both = [m["name"] for m in d["mechanisms"] if {"rate", "window"} <= {coupled_as[k] for k in m["flow_kinds"]}]
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
    assert " toy-fse " in out.getvalue() and " toy_gain " in out.getvalue() and "1/s" in out.getvalue()
