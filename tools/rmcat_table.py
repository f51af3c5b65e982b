#!/usr/bin/env python3
"""The RFC 8867 cases side by side: one Markdown row per case and media controller with
the RFC 8868 section 2 metrics of the media flows and the claims that hold.

    flowstate reproduce rfc8867-5.1 rfc8867-5.2 ... rfc8867-5.8 --out out/rmcat [--short]
    python tools/rmcat_table.py out/rmcat

Reads OUT/<id>/results.json of every rfc8867-* entry found there. Per point (a
controller, in 5.6 a controller and a queue size), over the media flows (kinds gcc, nada,
scream; cross traffic is left out): mean throughput per flow, aggregate utilization,
Jain's index of the media flows' throughputs (RFC 8868 item 7), the highest median and
95th-percentile queuing delay, the highest 95th-percentile one-way delay (item 4), the
mean RFC 3550 jitter, the mean loss ratio (item 5), and how many of the controller's
claims hold (claims are prefixed with the controller's name: "NADA: ...").
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Optional

MEDIA = {"gcc": "GCC", "nada": "NADA", "scream": "SCReAM"}
HEADER = (
    "| case | point | media Mbit/s per flow | utilization | Jain (media) | queuing p50 / p95 ms "
    "| one-way p95 ms | jitter ms | loss % | claims held |"
)


def _num(value: Any) -> Optional[float]:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _fmt(value: Optional[float], digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _jain(xs: list[float]) -> Optional[float]:
    sq = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * sq) if xs and sq > 0 else None


def rows(results: dict[str, Any]) -> list[str]:
    """One Markdown row per point of one entry's results.json."""
    out = []
    for point in results["points"]:
        flows = [f for f in point["summary"]["flows"] if f.get("kind") in MEDIA]
        if not flows:
            continue
        controller = MEDIA[flows[0]["kind"]]
        tput = [_num(f.get("throughput_mbps")) or 0.0 for f in flows]

        def worst(field: str, stat: str) -> Optional[float]:
            xs = [_num((f.get(field) or {}).get(stat)) for f in flows]
            return max((x for x in xs if x is not None), default=None)

        def mean(field: str) -> Optional[float]:
            xs = [x for x in (_num(f.get(field)) for f in flows) if x is not None]
            return sum(xs) / len(xs) if xs else None

        mine = [c for c in results["claims"] if c["text"].startswith(controller + ":")]
        held = sum(c["status"] == "holds" for c in mine)
        loss = mean("loss_ratio")
        out.append(
            "| "
            + " | ".join(
                [
                    results["id"].removeprefix("rfc8867-"),
                    point["label"],
                    ", ".join(_fmt(x) for x in tput),
                    _fmt(_num(point["summary"]["aggregate"].get("utilization"))),
                    _fmt(_jain(tput), 3),
                    f"{_fmt(worst('queuing_delay_ms', 'p50'), 0)} / {_fmt(worst('queuing_delay_ms', 'p95'), 0)}",
                    _fmt(worst("one_way_delay_ms", "p95"), 0),
                    _fmt(mean("jitter_ms"), 1),
                    _fmt(None if loss is None else loss * 100, 2),
                    f"{held} / {len(mine)}",
                ]
            )
            + " |"
        )
    return out


def table(out_dir: Path) -> str:
    """The Markdown table of every rfc8867-* reproduction under ``out_dir``."""
    found = sorted(p for p in out_dir.glob("rfc8867-*/results.json"))
    if not found:
        raise SystemExit(f"{out_dir}: no rfc8867-*/results.json (run flowstate reproduce rfc8867-5.1 ... --out {out_dir})")
    lines = [HEADER, "|" + "---|" * HEADER.count(" | ") + "---|"]
    runs = set()
    for path in found:
        results = json.loads(path.read_text())
        runs.add((results["runs"], results.get("short", False)))
        lines += rows(results)
    note = ", ".join(f"{r} run{'s' if r != 1 else ''}{' (short)' if s else ''}" for r, s in sorted(runs))
    return "\n".join(lines) + f"\n\nMeans over {note}, in each case's measurement window.\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[0] + "\nusage: python tools/rmcat_table.py OUT_DIR", file=sys.stderr)
        return 2
    print(table(Path(argv[0])), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
