"""Derived metrics: functions of one run's time series (docs/CATALOGUE.md, ``[[derived]]``).

An experiment names a function and its arguments::

    [[derived]]
    name = "sctp_fill_time"
    fn = "time_to_reach"
    args = { flow = "sctp", rate = "4Mbps", after = "30s" }

Arguments carry units as in scenario files: times (``"30s"``, ``"500ms"``, a bare number
is seconds) and bit rates (``"4Mbps"``); ``from`` / ``to`` bound the window (default:
the whole run). A bin belongs to the window when its start time ``time_s`` is in
``[from, to)``. Every function returns a float, or None when the series holds no
sample to compute it from (the catalogue reports that as a missing value).

The series of one run is a dict of columns (the native ``series``), a list of row
dicts (``csv.DictReader`` over timeseries.csv, one run), or a pandas DataFrame with the
timeseries.csv columns (``time_s``, ``flow``, ``throughput_mbps``,
``queuing_delay_ms``, ``rtt_ms``, ...). :func:`compute` evaluates a checked spec.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Sequence

from flowstate.errors import FlowstateError

# --- units --------------------------------------------------------------------------
# One parser: the simulator's (flowstate_sim::units_parse, through the native module),
# so that "2MBps" (bytes) or "2 2Mbps" (an error) mean here what they mean in a scenario.


class DerivedError(FlowstateError):
    """A derived-metric spec that cannot be computed: unknown function, bad argument."""


def parse_time(value: Any) -> float:
    """``"30s"``, ``"500ms"``, ``"2min"`` or a bare number (seconds) -> seconds."""
    from flowstate import _native

    if isinstance(value, bool):
        raise DerivedError(f"expected a time such as \"30s\", got {value!r}")
    if isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str):
        try:
            seconds = _native.parse_time_s(value)
        except _native.FlowstateError as e:
            raise DerivedError(str(e)) from None
    else:
        raise DerivedError(f"expected a time such as \"30s\" or \"500ms\", got {value!r}")
    if not (math.isfinite(seconds) and seconds >= 0):
        raise DerivedError(f"expected a time >= 0 s, got {value!r}")
    return seconds


def parse_rate_mbps(value: Any) -> float:
    """``"4Mbps"``, ``"500kbps"``, ``"2 Mbit/s"``, ``"1MBps"`` (bytes: 8) -> Mbit/s (a bare
    number is rejected)."""
    from flowstate import _native

    if not isinstance(value, str):
        raise DerivedError(f"expected a bit rate such as \"4Mbps\", got {value!r}")
    try:
        mbps = _native.parse_rate_bps(value) / 1e6
    except _native.FlowstateError as e:
        raise DerivedError(str(e)) from None
    if not (math.isfinite(mbps) and mbps > 0):
        raise DerivedError(f"expected a bit rate > 0, got {value!r}")
    return mbps


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise DerivedError(f"expected a number, got {value!r}")
    return float(value)


def _name(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise DerivedError(f"expected a flow name, got {value!r}")
    return value


def _names(value: Any) -> list[str]:
    if not isinstance(value, list) or not value:
        raise DerivedError(f"expected a non-empty list of flow names, got {value!r}")
    return [_name(v) for v in value]


# --- the series of one run ----------------------------------------------------------


def _float_or_none(v: Any) -> Optional[float]:
    if v is None or v == "":
        return None
    x = float(v)
    return None if math.isnan(x) else x


@dataclass(slots=True)
class Bin:
    time_s: float
    throughput_mbps: float
    queuing_delay_ms: Optional[float]
    rtt_ms: Optional[float]
    capacity_mbps: Optional[float] = None
    send_rate_mbps: Optional[float] = None
    target_mbps: Optional[float] = None


class Series:
    """One run's time series, per flow, in time order; with the run's summary.json
    (``summary``) when the caller has it (the ``sbd_*`` functions read its ``sbd``)."""

    def __init__(self, data: Any, summary: Optional[Mapping[str, Any]] = None) -> None:
        self.summary: Mapping[str, Any] = summary or {}
        self.flows: dict[str, list[Bin]] = {}
        if isinstance(data, Mapping):
            self._add_columns(data)
        else:
            for row in _rows(data):
                self._add(
                    row["time_s"],
                    row["flow"],
                    row.get("throughput_mbps"),
                    row.get("queuing_delay_ms"),
                    row.get("rtt_ms"),
                    row.get("capacity_mbps"),
                    row.get("send_rate_mbps"),
                    row.get("target_mbps"),
                )
        self._finish()

    def _finish(self) -> None:
        """Each flow's bins in time order, and the bin length."""
        for bins in self.flows.values():
            bins.sort(key=lambda b: b.time_s)
        times = sorted({b.time_s for bins in self.flows.values() for b in bins})
        steps = [b - a for a, b in zip(times, times[1:]) if b > a]
        self.bin_s = min(steps) if steps else 0.0

    def _add(
        self, time_s: Any, flow: Any, throughput: Any, queuing: Any, rtt: Any, capacity: Any, send: Any, target: Any
    ) -> None:
        b = Bin(
            float(time_s),
            _float_or_none(throughput) or 0.0,
            _float_or_none(queuing),
            _float_or_none(rtt),
            _float_or_none(capacity),
            _float_or_none(send),
            _float_or_none(target),
        )
        self.flows.setdefault(str(flow), []).append(b)

    @classmethod
    def from_simulator(cls, columns: Mapping[str, Any], summary: Optional[Mapping[str, Any]] = None) -> "Series":
        """The series of a run as the simulator returns it (``RunResult``'s columns:
        floats, None for no sample, str flow names): the same bins as ``Series(columns)``,
        without converting each cell (a third of the catalogue's derived metrics' cost)."""
        series = cls({}, summary)
        n = len(columns["time_s"]) if "time_s" in columns else 0
        if n:
            missing = [None] * n
            flows = series.flows
            # x == x is False for NaN only: NaN reads as no sample, as in _float_or_none.
            for t, flow, thr, queuing, rtt, cap, send, target in zip(
                columns["time_s"],
                columns["flow"],
                columns.get("throughput_mbps", missing),
                columns.get("queuing_delay_ms", missing),
                columns.get("rtt_ms", missing),
                columns.get("capacity_mbps", missing),
                columns.get("send_rate_mbps", missing),
                columns.get("target_mbps", missing),
            ):
                bins = flows.get(flow)
                if bins is None:
                    bins = flows[flow] = []
                bins.append(
                    Bin(
                        float(t),
                        (thr or 0.0) if thr == thr else 0.0,
                        queuing if queuing == queuing else None,
                        rtt if rtt == rtt else None,
                        cap if cap == cap else None,
                        send if send == send else None,
                        target if target == target else None,
                    )
                )
            series._finish()
        return series

    def _add_columns(self, data: Mapping[str, Any]) -> None:
        """A dict of columns (what the simulator returns): walked column-wise, without
        a dict per row; the same bins as the rows would give."""
        n = len(data["time_s"]) if "time_s" in data else 0
        if n == 0:
            return
        missing = [None] * n

        def col(name: str) -> Sequence[Any]:
            c = data.get(name)
            return missing if c is None else c

        add = self._add
        for row in zip(
            data["time_s"],
            data["flow"],
            col("throughput_mbps"),
            col("queuing_delay_ms"),
            col("rtt_ms"),
            col("capacity_mbps"),
            col("send_rate_mbps"),
            col("target_mbps"),
        ):
            add(*row)

    def window(self, flow: str, start: float, end: Optional[float]) -> list[Bin]:
        """The bins of ``flow`` starting in ``[start, end)``; an unknown flow has none."""
        return [b for b in self.flows.get(flow, []) if b.time_s >= start and (end is None or b.time_s < end)]


def _rows(data: Any) -> list[Mapping[str, Any]]:
    if isinstance(data, Series):  # pragma: no cover - callers pass raw data
        raise TypeError("already a Series")
    if isinstance(data, Mapping):  # dict of columns
        keys = list(data.keys())
        n = len(data[keys[0]]) if keys else 0
        return [{k: data[k][i] for k in keys} for i in range(n)]
    if hasattr(data, "to_dict") and hasattr(data, "columns"):  # pandas DataFrame
        return list(data.to_dict("records"))
    return list(data)


def _as_series(data: Any) -> Series:
    return data if isinstance(data, Series) else Series(data)


def _mean(xs: Sequence[float]) -> Optional[float]:
    return math.fsum(xs) / len(xs) if xs else None


# --- the functions ------------------------------------------------------------------


def time_to_reach(
    series: Any, flow: str, rate: float, after: float = 0.0, hold: float = 2.0
) -> Optional[float]:
    """Seconds from ``after`` until ``flow``'s throughput first reaches ``rate`` (Mbit/s)
    and then stays >= 90 % of it for ``hold`` seconds (the bins starting in
    ``[t, t + hold)``); None if it never does (or the series ends before ``hold``)."""
    s = _as_series(series)
    bins = s.window(flow, after, None)
    end = bins[-1].time_s + s.bin_s if bins else 0.0
    for i, b in enumerate(bins):
        if b.throughput_mbps < rate:
            continue
        if b.time_s + hold > end + 1e-9:
            return None
        held = all(c.throughput_mbps >= 0.9 * rate for c in bins[i:] if c.time_s < b.time_s + hold - 1e-9)
        if held:
            return b.time_s - after
    return None


def mean_rate(series: Any, flow: str, start: float = 0.0, end: Optional[float] = None) -> Optional[float]:
    """Mean throughput (Mbit/s) of ``flow`` over the window."""
    return _mean([b.throughput_mbps for b in _as_series(series).window(flow, start, end)])


def min_rate(series: Any, flow: str, start: float = 0.0, end: Optional[float] = None) -> Optional[float]:
    """Lowest per-bin throughput (Mbit/s) of ``flow`` in the window."""
    xs = [b.throughput_mbps for b in _as_series(series).window(flow, start, end)]
    return min(xs) if xs else None


def max_rate(series: Any, flow: str, start: float = 0.0, end: Optional[float] = None) -> Optional[float]:
    """Highest per-bin throughput (Mbit/s) of ``flow`` in the window."""
    xs = [b.throughput_mbps for b in _as_series(series).window(flow, start, end)]
    return max(xs) if xs else None


def _targets(series: Any, flow: str, start: float, end: Optional[float]) -> list[float]:
    return [b.target_mbps for b in _as_series(series).window(flow, start, end) if b.target_mbps is not None]


def min_target(series: Any, flow: str, start: float = 0.0, end: Optional[float] = None) -> Optional[float]:
    """Lowest target rate (Mbit/s) of ``flow`` at the close of a bin in the window: the
    rate controller's own output (timeseries.csv ``target_mbps``), not what the link
    carried; None for a flow without one (window and fixed-rate flows)."""
    xs = _targets(series, flow, start, end)
    return min(xs) if xs else None


def max_target(series: Any, flow: str, start: float = 0.0, end: Optional[float] = None) -> Optional[float]:
    """Highest target rate (Mbit/s) of ``flow`` at the close of a bin in the window."""
    xs = _targets(series, flow, start, end)
    return max(xs) if xs else None


def share(series: Any, flow: str, start: float = 0.0, end: Optional[float] = None) -> Optional[float]:
    """``flow``'s part of the total throughput of all flows in the window (0..1)."""
    s = _as_series(series)
    total = math.fsum(b.throughput_mbps for name in s.flows for b in s.window(name, start, end))
    if flow not in s.flows or total <= 0:
        return None
    return math.fsum(b.throughput_mbps for b in s.window(flow, start, end)) / total


def jain(
    series: Any, start: float = 0.0, end: Optional[float] = None, flows: Optional[list[str]] = None
) -> Optional[float]:
    """Jain's fairness index (sum x)^2 / (n sum x^2) of the flows' mean throughputs in the
    window (``flows``: default every flow of the series)."""
    s = _as_series(series)
    means = [mean_rate(s, f, start, end) for f in (flows if flows is not None else list(s.flows))]
    xs = [x for x in means if x is not None]
    if not xs or len(xs) != len(means):
        return None
    sq = math.fsum(x * x for x in xs)
    return math.fsum(xs) ** 2 / (len(xs) * sq) if sq > 0 else None


def mean_queue(
    series: Any, start: float = 0.0, end: Optional[float] = None, flow: Optional[str] = None
) -> Optional[float]:
    """Mean queuing delay (ms) over the window's samples of every flow (or of ``flow``)."""
    s = _as_series(series)
    names = [flow] if flow is not None else list(s.flows)
    return _mean([b.queuing_delay_ms for n in names for b in s.window(n, start, end) if b.queuing_delay_ms is not None])


def rtt_percentile(
    series: Any, flow: str, p: float, start: float = 0.0, end: Optional[float] = None
) -> Optional[float]:
    """The ``p``-th percentile (0..100, linear interpolation) of ``flow``'s per-bin RTT (ms)."""
    xs = sorted(b.rtt_ms for b in _as_series(series).window(flow, start, end) if b.rtt_ms is not None)
    if not xs:
        return None
    k = (len(xs) - 1) * p / 100.0
    lo, hi = math.floor(k), math.ceil(k)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def throughput_ratio(
    series: Any, start: float = 0.0, end: Optional[float] = None, flows: Optional[list[str]] = None
) -> Optional[float]:
    """RFC 8868 section 2 item 7 (self-fairness): the highest over the lowest of the
    flows' mean throughputs in the window (``flows``: default every flow). The RFC's
    guideline for flows of equal priority and similar RTT: between 0.333 and 3, i.e. this
    ratio <= 3. None if a flow has no bin or the lowest mean is 0."""
    s = _as_series(series)
    means = [mean_rate(s, f, start, end) for f in (flows if flows is not None else list(s.flows))]
    xs = [x for x in means if x is not None]
    if not xs or len(xs) != len(means) or min(xs) <= 0:
        return None
    return max(xs) / min(xs)


def oscillations(
    series: Any, flow: str, low: float, high: float, start: float = 0.0, end: Optional[float] = None
) -> Optional[float]:
    """RFC 8868 section 2 item 9 (instability): how many times ``flow``'s per-bin
    sending rate swings from at or below the ``low`` watermark to at or above ``high``, or
    back, in the window (the RFC's example: watermarks 500 kbit/s and 2 Mbit/s, 500 ms
    windows = the time series' bins). The sending rate, not the throughput: a flow that
    overshoots a bottleneck sends above it while its throughput is capped there. None if
    the flow has no bin with a sending rate."""
    rates = [b.send_rate_mbps for b in _as_series(series).window(flow, start, end) if b.send_rate_mbps is not None]
    if not rates:
        return None
    count, side = 0, 0  # side: -1 last at or below low, +1 last at or above high
    for rate in rates:
        now = -1 if rate <= low else (1 if rate >= high else 0)
        if now != 0:
            count += int(side != 0 and now != side)
            side = now
    return float(count)


def utilization(
    series: Any, start: float = 0.0, end: Optional[float] = None, flows: Optional[list[str]] = None
) -> Optional[float]:
    """RFC 8868 section 2 item 10 (bandwidth utilization): the flows' summed throughput
    over the forward bottleneck capacity, per bin, averaged over the window's bins
    (``flows``: default every flow; name the forward ones when some flow runs in the
    reverse direction). None without a bin or a capacity."""
    s = _as_series(series)
    names = flows if flows is not None else list(s.flows)
    per_bin: dict[float, list[float]] = {}
    capacity: dict[float, float] = {}
    for f in names:
        for b in s.window(f, start, end):
            per_bin.setdefault(b.time_s, []).append(b.throughput_mbps)
            if b.capacity_mbps is not None:
                capacity[b.time_s] = b.capacity_mbps
    ratios = [math.fsum(xs) / capacity[t] for t, xs in per_bin.items() if capacity.get(t, 0.0) > 0]
    return _mean(ratios)


def _alpha_utility(x: float, a: float) -> float:
    """U_a(x) = x^(1-a) / (1-a), and its limit log(x) for a = 1 (paper 002 eq. 20)."""
    if a == 1.0:
        return math.log(x)
    return x ** (1.0 - a) / (1.0 - a)


def gcc_utility(
    series: Any,
    alpha: float = 2.0,
    beta: float = 1.0,
    delta: float = 0.15,
    start: float = 0.0,
    end: Optional[float] = None,
    flows: Optional[list[str]] = None,
    min_delay_ms: float = 1.0,
) -> Optional[float]:
    """Paper 002 Section 4 (tuning, Fig. 8), eq. (21): sum over flows of
    U_alpha(x_i) - delta * U_beta(y_i), with U_a(x) = x^(1-a)/(1-a) (eq. 20; log for
    a = 1), x_i the flow's mean throughput (Mbit/s) and y_i its mean queuing delay (ms)
    over the window. The paper gives no units; we use Mbit/s and ms, and floor y_i at
    ``min_delay_ms`` so that an empty queue does not give log(0). None if a flow has no
    throughput or no queuing-delay sample."""
    s = _as_series(series)
    total = 0.0
    for f in flows if flows is not None else list(s.flows):
        x = mean_rate(s, f, start, end)
        y = mean_queue(s, start, end, flow=f)
        if x is None or y is None or x <= 0:
            return None
        total += _alpha_utility(x, alpha) - delta * _alpha_utility(max(y, min_delay_ms), beta)
    return total


def _sbd_timeline(series: Series, start: float, end: Optional[float]) -> list[Mapping[str, Any]]:
    """The grouping runs of shared bottleneck detection (summary.json ``sbd.timeline``)
    in ``[start, end)``; none without SBD."""
    sbd = series.summary.get("sbd") or {}
    runs = sbd.get("timeline") or []
    return [v for v in runs if v["time_s"] >= start and (end is None or v["time_s"] < end)]


def sbd_accuracy(series: Any, start: float = 0.0, end: Optional[float] = None) -> Optional[float]:
    """Fraction of correct pairwise same/different verdicts of shared bottleneck
    detection over its grouping runs in the window (the ground truth: crate::sbd)."""
    runs = _sbd_timeline(_as_series(series), start, end)
    pairs = sum(v["pairs"] for v in runs)
    return sum(v["correct_pairs"] for v in runs) / pairs if pairs else None


def sbd_time_to_correct(series: Any, after: float = 0.0) -> Optional[float]:
    """Seconds from ``after`` to the first grouping run at which every pairwise verdict
    was correct (None: never)."""
    for v in _sbd_timeline(_as_series(series), after, None):
        if v["pairs"] > 0 and v["correct_pairs"] == v["pairs"]:
            return float(v["time_s"]) - after
    return None


def sbd_together(series: Any, a: str, b: str, start: float = 0.0, end: Optional[float] = None) -> Optional[float]:
    """Fraction of the grouping runs in the window at which SBD put flows ``a`` and ``b``
    into one group."""
    s = _as_series(series)
    names = [f.get("name") for f in s.summary.get("flows") or []]
    if a not in names or b not in names:
        return None
    i, j = names.index(a), names.index(b)
    runs = _sbd_timeline(s, start, end)
    if not runs:
        return None
    same = sum(1 for v in runs if v["groups"][i] is not None and v["groups"][i] == v["groups"][j])
    return same / len(runs)


def sbd_regroups(series: Any) -> Optional[float]:
    """Moves between coupling groups of all flows over the run (``coupling.groups = "sbd"``)."""
    value = (_as_series(series).summary.get("aggregate") or {}).get("sbd_regroups")
    return None if value is None else float(value)


def ce_fraction(series: Any, flow: str) -> Optional[float]:
    """The part of ``flow``'s packets that reached the receiver CE-marked, over the whole
    run: summary.json ``ce_marks`` / ``sent_packets``; None for a flow that sent no
    ECN-capable packets (no ``ce_marks``) or none at all."""
    flows = _as_series(series).summary.get("flows") or []
    entry = next((f for f in flows if f.get("name") == flow), None)
    if entry is None or entry.get("ce_marks") is None or not entry.get("sent_packets"):
        return None
    return float(entry["ce_marks"]) / float(entry["sent_packets"])


# --- specs: name -> (function, argument parsers) ------------------------------------

# Argument name in experiment.toml -> (Python parameter, parser, required).
_Arg = tuple[str, Callable[[Any], Any], bool]
_WINDOW: dict[str, _Arg] = {"from": ("start", parse_time, False), "to": ("end", parse_time, False)}

FUNCTIONS: dict[str, tuple[Callable[..., Optional[float]], dict[str, _Arg]]] = {
    "time_to_reach": (
        time_to_reach,
        {
            "flow": ("flow", _name, True),
            "rate": ("rate", parse_rate_mbps, True),
            "after": ("after", parse_time, False),
            "hold": ("hold", parse_time, False),
        },
    ),
    "mean_rate": (mean_rate, {"flow": ("flow", _name, True), **_WINDOW}),
    "min_rate": (min_rate, {"flow": ("flow", _name, True), **_WINDOW}),
    "max_rate": (max_rate, {"flow": ("flow", _name, True), **_WINDOW}),
    "min_target": (min_target, {"flow": ("flow", _name, True), **_WINDOW}),
    "max_target": (max_target, {"flow": ("flow", _name, True), **_WINDOW}),
    "share": (share, {"flow": ("flow", _name, True), **_WINDOW}),
    "jain": (jain, {**_WINDOW, "flows": ("flows", _names, False)}),
    "mean_queue": (mean_queue, {**_WINDOW, "flow": ("flow", _name, False)}),
    "rtt_percentile": (
        rtt_percentile,
        {"flow": ("flow", _name, True), "p": ("p", _number, True), **_WINDOW},
    ),
    "throughput_ratio": (throughput_ratio, {**_WINDOW, "flows": ("flows", _names, False)}),
    "oscillations": (
        oscillations,
        {
            "flow": ("flow", _name, True),
            "low": ("low", parse_rate_mbps, True),
            "high": ("high", parse_rate_mbps, True),
            **_WINDOW,
        },
    ),
    "utilization": (utilization, {**_WINDOW, "flows": ("flows", _names, False)}),
    "sbd_accuracy": (sbd_accuracy, {**_WINDOW}),
    "sbd_time_to_correct": (sbd_time_to_correct, {"after": ("after", parse_time, False)}),
    "sbd_together": (
        sbd_together,
        {"a": ("a", _name, True), "b": ("b", _name, True), **_WINDOW},
    ),
    "sbd_regroups": (sbd_regroups, {}),
    "ce_fraction": (ce_fraction, {"flow": ("flow", _name, True)}),
    "gcc_utility": (
        gcc_utility,
        {
            "alpha": ("alpha", _number, False),
            "beta": ("beta", _number, False),
            "delta": ("delta", _number, False),
            **_WINDOW,
            "flows": ("flows", _names, False),
            "min_delay": ("min_delay_ms", lambda v: parse_time(v) * 1e3, False),
        },
    ),
}


@dataclass(frozen=True)
class Spec:
    """A checked ``[[derived]]`` entry: function and parsed keyword arguments."""

    name: str
    fn: str
    kwargs: Mapping[str, Any]

    def flows(self) -> list[str]:
        """The flow names the spec refers to (to check them against the scenario)."""
        names = [self.kwargs["flow"]] if isinstance(self.kwargs.get("flow"), str) else []
        names += [self.kwargs[k] for k in ("a", "b") if isinstance(self.kwargs.get(k), str)]
        return names + list(self.kwargs.get("flows") or [])


def make_spec(name: str, fn: Any, args: Any) -> Spec:
    """Checks ``fn`` and ``args``; raises DerivedError naming the argument."""
    if not isinstance(fn, str) or fn not in FUNCTIONS:
        raise DerivedError(f"unknown function {fn!r} (one of: {', '.join(sorted(FUNCTIONS))})")
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        raise DerivedError(f"args must be a table, got {args!r}")
    _, params = FUNCTIONS[fn]
    kwargs: dict[str, Any] = {}
    for key, value in args.items():
        if key not in params:
            raise DerivedError(f"{fn}: unknown argument {key!r} (one of: {', '.join(params)})")
        param, parse, _ = params[key]
        try:
            kwargs[param] = parse(value)
        except DerivedError as e:
            raise DerivedError(f"{fn}: {key}: {e}") from None
    for key, (param, _, required) in params.items():
        if required and param not in kwargs:
            raise DerivedError(f"{fn}: argument {key!r} is required")
    if fn == "oscillations" and kwargs["high"] <= kwargs["low"]:
        raise DerivedError(f"{fn}: high: must be above low ({args['low']!r}), got {args['high']!r}")
    if fn == "rtt_percentile" and not 0 <= kwargs["p"] <= 100:
        raise DerivedError(f"{fn}: p: must be in [0, 100], got {kwargs['p']}")
    if kwargs.get("end") is not None and kwargs["end"] <= kwargs.get("start", 0.0):
        raise DerivedError(f"{fn}: to: must be after from ({args.get('from', 0)!r}), got {args['to']!r}")
    return Spec(name, fn, kwargs)


def compute(spec: Spec, series: Any) -> Optional[float]:
    """The value of ``spec`` on one run's series (None: nothing to compute it from)."""
    function, _ = FUNCTIONS[spec.fn]
    try:
        value = function(_as_series(series), **spec.kwargs)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    return None if value is None or not math.isfinite(value) else float(value)


def aggregate(values: Sequence[Optional[float]]) -> dict[str, Any]:
    """``{mean, std, min, max, values}`` over runs (std: sample std; None values left out)."""
    xs = [v for v in values if v is not None]
    if not xs:
        return {"mean": None, "std": None, "min": None, "max": None, "values": list(values)}
    mean = math.fsum(xs) / len(xs)
    std = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0
    return {"mean": mean, "std": std, "min": min(xs), "max": max(xs), "values": list(values)}
