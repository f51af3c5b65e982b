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
