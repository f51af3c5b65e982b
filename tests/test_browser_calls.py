"""calls.CallGroup: several calls driven as one; each sample and frame keeps its call
(no browser: the calls are stand-ins)."""

from __future__ import annotations

from pathlib import Path

from flowstate.browser import calls as calls_mod
from flowstate.browser.plan import CallPlan, FlowPlan


class _FakeCall:
    """A ChromiumCall stand-in: records what it is asked, returns canned samples."""

    def __init__(self, *, videos, datas, workdir, field_trials, **_):
        self.videos = {f.name: f for f in videos}
        self.datas = {f.name: f for f in datas}
        self.workdir = Path(workdir)
        self.field_trials = field_trials
        self.asked: list[str] = []
        self.closed = False
        self._shared_playwright = None
        self.browser_pids = {"sender": 1, "receiver": 2}

    def connect(self, timeout_s=30):
        self.asked.append("connect")

    def start_video(self, name):
        self.asked.append(f"start {name}")

    def stats(self):
        t = 100.0 if "a" in self.videos else 50.0
        return [
            {"kind": "transport", "flow": "*", "t_unix_s": t, "available_outgoing_bitrate_bps": 1e6},
            {"kind": "inbound-video", "flow": "*", "mid": "0", "ssrc": 7, "t_unix_s": t},
        ]

    def frames(self):
        return [{"mid": "0", "callback_unix_s": 1.0}]

    def ssrcs(self):
        return {name: 10 + i for i, name in enumerate(self.videos)}

    def close(self):
        self.closed = True


def _group(tmp_path, monkeypatch, groups):
    monkeypatch.setattr(calls_mod, "ChromiumCall", _FakeCall)
    monkeypatch.setattr(calls_mod, "_import_playwright", lambda: lambda: type("P", (), {"start": lambda s: s, "stop": lambda s: None})())
    plans = [CallPlan(g, [FlowPlan(n, "gcc", 1.0, 0.0, 10.0, group=g) for n in names], {}) for g, names in groups]
    return calls_mod.CallGroup(plans, clip=tmp_path / "c.y4m", sender_netns=None, receiver_netns=None,
                               workdir=tmp_path, chromium="c", stats_interval_s=0.2, coupling=None, event_log=False)


def test_two_calls_keep_their_own_flows_targets_and_mids(tmp_path, monkeypatch):
    g = _group(tmp_path, monkeypatch, [("x", ["a"]), ("y", ["b"])])
    g.connect()
    g.start_video("b")
    assert g.calls["y"].asked == ["connect", "start b"] and g.calls["x"].asked == ["connect"]
    assert {k: v.workdir.name for k, v in g.calls.items()} == {"x": "call-x", "y": "call-y"}
    s = g.stats()
    # Oldest first across the calls; each transport sample names its own call's videos.
    assert [x["t_unix_s"] for x in s] == [50.0, 50.0, 100.0, 100.0]
    transport = {x["call"]: x["flows"] for x in s if x["kind"] == "transport"}
    assert transport == {"x": ["a"], "y": ["b"]}
    assert sorted(x["mid"] for x in s if x["kind"] == "inbound-video") == ["x:0", "y:0"]
    assert sorted(f["mid"] for f in g.frames()) == ["x:0", "y:0"]
    assert g.browser_pids == {"x/sender": 1, "x/receiver": 2, "y/sender": 1, "y/receiver": 2}
    g.close()
    assert all(c.closed for c in g.calls.values())


def test_one_call_is_the_call_as_before(tmp_path, monkeypatch):
    g = _group(tmp_path, monkeypatch, [("call", ["a", "b"])])
    g.connect()
    assert g.calls["call"].workdir == tmp_path
    assert [f["mid"] for f in g.frames()] == ["0"]
    assert {x.get("mid") for x in g.stats() if x["kind"] == "inbound-video"} == {"0"}
    assert g.browser_pids == {"sender": 1, "receiver": 2}
