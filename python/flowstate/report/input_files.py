"""Reading the files `flowstate report` and `compare` take as input, checked: JSON
documents (summary.json, results.json, manifest.json, a sweep's files) and the points'
timeseries.csv. Every problem is a :class:`ReportError` (a one-line message naming the
file and what is wrong), raised before anything is written (docs/CATALOGUE.md, "Reading
output folders").

::

    from flowstate.report import input_files

    summary = input_files.read_json(folder / "summary.json")        # any JSON value
    frame = input_files.read_timeseries(folder / "timeseries.csv")

Limits: a JSON file of at most :data:`MAX_JSON_BYTES` nested at most
:data:`MAX_JSON_DEPTH` levels; a timeseries.csv of at most :data:`MAX_TIMESERIES_BYTES`.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from flowstate.errors import FlowstateError

if TYPE_CHECKING:  # pragma: no cover
    import pandas

MIB = 1024 * 1024
# The largest results.json of the catalogue is under 2 MiB; a summary.json under 1 MiB.
MAX_JSON_BYTES = 64 * MIB
# summary.json and results.json nest 6 levels; a manifest's scenario a few more.
MAX_JSON_DEPTH = 64
# About 170 bytes per flow, run and second: 120 s of 10 runs and 4 flows is under 1 MiB,
# an hour of 10 runs and 10 flows about 60 MiB. pandas needs a few times the file's size.
MAX_TIMESERIES_BYTES = 256 * MIB
# Columns every timeseries.csv has (docs/CATALOGUE.md, "timeseries.csv").
TIMESERIES_KEYS = ("time_s", "flow")
# The columns the figures draw; each may be empty in some bins (no sample).
METRIC_COLUMNS = ("throughput_mbps", "rtt_ms", "queuing_delay_ms", "capacity_mbps")


class ReportError(FlowstateError):
    """An output folder the report cannot be built from: an input file that is missing,
    too large, not readable or not of the expected shape (one-line message)."""


def _size_checked(path: Path, limit: int) -> None:
    if not path.exists():
        raise ReportError(f"{path}: not found")
    if not path.is_file():
        raise ReportError(f"{path}: not a file (a folder or a special file is in its place; remove it)")
    try:
        size = path.stat().st_size
    except OSError as e:
        raise ReportError(f"{path}: cannot read: {e.strerror or e}") from None
    if size > limit:
        raise ReportError(f"{path}: {size / MIB:.0f} MiB is over the limit of {limit // MIB} MiB for this file")


def depth(value: Any) -> int:
    """How many levels of arrays and objects ``value`` nests (iterative: any depth)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict):
            children: Iterable[Any] = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        deepest = max(deepest, level)
        stack.extend((c, level + 1) for c in children)
    return deepest


def read_json(path: Path) -> Any:
    """The JSON value in ``path``, at most MAX_JSON_BYTES and MAX_JSON_DEPTH levels deep."""
    path = Path(path)
    _size_checked(path, MAX_JSON_BYTES)
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as e:
        raise ReportError(f"{path}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ReportError(f"{path}: not UTF-8 text (a damaged or binary file; write it again)") from None
    if not text.strip():
        raise ReportError(f"{path}: empty (write it again)")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise ReportError(f"{path}: not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except RecursionError:
        raise ReportError(f"{path}: nested more than {MAX_JSON_DEPTH} levels deep (not a file flowstate wrote)") from None
    except ValueError as e:  # e.g. a number too long to convert
        raise ReportError(f"{path}: not valid JSON: {str(e).splitlines()[0]}") from None
    if depth(value) > MAX_JSON_DEPTH:
        raise ReportError(f"{path}: nested more than {MAX_JSON_DEPTH} levels deep (not a file flowstate wrote)")
    return value


def read_json_object(path: Path) -> dict[str, Any]:
    """:func:`read_json` of a file that must hold a JSON object."""
    value = read_json(path)
    if not isinstance(value, dict):
        raise ReportError(f"{path}: expected a JSON object at the top level, got {type(value).__name__}")
    return value


def read_timeseries(path: Path) -> "pandas.DataFrame":
    """The rows of a timeseries.csv: TIMESERIES_KEYS present, ``time_s`` a finite number
    and ``flow`` a name on every row, the METRIC_COLUMNS present numeric (empty: no
    sample in that bin), and at least one number among them."""
    import pandas

    path = Path(path)
    _size_checked(path, MAX_TIMESERIES_BYTES)
    try:
        frame = pandas.read_csv(path)
    except pandas.errors.EmptyDataError:
        raise ReportError(f"{path}: empty (no header line)") from None
    except (OSError, ValueError, UnicodeDecodeError, pandas.errors.ParserError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ReportError(f"{path}: cannot read as CSV: {first}") from None
    require_columns(frame, path, TIMESERIES_KEYS)
    if frame.empty:
        raise ReportError(f"{path}: no rows")
    empty_flow = frame["flow"].isna()
    if empty_flow.any():
        raise ReportError(f"{path}: column 'flow' row {int(empty_flow.argmax()) + 2}: empty (a flow name is needed)")
    present = [c for c in METRIC_COLUMNS if c in frame.columns]
    for column in ("time_s", *present):
        values = pandas.to_numeric(frame[column], errors="coerce")
        bad = values.isna() & frame[column].notna()
        if bad.any():
            row = int(bad.argmax())
            raise ReportError(f"{path}: column '{column}' row {row + 2}: not a number: {frame[column].iloc[row]!r}")
        frame[column] = values.astype(float)
    times = frame["time_s"].to_numpy(dtype=float)
    if not all(math.isfinite(t) for t in times):
        row = next(i for i, t in enumerate(times) if not math.isfinite(t))
        raise ReportError(f"{path}: column 'time_s' row {row + 2}: empty, NaN or infinite (a time in s is needed)")
    if not any(frame[c].notna().any() for c in present):
        raise ReportError(f"{path}: no number in any of {', '.join(present) or ', '.join(METRIC_COLUMNS)} "
                          "(only empty or NaN values)")
    return frame


def require_columns(frame: "pandas.DataFrame", path: Path, columns: Iterable[str]) -> None:
    """ReportError naming the first of ``columns`` that ``frame`` (read from ``path``) lacks."""
    for column in columns:
        if column not in frame.columns:
            raise ReportError(f"{path}: column '{column}' missing (every timeseries.csv of flowstate has it)")
