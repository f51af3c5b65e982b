"""What a scenario file means on the real path: which flows become what, when they
start and stop, the measurement window, the link's capacity over time. Everything a
real run cannot carry is an error naming the field, before any namespace or browser
is made.

- ``gcc`` -> a video track of the Chromium sender page (its ``video_max_rate`` as the
  sender's ``maxBitrate``; GCC's other overrides and presets have no effect on an
  unmodified browser and are reported as ignored);
- ``scream-v2`` -> a video track as ``gcc``, with Chromium's own SCReAM v2 as the call's
  congestion controller and RFC 8888 feedback (the field trials `SCREAM_V2_TRIALS`;
  every packet ECT(1)); its ``max_rate`` is the sender's ``maxBitrate``; SCReAM v2's
  other overrides, its ``ecn`` and a preset have no effect (reported as ignored);
- each ``group`` of the video and data flows (default ``"call"``) -> one call: one
  RTCPeerConnection between its own pair of browsers, with one congestion controller
  and one SCTP association. Two ``gcc`` flows in two groups are two independent GCCs,
  as two ``gcc`` flows are in the simulator. One peer connection has one congestion
  controller, so a ``gcc`` and a ``scream-v2`` flow in one group are an error;
- ``[browser] field_trials`` -> more Chromium field trials for every browser (each
  ``"Name/Group"``; one naming a trial the flows set replaces it);
- ``sctp`` -> a data channel (``source = "greedy"``, or paced at ``desired_rate``);
- ``tcp-cubic`` / ``tcp-newreno`` -> a kernel TCP connection (``cubic`` / ``reno``);
  ``ecn = "ect0"`` -> classic ECN (RFC 3168) negotiated by the kernel
  (``net.ipv4.tcp_ecn = 1`` in the namespaces; every TCP flow of a run shares it, so
  they must agree; ``ect1``, L4S, has no kernel TCP here); on a ``gcc`` or ``sctp``
  flow ``ecn`` has no effect on Chromium (reported as ignored; the flowstate stack
  honours it);
- coupling ``web-api`` (the scenario's ``[coupling] mechanism``, or ``--coupling
  web-api``) -> js/flowstate-coupling in the sender page: the Web-API rule on getStats,
  maxBitrate caps and paced data channels (an unmodified browser; docs/BROWSER.md);
- anything else, another coupling mechanism, or a flow that does not start before the
  end: an error.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from flowstate.errors import FlowstateError
from flowstate.catalogue.derived import DerivedError, parse_rate_mbps, parse_time

REAL_KINDS = ("gcc", "scream-v2", "sctp", "tcp-cubic", "tcp-newreno")
# The flow kinds that become a video track of the sender page.
VIDEO_KINDS = ("gcc", "scream-v2")
# Chromium 156's field trials for SCReAM v2 (docs/BROWSER.md, "L4S: SCReAM v2 in
# Chromium"): RFC 8888 feedback offered and accepted (it also turns on ECN reception),
# and SCReAM v2 as the controller. "mode:always" rather than "Enabled" (SCReAM v2 only
# once RFC 8888 is negotiated): with "Enabled" a call stayed on goog_cc (no ECT(1) at
# all) in 4 of 9 attempts; "mode:always" with RFC 8888 engaged in all 12 runs measured.
RFC8888_TRIAL = ("WebRTC-RFC8888CongestionControlFeedback", "Enabled,offer:true")
SCREAM_V2_TRIAL = ("WebRTC-Bwe-ScreamV2", "mode:always")
SCREAM_V2_TRIALS = (RFC8888_TRIAL, SCREAM_V2_TRIAL)
# A field trial's name as Chromium's --force-fieldtrials reads it: "/" separates the
# names and groups, so neither may hold one; no white space (one command-line switch).
_TRIAL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")
_TRIAL_GROUP = re.compile(r"[^/\s]+")
# Who sends the gcc and sctp flows: real Chromium, or flowstate's testbed endpoints.
STACKS = ("chromium", "flowstate")
# Couplings a real run can apply: none, or the Web-API rule as a web application
# (js/flowstate-coupling) does.
COUPLINGS = ("none", "web-api")
# web-api options, the JS module's config names and the key of the value the simulator's
# reader returns (`_native.web_api_options`); the rest of the options, e.g. `delay`,
# describe the simulation, not the page.
_WEB_API_OPTIONS = {
    "decrease_threshold": ("decreaseThreshold", "decrease_threshold"),
    "encoder_limited_ratio": ("encoderLimitedRatio", "encoder_limited_ratio"),
    "encoder_headroom": ("encoderHeadroom", "encoder_headroom"),
    "min_media_rate": ("minMediaRate", "min_media_rate_bps"),
    "rtt_guard": ("rttGuard", "rtt_guard"),
    "rtt_guard_factor": ("rttGuardFactor", "rtt_guard_factor"),
    "max_growth": ("maxGrowth", "max_growth"),
}
TCP_PORT_BASE = 7000


@dataclass
class FlowPlan:
    """A scenario flow as the real run carries it."""

    name: str
    kind: str  # "gcc" | "scream-v2" | "sctp" | "tcp-cubic" | "tcp-newreno"
    priority: float
    start_s: float
    stop_s: float
    max_rate_bps: Optional[float] = None
    rate_bps: Optional[float] = None  # a data flow's application rate (None: greedy)
    tcp_port: Optional[int] = None
    ecn: str = "off"  # the scenario's ecn: "off" | "ect0" | "ect1"
    group: str = "call"  # the call (peer connection) of a video or data flow

    @property
    def transport(self) -> str:
        if self.kind in VIDEO_KINDS:
            return "video"
        if self.kind == "sctp":
            return "data"
        return "tcp"


class _ByTransport:
    """The video and data flows of a plan's or a call's ``flows``."""

    flows: list[FlowPlan]

    @property
    def videos(self) -> list[FlowPlan]:
        return [f for f in self.flows if f.transport == "video"]

    @property
    def datas(self) -> list[FlowPlan]:
        return [f for f in self.flows if f.transport == "data"]


@dataclass
class CallPlan(_ByTransport):
    """One call: the video and data flows of one ``group``, on one peer connection
    between their own two browsers, and those browsers' field trials."""

    group: str
    flows: list[FlowPlan]
    field_trials: dict[str, str]

    @property
    def force_fieldtrials(self) -> Optional[str]:
        """``--force-fieldtrials``' value for this call's browsers, None without trials."""
        return _force_fieldtrials(self.field_trials)


def _force_fieldtrials(trials: dict[str, str]) -> Optional[str]:
    if not trials:
        return None
    return "".join(f"{name}/{group}/" for name, group in trials.items())


class PlanError(FlowstateError):
    """The scenario cannot run on the real path: one line naming the field."""


@dataclass
class Plan(_ByTransport):
    name: str
    duration_s: float
    window: tuple[float, float]
    flows: list[FlowPlan]
    capacity_mbps: Callable[[float, float], float]
    reverse_delay_s: float
    ignored: list[str]
    #: ``{"intervalMs": ..., "config": {...}}`` when the sender page runs the Web-API
    #: rule (js/flowstate-coupling), None when uncoupled.
    coupling: Optional[dict[str, Any]] = None
    #: Chromium field trials, name -> group: SCReAM v2's where a call has a scream-v2
    #: flow, then the scenario's ``[browser] field_trials`` (every call's).
    field_trials: dict[str, str] = field(default_factory=dict)
    #: The scenario's own ``[browser] field_trials``, given to every call.
    scenario_trials: dict[str, str] = field(default_factory=dict)

    @property
    def calls(self) -> list[CallPlan]:
        """The calls, one per group of video and data flows, in the order of each
        group's first flow; each with SCReAM v2's trials when it has a scream-v2 flow,
        then the scenario's."""
        groups: dict[str, list[FlowPlan]] = {}
        for f in self.flows:
            if f.transport != "tcp":
                groups.setdefault(f.group, []).append(f)
        calls = []
        for group, flows in groups.items():
            trials: dict[str, str] = dict(SCREAM_V2_TRIALS) if any(f.kind == "scream-v2" for f in flows) else {}
            trials.update(self.scenario_trials)
            calls.append(CallPlan(group, flows, trials))
        return calls

    @property
    def scream_v2_videos(self) -> list[FlowPlan]:
        """The video flows under SCReAM v2, whose run must show ECT(1) (ecn_counters.py;
        command.py repeats a run where it did not)."""
        return [f for f in self.flows if f.kind == "scream-v2"]

    @property
    def force_fieldtrials(self) -> Optional[str]:
        """``--force-fieldtrials``' value (``Name/Group/Name2/Group2/``) of every trial
        some call runs with, None without trials (each call's own: `calls`)."""
        return _force_fieldtrials(self.field_trials)

    @property
    def tcps(self) -> list[FlowPlan]:
        return [f for f in self.flows if f.transport == "tcp"]

    @property
    def tcp_ecn(self) -> Optional[int]:
        """``net.ipv4.tcp_ecn`` for the namespaces: 1 (request ECN) when the TCP flows
        are ECN-capable, None (the kernel's default, accept only) otherwise."""
        return 1 if any(f.ecn != "off" for f in self.tcps) else None

    def events(self) -> list[tuple[float, str, FlowPlan]]:
        """(time, "start"/"stop", flow) in time order, stops first on ties."""
        ev = []
        for f in self.flows:
            ev.append((f.start_s, "start", f))
            if f.stop_s < self.duration_s:
                ev.append((f.stop_s, "stop", f))
        return sorted(ev, key=lambda e: (e[0], e[1] != "stop"))


def _mechanism(name: str) -> str:
    """The scenario name of the mechanism written ``name`` (the simulator's reader), or
    ``name`` normalized when it names none."""
    from flowstate import _native

    return _native.scenario_mechanism_name(name) or _native.normalize_name(name)


def _name(value: Any) -> Any:
    """A name (kind, preset, source) as the simulator compares it; other values as they
    are (the simulator's validator has refused them already)."""
    from flowstate import _native

    return _native.normalize_name(value) if isinstance(value, str) else value


def _web_api_plan(options: dict[str, Any]) -> dict[str, Any]:
    """The sender page's coupling: ``{"intervalMs", "config"}`` from the scenario's
    web-api options, read by the simulator's own reader (so both accept and refuse the
    same file); ``config`` holds the options the file gives, under the JS module's names."""
    from flowstate import _native

    try:
        read = _native.web_api_options(options)
    except (_native.FlowstateError, _native.ScenarioError) as e:
        raise PlanError(str(e)) from None
    config: dict[str, Any] = {}
    for k in options:
        if k in _WEB_API_OPTIONS:
            js_name, key = _WEB_API_OPTIONS[k]
            config[js_name] = read[key]  # type: ignore[literal-required]
    return {"intervalMs": round(read["interval_s"] * 1000), "config": config}


def _time(value: Any, where: str) -> float:
    try:
        return parse_time(value)
    except DerivedError as e:
        raise PlanError(f"{where}: {e}") from None


def _rate_bps(value: Any, where: str) -> float:
    try:
        return parse_rate_mbps(value) * 1e6
    except DerivedError as e:
        raise PlanError(f"{where}: {e}") from None


class LinkCapacity:
    """The forward link's mean capacity (Mbit/s) over an interval, from the
    simulator's own integral of it (``_native.link_capacity_bits``: rate schedules,
    looping traces and Mahimahi delivery opportunities alike). Intervals asked for
    together are computed in one native call and kept."""

    def __init__(self, text: str, file: str) -> None:
        self.text, self.file = text, file
        self._known: dict[tuple[float, float], float] = {}

    def prepare(self, edges: list[float]) -> None:
        """Compute every interval between consecutive ``edges`` at once."""
        from flowstate import _native

        bits = _native.link_capacity_bits(self.text, self.file, edges)
        for a, b, x in zip(edges, edges[1:], bits):
            self._known[(a, b)] = x / (b - a) / 1e6 if b > a else 0.0

    def __call__(self, a: float, b: float) -> float:
        if (a, b) not in self._known:
            self.prepare([a, b])
        return self._known[(a, b)]


def _toml(doc: dict[str, Any]) -> str:
    from flowstate import _native

    return _native.scenario_toml(doc)


def _expand(flows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``count = N`` copies named {name}1 .. {name}N, as the simulator expands them."""
    out = []
    for f in flows:
        n = int(f.get("count", 1))
        if n == 1:
            out.append(f)
        else:
            out.extend({**f, "name": f"{f['name']}{i}", "count": 1} for i in range(1, n + 1))
    return out


def make_plan(
    doc: dict[str, Any],
    *,
    duration: Optional[float] = None,
    text: Optional[str] = None,
    file: str = "<dict>",
    coupling: Optional[str] = None,
) -> Plan:
    """The plan of a scenario already checked by the simulator's validator (``text``:
    its TOML as read, ``file`` its name, for the link's capacity; a dict without them
    is turned into TOML). ``coupling`` (``--coupling``) replaces the scenario's
    ``[coupling] mechanism``."""
    full = _time(doc.get("duration"), "duration")
    if duration is not None:
        if not (math.isfinite(duration) and duration > 0):
            raise PlanError(f"--duration: expected seconds > 0, got {duration}")
    dur = min(full, duration) if duration is not None else full
    coupling_doc = doc.get("coupling") or {}
    written = str(coupling if coupling is not None else coupling_doc.get("mechanism", "none"))
    # Names as the simulator reads them (any case, `_` or `-`: flowstate_core::names).
    mechanism = _mechanism(written)
    where_mech = "--coupling" if coupling is not None else "coupling.mechanism"
    if mechanism not in COUPLINGS:
        raise PlanError(
            f"{where_mech}: an unmodified browser has no coupling inside; 'none' or 'web-api' "
            f"(js/flowstate-coupling in the page) run here, got '{written}'"
        )
    coupling_plan = None
    if mechanism == "web-api":
        in_file = _mechanism(str(coupling_doc.get("mechanism", "none"))) == "web-api"
        options = dict(coupling_doc.get("options") or {}) if in_file else {}
        coupling_plan = _web_api_plan(options)
    measure = doc.get("measure") or {}
    w0 = _time(measure.get("start", 0), "measure.start")
    w1 = min(_time(measure.get("end", full), "measure.end"), dur)
    if w1 <= w0:
        raise PlanError(
            f"measure: the window {w0:g}-{_time(measure.get('end', full), 'measure.end'):g} s "
            f"is empty in a run of {dur:g} s (use a longer --duration)"
        )
    ignored: list[str] = []
    flows: list[FlowPlan] = []
    for i, f in enumerate(_expand(list(doc.get("flows") or []))):
        name, kind = f.get("name", f"flow{i}"), _name(f.get("kind"))
        where = f"flows.{name}"
        if kind not in REAL_KINDS:
            raise PlanError(f"{where}.kind: '{kind}' has no real counterpart here (one of: {', '.join(REAL_KINDS)})")
        start = _time(f.get("start", 0), f"{where}.start")
        stop = min(_time(f.get("stop", full), f"{where}.stop"), dur)
        if start >= dur:
            raise PlanError(f"{where}.start: {start:g} s is not before the end of the run ({dur:g} s)")
        plan = FlowPlan(name=name, kind=kind, priority=float(f.get("priority", 1.0)), start_s=start, stop_s=stop)
        plan.group = str(f.get("group") or "call")
        plan.ecn = str(_name(f.get("ecn", "off")))
        overrides = dict(f.get("overrides") or {})
        if kind == "scream-v2":
            written_ecn = plan.ecn if "ecn" in f else "ect1"
            # Chromium sends ECT(1) whenever SCReAM v2 runs with RFC 8888.
            plan.ecn = "ect1"
            if written_ecn != "ect1":
                ignored.append(f"{where}.ecn")
            if "max_rate" in overrides:
                plan.max_rate_bps = _rate_bps(overrides.pop("max_rate"), f"{where}.overrides.max_rate")
            else:
                plan.max_rate_bps = 2.5e6  # the simulator's default (docs/SCENARIOS.md)
            if f.get("preset") is not None:
                ignored.append(f"{where}.preset")
        elif kind == "gcc":
            if "video_max_rate" in overrides:
                plan.max_rate_bps = _rate_bps(overrides.pop("video_max_rate"), f"{where}.overrides.video_max_rate")
            else:
                plan.max_rate_bps = 2.5e6  # the simulator's default (docs/SCENARIOS.md)
            if f.get("preset") is not None and _name(f["preset"]) != "chromium":
                ignored.append(f"{where}.preset")
        elif kind == "sctp":
            source = f.get("source", "greedy")
            if _name(source) != "greedy":
                raise PlanError(f"{where}.source: only 'greedy' (or a desired_rate) runs in the browser, got '{source}'")
            if f.get("desired_rate") is not None:
                plan.rate_bps = _rate_bps(f["desired_rate"], f"{where}.desired_rate")
        else:
            if plan.ecn == "ect1":
                raise PlanError(
                    f"{where}.ecn: kernel TCP sends classic ECN, ECT(0) (RFC 3168); 'ect1' (L4S) needs a "
                    "TCP this kernel does not have: use 'ect0' or 'off'"
                )
            other = next((x for x in flows if x.transport == "tcp" and x.ecn != plan.ecn), None)
            if other is not None:
                raise PlanError(
                    f"{where}.ecn: every kernel TCP flow shares its namespace's net.ipv4.tcp_ecn, so all must "
                    f"have the same ecn ('{plan.ecn}' here, '{other.ecn}' on flows.{other.name})"
                )
            source = f.get("source", "greedy")
            if _name(source) != "greedy":
                raise PlanError(f"{where}.source: kernel TCP flows are greedy only, got '{source}'")
            plan.tcp_port = TCP_PORT_BASE + len([x for x in flows if x.transport == "tcp"])
        ignored += [f"{where}.overrides.{k}" for k in overrides]
        if plan.transport != "tcp" and plan.kind != "scream-v2" and plan.ecn != "off":
            ignored.append(f"{where}.ecn")
        flows.append(plan)
    if not flows:
        raise PlanError("flows: no flow to run")
    trials, own_trials = _field_trials(flows, doc.get("browser") or {})
    if "links" in doc or "parking_lot" in doc:
        # Named links: one bottleneck per direction, or a one-line error naming the field.
        from flowstate import _native

        try:
            _, reverse_delay = _native.bottleneck_delays(text if text is not None else _toml(doc), file)
        except _native.ScenarioError as e:
            # The caller names the file: the field and the message only.
            raise PlanError(str(e).removeprefix(f"{file}: ")) from None
    else:
        link = doc.get("link") or {}
        reverse = doc.get("reverse_link") or {}
        if "delay" not in reverse and "capacity_trace" in link and "delay" not in link:
            raise PlanError("link.capacity_trace: the reverse delay of a trace with per-segment rtt is not known here; give reverse_link.delay")
        reverse_delay = _time(reverse.get("delay", link.get("delay", 0)), "reverse_link.delay")
    return Plan(
        name=str(doc.get("name", "scenario")),
        duration_s=dur,
        window=(w0, w1),
        flows=flows,
        capacity_mbps=LinkCapacity(text if text is not None else _toml(doc), file),
        reverse_delay_s=reverse_delay,
        ignored=ignored,
        coupling=coupling_plan,
        field_trials=trials,
        scenario_trials=own_trials,
    )


def _field_trials(flows: list[FlowPlan], browser: dict[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    """Every trial some call runs with (SCReAM v2's where a call has a scream-v2 flow,
    then the scenario's own, which replace a trial of the same name), and the scenario's
    own. A ``gcc`` and a ``scream-v2`` flow in one group are an error: they would share
    the call's one peer connection, whose one congestion controller cannot be both."""
    trials: dict[str, str] = {}
    for group in dict.fromkeys(f.group for f in flows if f.transport == "video"):
        kinds = {f.kind: f for f in flows if f.transport == "video" and f.group == group}
        if "gcc" in kinds and "scream-v2" in kinds:
            raise PlanError(
                f"flows.{kinds['scream-v2'].name}.kind: 'scream-v2' and flows.{kinds['gcc'].name} ('gcc') would share "
                f"the call '{group}' (one peer connection, one congestion controller); give them different groups "
                f"(flows.{kinds['scream-v2'].name}.group = \"l4s\"): two calls on the same path"
            )
        if "scream-v2" in kinds:
            trials.update(SCREAM_V2_TRIALS)
    written = browser.get("field_trials") or []
    own: dict[str, str] = {}
    for i, trial in enumerate(written):
        where = f"browser.field_trials[{i}]"
        name, slash, group = str(trial).partition("/")
        if not (slash and _TRIAL_NAME.fullmatch(name) and _TRIAL_GROUP.fullmatch(group)):
            raise PlanError(
                f"{where}: expected \"Name/Group\" (one '/', no white space; e.g. "
                f"\"WebRTC-Bwe-ScreamV2/Enabled,MinRefWindow:100\"), got {str(trial)!r}"
            )
        if name in own:
            raise PlanError(f"{where}: the trial {name} is already given ({name}/{own[name]}); give each trial once")
        own[name] = group
    trials.update(own)
    return trials, own
