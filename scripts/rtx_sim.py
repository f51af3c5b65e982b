#!/usr/bin/env python3
"""The simulator's NACK/RTX retransmissions (option `nack_rtx`) in the figures of
docs/REPRODUCTION.md's "Chromium's NACK/RTX retransmissions and padding, measured"
table (issue 21; "The simulator's NACK/RTX against Chromium's" there).

    .venv/bin/python scripts/rtx_sim.py FROM TO TRACE ...

TRACE: the stderr of a scratch build with scripts/patches/issue21-trace-rtx.patch
(never landed) run with FS_TRACE=1, e.g. `FS_TRACE=1 target/release/examples/series
OUT.toml 1 SEED 2> TRACE` (OUT.toml: `combo_search.py --write-toml DIR --combo ...`).
The patch writes `X us kind seq` for every packet the video sender sends, `A us kind
seq` for every packet its receiver gets, kind `m` (media), `f` (ULPFEC), `p` (padding)
or `r` (RTX; seq is the original's), and a `K` line per NACK the sender gets (read by
no script). Per trace, over the media packets sent in [FROM, TO) s (dropped: never
arrived while a later one did): the share the link dropped, retransmissions a second
(first RTX of a dropped media packet) and repeats a second (further RTX), the share of
dropped media packets with an RTX (sent) and recovered (an RTX arrived), RTX per
dropped media packet, and the first RTX's delay after the original was sent (ms, p25 /
p50 / p75).
No browser, no namespaces.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional


@dataclass
class Trace:
    sent: dict[str, dict[int, float]] = field(default_factory=lambda: {"m": {}, "f": {}, "p": {}})
    rtx_sent: dict[int, list[float]] = field(default_factory=dict)
    arrived: set[int] = field(default_factory=set)
    rtx_arrived: set[int] = field(default_factory=set)


def parse(lines: Iterable[str]) -> Trace:
    """The `X` and `A` lines of a trace; other lines are skipped, a malformed X/A line is
    a ValueError naming it."""
    t = Trace()
    for n, line in enumerate(lines, 1):
        if not line.startswith(("X ", "A ")):
            continue
        parts = line.split()
        if len(parts) != 4 or parts[2] not in ("m", "f", "p", "r"):
            raise ValueError(f"line {n}: not 'X|A us m|f|p|r seq': {line.strip()!r}")
        try:
            us, seq = int(parts[1]), int(parts[3])
        except ValueError:
            raise ValueError(f"line {n}: not 'X|A us m|f|p|r seq': {line.strip()!r}") from None
        s = us / 1e6
        kind = parts[2]
        if parts[0] == "X":
            if kind == "r":
                t.rtx_sent.setdefault(seq, []).append(s)
            else:
                t.sent[kind].setdefault(seq, s)
        elif kind == "r":
            t.rtx_arrived.add(seq)
        elif kind == "m":
            t.arrived.add(seq)
    return t


def pct(xs: list[float], q: float) -> Optional[float]:
    if not xs:
        return None
    xs = sorted(xs)
    i = (len(xs) - 1) * q
    lo = int(i)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (i - lo)


def rates(t: Trace, start: float, end: float) -> dict:
    """The figures of one trace over media packets sent in [start, end)."""
    media = {q: s for q, s in t.sent["m"].items() if start <= s < end}
    # Lost: not arrived while a later media packet did (not one still on its way when
    # the run ended).
    newest = max(t.arrived, default=-1)
    dropped = [q for q in media if q not in t.arrived and q < newest]
    span = end - start
    first = [t.rtx_sent[q][0] - media[q] for q in dropped if q in t.rtx_sent]
    rtx = sum(len(t.rtx_sent.get(q, [])) for q in dropped)
    with_rtx = sum(1 for q in dropped if q in t.rtx_sent)
    return {
        "media_packets": len(media),
        "dropped": len(dropped),
        "loss": len(dropped) / len(media) if media else None,
        "retransmissions_per_s": with_rtx / span,
        "repeats_per_s": (rtx - with_rtx) / span,
        "with_rtx": with_rtx / len(dropped) if dropped else None,
        "recovered": sum(1 for q in dropped if q in t.rtx_arrived) / len(dropped) if dropped else None,
        "rtx_per_dropped": rtx / len(dropped) if dropped else None,
        "first_rtx_ms": [None if pct(first, q) is None else 1000 * pct(first, q) for q in (0.25, 0.5, 0.75)],
    }


def fmt(x: Optional[float], digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def row(name: str, r: dict) -> str:
    d = r["first_rtx_ms"]
    return (f"| {name} | {fmt(r['loss'], 3)} ({r['dropped']}) | {fmt(r['retransmissions_per_s'])} | "
            f"{fmt(r['repeats_per_s'])} | {fmt(r['with_rtx'])} | {fmt(r['recovered'])} | "
            f"{fmt(r['rtx_per_dropped'])} | {' / '.join(fmt(x, 0) for x in d)} |")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("start", type=float, help="FROM, s")
    ap.add_argument("end", type=float, help="TO, s")
    ap.add_argument("traces", nargs="+", type=Path)
    args = ap.parse_args(argv)
    if not args.end > args.start:
        ap.error(f"TO must be after FROM, got {args.start} and {args.end}")
    print("| trace | loss of media packets (dropped) | retransmissions /s | repeats /s | dropped with an RTX | "
          "recovered | RTX per dropped | first RTX after the original, ms p25 / p50 / p75 |")
    print("|---|---|---|---|---|---|---|---|")
    for path in args.traces:
        try:
            with path.open() as f:
                t = parse(f)
        except (OSError, ValueError) as e:
            print(f"rtx_sim.py: {path}: {e}", file=sys.stderr)
            return 2
        print(row(path.name, rates(t, args.start, args.end)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
