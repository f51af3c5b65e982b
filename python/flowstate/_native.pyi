"""Type stubs of the native extension (flowstate-py, PyO3)."""

from typing import Any, Callable, Literal, Mapping, Optional, Sequence, TypedDict, Union
from typing_extensions import NotRequired

__version__: str
MECHANISMS: list[str]

FLOW_KINDS: list[str]

class FlowstateError(ValueError):
    """Bad input, reported as one line naming what is wrong: the base of every
    user-facing error of flowstate (CouplingError, ScenarioError and the Python
    package's own, flowstate.errors), so that a front end can tell bad input from a bug."""

class CouplingError(FlowstateError):
    """Bad input to a coupling manager (invalid priority or rate, unknown flow, ...)."""

class ScenarioError(FlowstateError):
    """A scenario that cannot be run: invalid TOML, an unknown key, a missing field, an
    impossible value, or a flow kind / coupling mechanism the simulator cannot build.
    The message is one line naming the file (or ``<dict>``) and the field."""

class ControllerError(FlowstateError):
    """A python or onnx flow's controller cannot be used: its module or class cannot be
    found, or it returned something that is not a rate. One line naming the flow, the
    controller and the fix."""

class CouplingRuleError(FlowstateError):
    """A coupling rule written in Python cannot be used: its module or class cannot be
    found, or it returned something that is not a set of allowances. One line naming
    the rule and the fix."""

class CoupledFlow:
    """One flow of a group as a coupling rule's hooks receive it: rates in bit/s, sizes
    in bytes, times in s; fields of the other kind of flow are None."""
    @property
    def id(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def priority(self) -> float: ...
    @property
    def desired_rate_bps(self) -> float | None: ...
    @property
    def allocated_bps(self) -> float: ...
    @property
    def rate_bps(self) -> float | None: ...
    @property
    def cwnd_bytes(self) -> int | None: ...
    @property
    def ssthresh_bytes(self) -> int | None: ...
    @property
    def mtu_bytes(self) -> int | None: ...
    @property
    def rtt_s(self) -> float | None: ...

class Feedback:
    """One feedback report of a python / onnx flow, as ``on_feedback`` receives it:
    per-packet lists of equal length (sequence order), times in s, sizes in bytes, rates
    in bit/s."""

    now_s: float
    report_time_s: float
    seq: list[int]
    send_time_s: list[float]
    arrival_time_s: list[float]  # NaN: lost
    size_bytes: list[int]
    lost: list[bool]
    ecn: list[int]  # 0 not-ECT, 1 ECT(1), 2 ECT(0), 3 CE
    rtt_s: Optional[float]
    target_bps: float
    allowance_bps: Optional[float]
    def __len__(self) -> int: ...

class Simulation:
    """A run advanced in steps (flowstate.gym): flow ``agent`` (a python / onnx flow) is
    driven from Python."""

    def __init__(self, text: str, file: str, agent: int, *, seed: Optional[int] = None, base_dir: Optional[str] = None) -> None: ...
    def run_until(self, t_s: float) -> bool:
        """Process the events before ``t_s``; True while the run has not reached its duration."""
    def take_feedback(self) -> list[Feedback]:
        """The agent flow's reports since the last call, oldest first."""
    def set_rate(self, target_bps: float, pacing_bps: Optional[float] = None) -> None:
        """The agent flow's next target (and pacing) rate; ControllerError if not a finite rate >= 0."""
    @property
    def now_s(self) -> float: ...
    @property
    def duration_s(self) -> float: ...
    def finish(self) -> RawRun:
        """End the run where it is: its results as one run of :func:`simulate`."""

class SeriesColumns(TypedDict):
    time_s: list[float]
    flow: list[str]
    send_rate_mbps: list[float]
    throughput_mbps: list[float]
    goodput_mbps: list[float]
    queuing_delay_ms: list[Optional[float]]
    rtt_ms: list[Optional[float]]
    sent_packets: list[int]
    lost_packets: list[int]
    capacity_mbps: list[float]
    target_mbps: list[Optional[float]]
    group: list[Optional[str]]  # the flow's coupling group (None: not coupled)

class LinkSeriesColumns(TypedDict):
    time_s: list[float]
    link: list[str]
    throughput_mbps: list[float]
    capacity_mbps: list[float]
    utilization: list[float]
    queuing_delay_ms: list[Optional[float]]
    max_queue_bytes: list[int]
    arrived_packets: list[int]
    dropped_packets: list[int]
    lost_packets: list[int]

class RawRun(TypedDict):
    seed: int
    summary_json: str
    series: SeriesColumns
    link_series: LinkSeriesColumns
    trace_hash: int | None
    events: int
    # With simulate(series_text=True): the rows of timeseries.csv / links.csv without
    # their run,seed cells, as csv.writer writes them.
    series_text: NotRequired[str]
    link_series_text: NotRequired[str]

class OptionDefinition(TypedDict):
    name: str
    default: Optional[Union[bool, float, str]]
    unit: Optional[str]
    description: str

class MechanismDefinition(TypedDict):
    name: str
    display_name: str
    description: str
    source: str
    flow_kinds: list[str]
    options: list[OptionDefinition]
    manager: bool  # False: the simulator's web-api mode, not a coupling manager

class PresetDefinition(TypedDict):
    name: str
    description: str

class FlowKindDefinition(TypedDict):
    name: str
    description: str
    coupling: Optional[Literal["rate", "window"]]
    default_group: Optional[str]

class EcnDefinition(TypedDict):
    name: str
    codepoint: str
    description: str

OverrideDefinition = TypedDict(
    "OverrideDefinition",
    {
        "key": str,
        "applies_to": list[str],
        "default": Optional[str],
        "unit": Optional[str],
        "description": str,
    },
)

class BoundDefinition(TypedDict):
    field: str
    limit: str
    why: str

class Definitions(TypedDict):
    mechanisms: list[MechanismDefinition]
    gcc_presets: list[PresetDefinition]
    sctp_presets: list[PresetDefinition]
    flow_kinds: list[FlowKindDefinition]
    ecn: list[EcnDefinition]
    overrides: list[OverrideDefinition]
    bounds: list[BoundDefinition]

def definitions() -> Definitions:
    """Everything a scenario can name, from the one definition of each (flowstate-core's
    mechanism catalogue and GCC presets, flowstate-sim's flow kinds and overrides).

    - ``mechanisms``: coupling mechanisms in ``MECHANISMS`` order; ``flow_kinds`` are the
      scenario flow kinds it couples; each option with its default (None: unset), unit
      (None: flags, choices, plain numbers) and description.
    - ``gcc_presets``, ``sctp_presets``: the values of a ``gcc`` / ``sctp`` flow's
      ``preset``.
    - ``flow_kinds``: the values of a flow's ``kind``; ``coupling`` is how a coupling
      manager sees the flow (None: never coupled).
    - ``ecn``: the values of a flow's ``ecn`` (every kind takes it), the ECN codepoint
      each puts on the flow's data packets and what it does.
    - ``overrides``: the keys of a flow's ``overrides`` table (``key`` as written in the
      flow, ``"overrides.start_rate"``), the flow kinds that take it, the default as text
      in ``unit`` (``"paper: 1.5, paper-static: 1.5, chromium: 1.1"`` when it depends on
      the preset, ``-`` where it does not apply; None: required) and the description.
    - ``bounds``: every input that sizes a run's work or memory (``field``), its
      ``limit`` as scenario files write it and ``why`` (docs/SCENARIOS.md, "Bounds").
    """

class WebApiOptions(TypedDict):
    interval_s: float
    delay_s: float
    rate_window_s: float
    decrease_threshold: float
    encoder_limited_ratio: float
    encoder_headroom: float
    min_media_rate_bps: float
    rtt_guard: Optional[float]
    rtt_guard_factor: float
    max_growth: Optional[float]

def web_api_options(options: Mapping[str, Any]) -> WebApiOptions:
    """``[coupling] options`` of the ``web-api`` mechanism read by the simulator's own
    reader (defaults filled in; ``rtt_guard`` / ``max_growth`` None when off), so that
    the browser and the simulator accept and refuse the same file; FlowstateError with
    a one-line message naming the option (``coupling.options.interval: ...``)."""

def normalize_name(name: str) -> str:
    """A name as every name a scenario writes (mechanism, groups mode, flow kind, preset,
    source, trace format) is compared: trimmed, lower case, ``_`` and spaces read as
    ``-``."""

def scenario_mechanism_name(name: str) -> Optional[str]:
    """The scenario name of a coupling mechanism in any accepted spelling, the
    simulator's ``web-api`` included (``"WEB_API"`` -> ``"web-api"``), or None."""

def freezes(render_times_s: list[float]) -> dict[str, Any]:
    """The W3C webrtc-stats freeze and pause figures of a series of render times
    (seconds, in order): ``frames``, ``freezes``, ``freeze_duration_s``, ``pauses``,
    ``pause_duration_s``. Raises FlowstateError for a negative, non-finite or
    out-of-order time."""

def mechanism_name(name: str) -> Optional[str]:
    """The canonical name (``"fsev2"``) of a coupling mechanism written in any accepted
    spelling (``"FSEv2"``, ``"fse_ng"``, ``"None"``), or None."""

def parse_rate_bps(text: str) -> float:
    """A bit rate with its unit in bit/s, read as scenario files read it (``b`` = bit,
    ``B`` = byte: ``"2MBps"`` is 16e6); FlowstateError with a one-line message."""

def parse_time_s(text: str) -> float:
    """A time (``"50ms"``, ``"2min"``, a bare number of seconds) in seconds, read as
    scenario files read it; FlowstateError with a one-line message."""

def scenario_toml(scenario: Mapping[str, Any]) -> str:
    """The TOML text of a scenario dict (None values are left out)."""

class ScenarioCoupling(TypedDict):
    mechanism: str
    groups_mode: Literal["static", "sbd"]
    groups: dict[str, Optional[str]]

def scenario_coupling(text: str, file: str) -> ScenarioCoupling:
    """Which flows the scenario couples, as the simulator reads it (flows with ``count``
    expanded; None: not coupled). Raises ScenarioError if it does not parse."""

def validate_scenario(text: str, file: str, *, base_dir: Optional[str] = None) -> None:
    """Checks the scenario ``text`` without running it: parse, validation and the run's
    construction (flows, overrides, coupling mechanism and options); raises
    ScenarioError with the one-line message the run would give (naming ``file`` and
    the field)."""

def check_scenario(scenario: Mapping[str, Any], file: str = "<dict>") -> None:
    """:func:`validate_scenario` of a scenario dict."""

def bottleneck_delays(text: str, file: str) -> tuple[float, float]:
    """One-way delays (forward, reverse) in seconds of the scenario's one bottleneck per
    direction; ScenarioError (one line naming the field) for several bottlenecks."""
    ...

def summary_template(flows: Sequence[str]) -> str:
    """The summary.json (JSON text) of a run with flows named ``flows`` and nothing
    measured: every field of the contract, numbers 0 and optional ones null."""

def simulate(
    text: str,
    file: str,
    *,
    seed: Optional[int] = None,
    runs: int = 1,
    threads: Optional[int] = None,
    progress: Optional[Callable[[int, int], Any]] = None,
    series_text: bool = False,
    base_dir: Optional[str] = None,
) -> list[RawRun]:
    """Runs the scenario ``text`` for seeds ``seed .. seed + runs - 1`` on ``threads``
    threads with the GIL released; one dict per run, in seed order. ``series_text``:
    also render each run's CSV rows on the workers (``series_text``,
    ``link_series_text``). A scenario with python / onnx flows runs its seeds one after
    the other on this thread with the GIL (``base_dir``: where their relative files are
    read from)."""

def json_dumps_indent2(document: Any, *, allow_nan: bool = True) -> str:
    """``json.dumps(document, indent=2, allow_nan=allow_nan)``, byte for byte;
    TypeError for what it would write differently (flowstate.json_text falls back)."""

def csv_rows_text(columns: list[list[Any]]) -> str:
    """The rows ``zip(*columns)`` as csv.writer writes them (each ending in a newline);
    TypeError for a cell it would quote or pass through a subclass's ``str()``, and for
    columns of different lengths."""

def testbed(
    text: str,
    file: str,
    *,
    seed: Optional[int] = None,
    duration: Optional[float] = None,
    direct: bool = False,
    netns: Optional[tuple[tuple[str, str], tuple[str, str]]] = None,
) -> dict[str, Any]:
    """Runs the scenario ``text`` in real time over UDP sockets (crates/flowstate-testbed)
    in a worker thread with the GIL released; Ctrl-C stops it early. The dict has the
    keys of a ``simulate`` run plus ``interrupted``, ``sender_pcap``, ``receiver_pcap``,
    ``sender``, ``receiver``, ``bottleneck``, ``bottleneck_records`` (the emulator's
    per-packet records per direction, as columns: arrival, departures, queuing delay,
    ECN codepoint, CE mark, size) and ``sctp``. ``netns = ((sender_ns,
    sender_ip), (receiver_ns, receiver_ip))`` binds each side in a network namespace
    and uses the host's path between them instead of the emulator."""

class Allocation:
    """One flow's share after an update."""

    @property
    def flow(self) -> int: ...
    @property
    def rate_bps(self) -> float:
        """The rate the manager assigned (FSE_R), bit/s."""
    @property
    def kind(self) -> Literal["rate", "window", "max_window"]:
        """What the flow's controller must apply."""
    @property
    def cwnd(self) -> Optional[int]:
        """For kind "window": the cwnd to set, bytes (whole MTUs, at least one)."""
    @property
    def ssthresh(self) -> Optional[int]:
        """For kind "window": the ssthresh to set with it, bytes (None: leave it)."""
    @property
    def max_cwnd(self) -> Optional[int]:
        """For kind "max_window": the cwnd cap, bytes (None: no cap)."""

class FlowInfo(TypedDict):
    id: int
    kind: Literal["rate", "window"]
    priority: float
    desired_rate_bps: Optional[float]
    allocated_rate_bps: float

class CouplingManager:
    """A coupling manager of the Flow State Exchange family.

    ``mechanism`` is one of ``MECHANISMS`` (``"none"``: uncoupled, updates return no
    allocations), in any case or as the tool prints it (``"FSEv2"``, ``"FSE-NG"``);
    a priority must be in [1e-6, 1e6] and ids, groups and byte counts in
    [0, 2**64 - 1] (CouplingError otherwise); mechanism options are keyword arguments
    (e.g. ``count_change_twice=False`` for ``fse-ng``, ``rate_priority_boost=1.1`` for
    ``fsev2``); see docs/ALGORITHMS.md for every option.
    """

    def __init__(
        self,
        mechanism: str,
        *,
        deregister_policy: Literal["keep", "subtract"] = "keep",
        **options: Union[bool, int, float, str],
    ) -> None: ...
    @property
    def mechanism(self) -> str: ...
    def register_rate(
        self,
        group: int,
        *,
        priority: float = 1.0,
        initial_rate_bps: float,
        desired_rate_bps: Optional[float] = None,
        flow_id: Optional[int] = None,
    ) -> int: ...
    def register_window(
        self,
        group: int,
        *,
        priority: float = 1.0,
        initial_cwnd: int,
        initial_rtt_s: Optional[float] = None,
        initial_max_cwnd: Optional[int] = None,
        mtu: int = 1200,
        flow_id: Optional[int] = None,
    ) -> int: ...
    def update_rate(
        self, now_s: float, flow: int, rate_bps: float, *, rtt_s: Optional[float] = None
    ) -> list[Allocation]: ...
    def update_window(
        self,
        now_s: float,
        flow: int,
        cwnd: int,
        *,
        ssthresh: int,
        rtt_s: Optional[float] = None,
        desired_cwnd: Optional[int] = None,
    ) -> list[Allocation]: ...
    def deregister(self, flow: int) -> list[Allocation]: ...
    def set_priority(self, flow: int, priority: float) -> None: ...
    def set_desired_rate(self, flow: int, desired_rate_bps: Optional[float]) -> None: ...
    def aggregate_bps(self, group: int) -> Optional[float]: ...
    def flows(self, group: int) -> list[FlowInfo]: ...
