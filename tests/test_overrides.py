"""flowstate.overrides: setting scenario values by path."""

import pytest

from flowstate.overrides import PathError, parse_path, set_path, with_overrides


def scenario():
    return {
        "name": "x",
        "link": {"capacity": "2Mbps"},
        "flows": [{"name": "gcc", "kind": "gcc"}, {"name": "sctp", "kind": "sctp"}],
    }


def test_parse_path():
    assert parse_path("flows[1].overrides.mtu") == ["flows", 1, "overrides", "mtu"]
    assert parse_path("duration") == ["duration"]
    with pytest.raises(PathError):
        parse_path("flows[x]")
    with pytest.raises(PathError):
        parse_path("")


def test_set_by_index_name_and_creating_tables():
    s = scenario()
    set_path(s, "flows[1].priority", 0.5)
    set_path(s, "flows.gcc.overrides.video_max_rate", "2Mbps")
    set_path(s, "coupling.options.cwnd_rtt", "minimum")
    set_path(s, "link.capacity", "3Mbps")
    assert s["flows"][1]["priority"] == 0.5
    assert s["flows"][0]["overrides"] == {"video_max_rate": "2Mbps"}
    assert s["coupling"] == {"options": {"cwnd_rtt": "minimum"}}
    assert s["link"]["capacity"] == "3Mbps"


def test_errors_name_the_path():
    s = scenario()
    with pytest.raises(PathError, match="flows.video.priority: no flow named 'video'"):
        set_path(s, "flows.video.priority", 1)
    with pytest.raises(PathError, match="index 5 is past the end"):
        set_path(s, "flows[5].priority", 1)
    with pytest.raises(PathError, match="not inside a table"):
        set_path(s, "name.x", 1)


def test_with_overrides_copies():
    s = scenario()
    t = with_overrides(s, {"flows[0].priority": 2.0})
    assert "priority" not in s["flows"][0]
    assert t["flows"][0]["priority"] == 2.0


def test_remove_a_key_a_flow_or_an_element():
    from flowstate.overrides import remove_path

    s = scenario()
    remove_path(s, "link.capacity")
    remove_path(s, "flows.gcc")
    assert s["link"] == {} and [f["name"] for f in s["flows"]] == ["sctp"]
    remove_path(s, "flows[0]")
    assert s["flows"] == []


def test_removing_nothing_is_an_error_naming_the_path():
    from flowstate.overrides import remove_path

    s = scenario()
    with pytest.raises(PathError, match=r"^link.capcity: 'capcity' is not there to remove \(keys: capacity\)$"):
        remove_path(s, "link.capcity")
    with pytest.raises(PathError, match="flows.video: no flow named 'video'"):
        remove_path(s, "flows.video")
    with pytest.raises(PathError, match="coupling.mechanism: 'coupling' is missing"):
        remove_path(s, "coupling.mechanism")
    with pytest.raises(PathError, match="index 2 is past the end"):
        remove_path(s, "flows[2]")
    assert s == scenario()


def test_with_changes_removes_then_sets_and_reads_new_trace_files_from_the_current_folder(tmp_path, monkeypatch):
    from flowstate.overrides import with_changes

    monkeypatch.chdir(tmp_path)
    s = scenario()
    s["reverse_link"] = {"capacity_trace": {"file": "/abs/r.csv"}}
    t = with_changes(s, {"link.capacity": "1Mbps", "link.capacity_trace": {"file": "t.csv"}}, ["link.capacity"])
    assert t["link"] == {"capacity": "1Mbps", "capacity_trace": {"file": str(tmp_path / "t.csv")}}
    assert t["reverse_link"]["capacity_trace"]["file"] == "/abs/r.csv" and s == {**scenario(), "reverse_link": s["reverse_link"]}
    assert with_changes(s, {"link.capacity_trace.file": "u.csv"}, (), "/else")["link"]["capacity_trace"]["file"] == "/else/u.csv"
