#!/usr/bin/env python3
"""Pool the real runs of one case from several `flowstate browser --runs K` folders into
one folder that `tools/real_vs_sim.py --tables-only` reads (e.g. a case recorded three
times, then three more times with more getStats fields), or, from one source, the compact
copy of references/ (references/README.md).

    .venv/bin/python tools/pool_real_runs.py [--stack flowstate] OUT CASE SRC_ROOT [SRC_ROOT ...]

takes SRC_ROOT/CASE/chromium/ (its summary.json's `per_run` and its timeseries.csv) of
every SRC_ROOT and writes OUT/CASE/chromium/summary.json (per_run: all runs, in order)
and timeseries.csv (run numbered 0.. across the sources; the summary's `clips` lists each
run's test clip, from its run-N/browser.json, which real_vs_sim.py names), and copies
SRC_ROOT/CASE/chromium.toml of the first (`--stack flowstate`: the own-stack runs,
CASE/flowstate/ and flowstate.toml, whose browser field is "not recorded"). Nothing else of the summary is recomputed
(`real_vs_sim.py` takes the median over `per_run`).
"""

from __future__ import annotations

import csv
import json
import shutil
import sys
from pathlib import Path


# The stacks `flowstate browser` runs (real_vs_sim.py's Case.stacks).
STACKS = ("chromium", "flowstate")


def source_clips(folder: Path, summary: dict, runs: int) -> list[str]:
    """The test clip of each of a source's runs: its summary's `clips` (an earlier pool),
    else run-*/browser.json's `clip` in run order, "not recorded" where missing."""
    return source_field(folder, summary, runs, "clips", "clip")


def run_clip(run_dir: Path) -> str:
    """The test clip one real run played: its browser.json's `clip`, "not recorded" where
    the file or the field is missing; a browser.json that is not a JSON object is a
    one-line error."""
    return run_field(run_dir, "clip")


def run_field(run_dir: Path, key: str) -> str:
    """One text field of a real run's browser.json (`clip`, `chromium`, `kernel`), "not
    recorded" where the file or the field is missing."""
    b = run_dir / "browser.json"
    try:
        value = json.loads(b.read_text()).get(key) if b.exists() else None
    except (json.JSONDecodeError, AttributeError):
        raise SystemExit(f"{b}: not a browser.json (JSON object) of a real run") from None
    return value if isinstance(value, str) and value else "not recorded"


def source_field(folder: Path, summary: dict, runs: int, key: str, field: str) -> list[str]:
    """``field`` of each of a source's runs: its summary's list ``key`` (an earlier pool),
    else run-*/browser.json in run order."""
    if isinstance(summary.get(key), list) and len(summary[key]) == runs:
        return [str(c) for c in summary[key]]
    return [run_field(folder / f"run-{k}", field) for k in range(1, runs + 1)]


def source_loads(folder: Path, summary: dict, runs: int) -> list:
    """Each run's load averages as it started and ended (``{"start": [1, 5, 15 min],
    "end": [...]}``, None where the run did not record them): the summary's ``loadavg``
    (an earlier pool), else run-*/browser.json."""
    if isinstance(summary.get("loadavg"), list) and len(summary["loadavg"]) == runs:
        return list(summary["loadavg"])
    out = []
    for k in range(1, runs + 1):
        try:
            b = json.loads((folder / f"run-{k}" / "browser.json").read_text())
        except (OSError, ValueError):
            out.append(None)
            continue
        start, end = b.get("loadavg_start"), b.get("loadavg_end")
        out.append({"start": start, "end": end} if start is not None else None)
    return out


def pool(out: Path, case: str, sources: list[Path], stack: str = "chromium") -> Path:
    per_run: list[dict] = []
    clips: list[str] = []
    browsers: list[str] = []
    kernels: list[str] = []
    loads: list = []
    rows: list[dict] = []
    fields: list[str] = []
    first = None
    for src in sources:
        folder = src / case / stack
        summary = json.loads((folder / "summary.json").read_text())
        first = first or summary
        runs = summary.get("per_run", [summary])
        offset = len(per_run)
        per_run += runs
        clips += source_clips(folder, summary, len(runs))
        browsers += source_field(folder, summary, len(runs), "browsers", "chromium")
        kernels += source_field(folder, summary, len(runs), "kernels", "kernel")
        loads += source_loads(folder, summary, len(runs))
        with open(folder / "timeseries.csv", newline="") as f:
            reader = csv.DictReader(f)
            fields = fields or list(reader.fieldnames or [])
            for r in reader:
                r["run"] = str(int(r["run"]) + offset)
                rows.append(r)
    assert first is not None
    dest = out / case / stack
    dest.mkdir(parents=True, exist_ok=True)
    merged = {**first, "runs": len(per_run), "seeds": [r.get("seed") for r in per_run], "per_run": per_run, "clips": clips,
              "browsers": browsers, "kernels": kernels}
    if any(x is not None for x in loads):
        merged["loadavg"] = loads
    (dest / "summary.json").write_text(json.dumps(merged, indent=1))
    with open(dest / "timeseries.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    toml = sources[0] / case / f"{stack}.toml"
    if toml.exists():
        shutil.copy(toml, out / case / f"{stack}.toml")
    return dest


def main() -> None:
    args = sys.argv[1:]
    stack = "chromium"
    if args[:1] == ["--stack"]:
        if len(args) < 2 or args[1] not in STACKS:
            raise SystemExit(f"--stack: one of {', '.join(STACKS)}")
        stack, args = args[1], args[2:]
    if len(args) < 3:
        raise SystemExit("usage: pool_real_runs.py [--stack chromium|flowstate] OUT CASE SRC_ROOT [SRC_ROOT ...]")
    out, case, sources = Path(args[0]), args[1], [Path(p) for p in args[2:]]
    for s in sources:
        if not (s / case / stack / "summary.json").exists():
            raise SystemExit(f"no {s / case / stack / 'summary.json'}")
    print(pool(out, case, sources, stack))


if __name__ == "__main__":
    main()
