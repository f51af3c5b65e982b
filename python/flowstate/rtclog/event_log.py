"""Reader of libwebrtc's RTC event log as Chromium writes it (`flowstate browser
--rtc-event-log`, docs/BROWSER.md; read with `flowstate rtclog FILE`).

Chromium 156 writes the "new format" (the file starts with EventStream field 16,
begin_log_events): a concatenation of `webrtc.rtclog2.EventStream` messages
(logging/rtc_event_log/rtc_event_log2.proto, vendored here from WebRTC M150,
signalapp/webrtc bd635df), each holding one batch of one event type. A batch is a base
event in the message's plain fields plus `number_of_deltas` more events whose fields are
delta-encoded in the `*_deltas` bytes fields (logging/rtc_event_log/encoder/
delta_encoding.cc, `FixedLengthDeltaDecoder`; decoded here by `decode_deltas`, and the
batches expanded the way rtc_event_log_parser.cc's Store* functions do). The protobuf
wire format is read by the `protobuf` package from a descriptor set compiled from the
vendored .proto (rtc_event_log2.desc next to this file; regenerate with
`python -m grpc_tools.protoc -I python/flowstate/rtclog
--descriptor_set_out=python/flowstate/rtclog/rtc_event_log2.desc rtc_event_log2.proto`),
so no generated code ties the reader to one protobuf release.

What `read` extracts (times: the log's monotonic milliseconds, and Unix seconds through
the BeginLogEvent's pair of clocks):
- delay_based: DelayBasedBwe's estimate after each update and the detector state
  (`delay_based_bwe.cc` logs when either changes);
- loss_based: SendSideBandwidthEstimation's target after each update (the minimum of the
  delay-based, loss-based (v2) and receiver limits; `send_side_bandwidth_estimation.cc`
  `MaybeLogLossBasedEvent` logs when it, the loss fraction or the packet count changes,
  or every 5 s), with the loss fraction (/256) and the packets it is based on;
- probe_clusters, probe_success, probe_failure, alr (ALR state changes),
  remote_estimates;
- outgoing_rtp: every sent RTP packet's ssrc, sequence number, transport-wide sequence
  number, header, payload and padding sizes.
No event carries the video encoder's target (only audio has AudioNetworkAdaptations).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from flowstate.errors import FlowstateError
from flowstate.input_file import NotReadable, read_bytes

DESCRIPTOR_SET = Path(__file__).resolve().parent / "rtc_event_log2.desc"
# The new format's first bytes: the tag of EventStream field 16 (begin_log_events),
# length-delimited, as a varint (16 << 3 | 2 = 0x82 0x01). The legacy format
# (rtc_event_log.proto) starts with field 1 (stream), 0x0a.
NEW_FORMAT_START = b"\x82\x01"
LEGACY_FORMAT_START = b"\x0a"

# delta_encoding.cc: the header's field widths and encoding types.
BITS_ENCODING_TYPE = 2
BITS_DELTA_WIDTH = 6
BITS_VALUE_WIDTH = 6
ENCODING_UNSIGNED_NO_OPT = 0  # kFixedSizeUnsignedDeltasNoEarlyWrapNoOpt
ENCODING_SIGNED_OPT = 1  # kFixedSizeSignedDeltasEarlyWrapAndOptSupported
DEFAULT_VALUE_WIDTH = 64  # kDefaultValueWidthBits
MAX_VARINT_BYTES = 10  # var_int.cc kMaxVarIntLengthBytes

# rtc_event_log2.proto DelayBasedBweUpdates.DetectorState; BweProbeResultFailure.FailureReason.
DETECTOR_STATES = {0: "unknown", 1: "normal", 2: "underusing", 3: "overusing"}
PROBE_FAILURES = {0: "unknown", 1: "invalid_send_receive_interval", 2: "invalid_send_receive_ratio", 3: "timeout"}


class EventLogError(FlowstateError):
    """A one-line reason a log cannot be read."""


class _Bits:
    """rtc_base/bitstream_reader.h's BitstreamReader: bits most significant first."""

    def __init__(self, data: bytes):
        self.value = int.from_bytes(data, "big") if data else 0
        self.left = len(data) * 8

    def read(self, n: int) -> int:
        if n > self.left:
            raise EventLogError("delta encoding: truncated bit stream")
        self.left -= n
        return (self.value >> self.left) & ((1 << n) - 1)

    def varint(self) -> int:
        """var_int.cc DecodeVarInt(BitstreamReader&): little-endian base-128 bytes."""
        out = 0
        for i in range(MAX_VARINT_BYTES):
            byte = self.read(8)
            out += (byte & 0x7F) << (7 * i)
            if not byte & 0x80:
                return out
        raise EventLogError("delta encoding: varint longer than 10 bytes")


def decode_deltas(data: bytes, base: Optional[int], n: int) -> list[Optional[int]]:
    """delta_encoding.cc DecodeDeltas: the ``n`` values after ``base`` that ``data``
    encodes (None: a value the batch's event does not have). Empty ``data``: all ``n``
    equal the base. Raises EventLogError on a corrupt encoding."""
    if n <= 0:
        raise EventLogError(f"delta encoding: {n} deltas")
    if not data:
        return [base] * n
    r = _Bits(data)
    kind = r.read(BITS_ENCODING_TYPE)
    if kind not in (ENCODING_UNSIGNED_NO_OPT, ENCODING_SIGNED_OPT):
        raise EventLogError(f"delta encoding: unknown encoding type {kind}")
    delta_width = r.read(BITS_DELTA_WIDTH) + 1
    if kind == ENCODING_UNSIGNED_NO_OPT:
        signed, optional, value_width = False, False, DEFAULT_VALUE_WIDTH
    else:
        signed = bool(r.read(1))
        optional = bool(r.read(1))
        value_width = r.read(BITS_VALUE_WIDTH) + 1
    if delta_width > value_width:  # FixedLengthEncodingParameters::ValidParameters
        raise EventLogError(f"delta encoding: delta width {delta_width} above value width {value_width}")
    value_mask = (1 << value_width) - 1
    delta_mask = (1 << delta_width) - 1
    top_bit = 1 << (delta_width - 1)
    exists = [bool(r.read(1)) for _ in range(n)] if optional else [True] * n
    out: list[Optional[int]] = [None] * n
    previous = base
    for i in range(n):
        if not exists[i]:
            continue
        if previous is None:
            # With no base, the first existing value is written whole, as a varint.
            value = r.varint()
        else:
            delta = r.read(delta_width)
            if signed and delta & top_bit:  # ApplySignedDelta: two's complement
                value = (previous - ((~delta & delta_mask) + 1)) & value_mask
            else:  # ApplyUnsignedDelta
                value = (previous + delta) & value_mask
        out[i] = value
        previous = value
    return out


def to_unsigned(value: int, bits: int) -> int:
    """rtc_event_log_encoder_common.h ToUnsigned for a signed type of ``bits`` bits."""
    return value if value >= 0 else value + (1 << bits)


def to_signed(value: int, bits: int) -> int:
    """rtc_event_log_encoder_common.h ToSigned (a value past the type: EventLogError)."""
    if value >= 1 << bits:
        raise EventLogError(f"delta encoding: {value} does not fit {bits} signed bits")
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


def _message_classes() -> Any:
    try:
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    except ImportError:
        raise EventLogError("needs the Python package protobuf: .venv/bin/pip install 'protobuf>=4.22' (the rtclog extra)") from None
    try:
        fds = descriptor_pb2.FileDescriptorSet.FromString(DESCRIPTOR_SET.read_bytes())
    except OSError as e:
        raise EventLogError(f"cannot read {DESCRIPTOR_SET}: {e.strerror}") from None
    pool = descriptor_pool.DescriptorPool()
    for f in fds.file:
        pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("webrtc.rtclog2.EventStream"))


# protobuf FieldDescriptor types that are signed integers, and their widths.
_SIGNED_BITS = {3: 64, 18: 64, 16: 64, 5: 32, 17: 32, 15: 32}  # int64 sint64 sfixed64 int32 sint32 sfixed32


def expand(batch: Any) -> list[dict[str, Any]]:
    """One batch message (e.g. a DelayBasedBweUpdates) as its events: the base event
    from the plain fields, then ``number_of_deltas`` events from the ``X_deltas`` fields
    (rtc_event_log_parser.cc's Store* functions). Each event a dict of the fields it has
    (message-typed and blob fields only on the base event)."""
    desc = batch.DESCRIPTOR
    plain = [f for f in desc.fields if f.name != "number_of_deltas" and not f.name.endswith("_deltas")]
    base = {f.name: getattr(batch, f.name) for f in plain if batch.HasField(f.name)}
    n = batch.number_of_deltas if "number_of_deltas" in desc.fields_by_name else 0
    events = [dict(base)] + [{} for _ in range(n)]
    if n == 0:
        return events
    for f in plain:
        deltas = desc.fields_by_name.get(f.name + "_deltas")
        if deltas is None:
            continue
        if f.type in (11, 12):  # message, bytes: not delta-encoded (blobs are separate)
            continue
        bits = _SIGNED_BITS.get(f.type)
        b = base.get(f.name)
        b_u = None if b is None else (to_unsigned(int(b), bits) if bits else int(b))
        values = decode_deltas(getattr(batch, deltas.name), b_u, n)
        for i, v in enumerate(values, start=1):
            if v is not None:
                events[i][f.name] = to_signed(v, bits) if bits else v
    return events


@dataclass(frozen=True)
class DelayBasedUpdate:
    t_ms: int
    unix_s: float
    bitrate_bps: int
    state: str


@dataclass(frozen=True)
class LossBasedUpdate:
    t_ms: int
    unix_s: float
    bitrate_bps: int
    fraction_loss: float  # of 1 (the log's /256)
    total_packets: int


@dataclass(frozen=True)
class ProbeCluster:
    t_ms: int
    unix_s: float
    id: int
    bitrate_bps: int
    min_packets: int
    min_bytes: int


@dataclass(frozen=True)
class ProbeSuccess:
    t_ms: int
    unix_s: float
    id: int
    bitrate_bps: int


@dataclass(frozen=True)
class ProbeFailure:
    t_ms: int
    unix_s: float
    id: int
    reason: str


@dataclass(frozen=True)
class AlrState:
    t_ms: int
    unix_s: float
    in_alr: bool


@dataclass(frozen=True)
class RemoteEstimate:
    t_ms: int
    unix_s: float
    lower_kbps: Optional[int]
    upper_kbps: Optional[int]


@dataclass(frozen=True)
class RtpPacket:
    t_ms: int
    unix_s: float
    ssrc: int
    sequence_number: int
    transport_sequence_number: Optional[int]
    header_size: int
    payload_size: int
    padding_size: int
    marker: bool
    payload_type: int

    @property
    def size(self) -> int:
        """The RTP packet's bytes (header + payload + padding), as the parser's
        LoggedRtpPacket total_length."""
        return self.header_size + self.payload_size + self.padding_size


@dataclass
class EventLog:
    """One peer connection's log, each list in time order."""

    begin_t_ms: int
    begin_unix_s: float
    delay_based: list[DelayBasedUpdate] = field(default_factory=list)
    loss_based: list[LossBasedUpdate] = field(default_factory=list)
    probe_clusters: list[ProbeCluster] = field(default_factory=list)
    probe_success: list[ProbeSuccess] = field(default_factory=list)
    probe_failure: list[ProbeFailure] = field(default_factory=list)
    alr: list[AlrState] = field(default_factory=list)
    remote_estimates: list[RemoteEstimate] = field(default_factory=list)
    outgoing_rtp: list[RtpPacket] = field(default_factory=list)

    def unix_s(self, t_ms: int) -> float:
        """The log's time ``t_ms`` in Unix seconds (to the log's millisecond)."""
        return round(self.begin_unix_s + (t_ms - self.begin_t_ms) / 1000.0, 3)


KINDS = ("delay_based", "loss_based", "probe_clusters", "probe_success", "probe_failure", "alr",
         "remote_estimates", "outgoing_rtp")


def parse(data: bytes, name: str = "log") -> EventLog:
    """An EventLog from a log file's bytes; EventLogError names what is wrong."""
    if not data:
        raise EventLogError(f"{name}: empty file")
    if not data.startswith(NEW_FORMAT_START):
        what = "the legacy format (rtc_event_log.proto), not read here" if data.startswith(LEGACY_FORMAT_START) \
            else f"not an RTC event log (starts {data[:2].hex()})"
        raise EventLogError(f"{name}: {what}")
    stream_class = _message_classes()
    try:
        stream = stream_class.FromString(data)
    except Exception as e:  # protobuf's DecodeError; the file may be cut short
        raise EventLogError(f"{name}: not a complete EventStream ({e})") from None
    if not stream.begin_log_events:
        raise EventLogError(f"{name}: no BeginLogEvent")
    begin = stream.begin_log_events[0]
    log = EventLog(begin.timestamp_ms, begin.utc_time_ms / 1000.0)

    def events(batches: Any) -> list[dict[str, Any]]:
        return [e for b in batches for e in expand(b)]

    def at(e: dict) -> tuple[int, float]:
        return e["timestamp_ms"], log.unix_s(e["timestamp_ms"])

    for e in events(stream.delay_based_bwe_updates):
        log.delay_based.append(DelayBasedUpdate(*at(e), e["bitrate_bps"], DETECTOR_STATES.get(e.get("detector_state", 0), "?")))
    for e in events(stream.loss_based_bwe_updates):
        log.loss_based.append(LossBasedUpdate(*at(e), e["bitrate_bps"], e["fraction_loss"] / 256.0, e["total_packets"]))
    for e in events(stream.probe_clusters):
        log.probe_clusters.append(ProbeCluster(*at(e), e["id"], e["bitrate_bps"], e.get("min_packets", 0), e.get("min_bytes", 0)))
    for e in events(stream.probe_success):
        log.probe_success.append(ProbeSuccess(*at(e), e["id"], e["bitrate_bps"]))
    for e in events(stream.probe_failure):
        log.probe_failure.append(ProbeFailure(*at(e), e["id"], PROBE_FAILURES.get(e.get("failure", 0), "?")))
    for e in events(stream.alr_states):
        log.alr.append(AlrState(*at(e), bool(e["in_alr"])))
    for e in events(stream.remote_estimates):
        log.remote_estimates.append(RemoteEstimate(*at(e), e.get("link_capacity_lower_kbps"), e.get("link_capacity_upper_kbps")))
    for e in events(stream.outgoing_rtp_packets):
        log.outgoing_rtp.append(RtpPacket(
            *at(e), e["ssrc"], e["sequence_number"], e.get("transport_sequence_number"), e["header_size"],
            e["payload_size"], e["padding_size"], bool(e["marker"]), e["payload_type"]))
    for kind in KINDS:
        getattr(log, kind).sort(key=lambda x: x.t_ms)
    return log


def read(path: Path) -> EventLog:
    """The log file at ``path``; EventLogError names what is wrong."""
    try:
        data = read_bytes(path, "an RTC event log")
    except NotReadable as e:
        raise EventLogError(f"{path}: {e}") from None
    except OSError as e:
        raise EventLogError(f"cannot read {path}: {e.strerror}") from None
    return parse(data, str(path))
