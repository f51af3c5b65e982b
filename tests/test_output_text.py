"""The simulator's renderings of the front end's files are byte for byte Python's own:
``_native.json_dumps_indent2`` against ``json.dumps(indent=2)``, the CSV rows of
``simulate(series_text=True)`` against ``csv.writer``, ``derived.Series.from_simulator``
against ``derived.Series``. Random cases from fixed seeds (a property test without a
property-testing library: every run checks the same cases)."""

from __future__ import annotations

import csv
import io
import json
import math
import random
import struct
from itertools import repeat

import pytest

import flowstate
from flowstate import _native
from flowstate.catalogue import derived
from flowstate.json_text import dumps_indent2
from flowstate.simulation import RunResult

SPECIAL_FLOATS = [
    0.0, -0.0, 1.0, -1.0, 0.1, 1e-4, 1e-5, 9.999e-5, 1.5e-5, 1e15, 1e16, 9999999999999998.0,
    1.2345678901234567e16, 1e22, 1e100, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
    0.30000000000000004, 123456.789, 2.0 / 3.0, float("nan"), float("inf"), float("-inf"),
]


def random_float(rng: random.Random) -> float:
    """A float from random bits half of the time (every exponent), else a "measured"
    value (a rate or a delay with a few decimals)."""
    if rng.random() < 0.5:
        return struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
    return round(rng.uniform(-1e4, 1e4), rng.randrange(0, 12)) * 10.0 ** rng.randrange(-8, 20)


def random_str(rng: random.Random) -> str:
    alphabet = ['a', 'Z', ' ', '~', '"', '\\', '/', '\n', '\r', '\t', '\b', '\f', '\x00', '\x1f',
                '\x7f', '\x80', 'é', 'ß', '€', '\u2028', '\ud7ff', '\ue000', '\uffff', '😀', '\U0010ffff']
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 8)))


def random_document(rng: random.Random, depth: int = 0):
    kind = rng.randrange(9 if depth < 4 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.choice([0, -1, 7, 2**63 - 1, -(2**63), 2**64, -(10**30), rng.randrange(-10**6, 10**6)])
    if kind == 3:
        return random_float(rng)
    if kind in (4, 5):
        return random_str(rng)
    if kind == 6:
        return {random_str(rng): random_document(rng, depth + 1) for _ in range(rng.randrange(0, 5))}
    if kind == 7:
        return [random_document(rng, depth + 1) for _ in range(rng.randrange(0, 5))]
    return tuple(random_document(rng, depth + 1) for _ in range(rng.randrange(0, 4)))


def test_floats_are_written_as_json_dumps_writes_them():
    rng = random.Random(20261126)
    values = SPECIAL_FLOATS + [random_float(rng) for _ in range(100_000)]
    for x in values:
        assert _native.json_dumps_indent2(x) == json.dumps(x, indent=2), repr(x)
    # One document of them all: the list layout too.
    assert _native.json_dumps_indent2(values) == json.dumps(values, indent=2)


def test_documents_are_written_as_json_dumps_writes_them():
    rng = random.Random(1)
    for _ in range(5_000):
        doc = random_document(rng)
        assert dumps_indent2(doc) == json.dumps(doc, indent=2)


def test_what_the_encoder_does_not_take_goes_to_json_dumps():
    # Keys that are not str (json.dumps converts them), and a type json refuses.
    doc = {1: "a", None: [1.5], 2.5: True, False: {}}
    with pytest.raises(TypeError):
        _native.json_dumps_indent2(doc)
    assert dumps_indent2(doc) == json.dumps(doc, indent=2)
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps_indent2({"x": {1, 2}})
    # allow_nan=False: json.dumps' own ValueError.
    with pytest.raises(ValueError, match="Out of range float"):
        dumps_indent2({"x": [1.0, float("nan")]}, allow_nan=False)
    assert dumps_indent2({"x": [1.0]}, allow_nan=False) == json.dumps({"x": [1.0]}, indent=2)


SCENARIO = """
name = "text"
duration = "8s"
[link]
capacity = "3Mbps"
delay = "20ms"
queue = "40pkt"
loss = 0.01
[[flows]]
name = "video"
kind = "gcc"
[[flows]]
name = "data"
kind = "sctp"
start = "2s"
[[flows]]
name = "late"
kind = "tcp-newreno"
start = "6s"
"""


def csv_writer_text(seeds, runs):
    """What csv.writer writes for these runs' columns (the old RunResult.write)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["run", "seed", *next(r for r in runs if r).keys()])
    for i, (seed, series) in enumerate(zip(seeds, runs)):
        if series:
            writer.writerows(zip(repeat(i), repeat(seed), *series.values()))
    return out.getvalue()


def test_series_files_are_what_csv_writer_writes(tmp_path):
    """Both native paths (the rows rendered on the workers, and rendered from the
    columns afterwards) write csv.writer's text."""
    raw = _native.simulate(SCENARIO, "<test>", seed=3, runs=3, threads=1, series_text=True)
    # The rows hold the empty cells of missing samples (no RTT before a flow starts,
    # no target for a window flow).
    assert ",," in raw[0]["series_text"]
    seeds = [r["seed"] for r in raw]
    want_series = csv_writer_text(seeds, [r["series"] for r in raw])
    want_links = csv_writer_text(seeds, [r["link_series"] for r in raw])
    with_text = RunResult(raw)
    from_columns = RunResult([{k: v for k, v in r.items() if not k.endswith("series_text")} for r in raw])
    assert with_text._series_text is not None and from_columns._series_text is None
    for result, folder in ((with_text, tmp_path / "text"), (from_columns, tmp_path / "columns")):
        result.write(folder)
        assert (folder / "timeseries.csv").read_text() == want_series
        assert (folder / "links.csv").read_text() == want_links
    assert (tmp_path / "text" / "summary.json").read_bytes() == (tmp_path / "columns" / "summary.json").read_bytes()
    assert want_series.count("\n") == 1 + sum(len(r["series"]["time_s"]) for r in raw)


def test_csv_rows_text_cells():
    cols = [
        [0.1, 1e-05, -0.0, float("nan"), float("inf"), 1e16],
        [1, 2**70, -3, 0, True, False],
        [None, "a b", "é", None, "", "x"],
    ]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(zip(*cols))
    assert _native.csv_rows_text(cols) == out.getvalue()
    assert _native.csv_rows_text([[], []]) == ""


@pytest.mark.parametrize(
    "cols",
    [
        [[1.0], ["a,b"]],  # csv.writer would quote it
        [[1.0], ['say "hi"']],
        [[1.0], ["two\nlines"]],
        [[1.0, 2.0], [1]],  # different lengths
        [[1.0], [object()]],
        [[1.0], [type("F", (float,), {"__str__": lambda self: "F"})(2.0)]],  # str() of a subclass
    ],
)
def test_csv_rows_text_leaves_to_csv_writer(cols, tmp_path):
    with pytest.raises(TypeError):
        _native.csv_rows_text(cols)
    # RunResult.write falls back to csv.writer: the same file as csv.writer's.
    series = {"time_s": cols[0], "flow": cols[1]}
    if len(cols[0]) == len(cols[1]):
        raw = _native.simulate(SCENARIO, "<test>", seed=1, runs=1, threads=1)
        raw[0]["series"] = series
        RunResult(raw).write(tmp_path)
        assert (tmp_path / "timeseries.csv").read_text() == csv_writer_text([1], [series])


def test_series_text_only_when_asked(tmp_path):
    raw = _native.simulate(SCENARIO, "<test>", seed=1, runs=1, threads=1)
    assert "series_text" not in raw[0] and "link_series_text" not in raw[0]
    result = flowstate.run(toml=SCENARIO, seed=1, out=tmp_path / "out", threads=1)
    assert result._series_text is not None


def bins(series: derived.Series):
    return {f: [(b.time_s, b.throughput_mbps, b.queuing_delay_ms, b.rtt_ms, b.capacity_mbps, b.send_rate_mbps)
                for b in bs] for f, bs in series.flows.items()}, series.bin_s


def same(x, y):
    return x == y or (isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y))


def test_series_from_simulator_has_the_bins_of_series():
    raw = _native.simulate(SCENARIO, "<test>", seed=2, runs=1, threads=1)
    cols = raw[0]["series"]
    assert bins(derived.Series.from_simulator(cols)) == bins(derived.Series(cols))
    # NaN and None read as no sample, a NaN or missing throughput as 0, -0.0 as 0.0.
    hand = {
        "time_s": [0.0, 1.0, 2.0, 0.0],
        "flow": ["a", "a", "a", "b"],
        "throughput_mbps": [float("nan"), None, -0.0, 2.5],
        "queuing_delay_ms": [float("nan"), None, 3.0, 1.0],
        "rtt_ms": [None, 40.0, float("nan"), 1.0],
        "capacity_mbps": [5.0, 5.0, 5.0, 5.0],
    }
    fast, slow = bins(derived.Series.from_simulator(hand)), bins(derived.Series(hand))
    assert fast == slow
    assert fast[0]["a"][0][1] == 0.0 and fast[0]["a"][0][2] is None
    assert all(b[5] is None for b in fast[0]["a"])  # no send_rate column
