#!/usr/bin/env python3
"""The training workload of the profile-guided build (scripts/build_native.sh).

    python scripts/pgo_training.py

Runs, with the instrumented extension installed, what the profile should be made of:
the whole catalogue at one run per point (every endpoint, coupling mechanism and
preset the catalogue uses, through the same front-end paths as `flowstate reproduce`)
and a 1,000-flow TCP run and GCC+SCTP run of the scaling benchmark (scripts/bench_scale.py:
the many-flow paths, the trace hash). What it writes goes to a temporary folder,
removed at the end; the counts go where the instrumented build was told
(`-Cprofile-generate`).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    sys.path.insert(0, str(ROOT / "scripts"))
    import bench_scale

    import flowstate
    from flowstate.cli.main import main as cli_main

    with tempfile.TemporaryDirectory(prefix="flowstate-pgo-") as work:
        out = Path(work)
        status = cli_main(["reproduce", "--all", "--runs", "1", "--jobs", "2", "--no-report", "--out", str(out / "catalogue")])
        if status:
            print(f"pgo_training: `flowstate reproduce --all` exited with status {status}", file=sys.stderr)
            return 1
        for mix in ("tcp", "gcc-sctp"):
            path = out / f"{mix}-1000.toml"
            path.write_text(bench_scale.scenario(mix, 1000, 3), encoding="utf-8")
            flowstate.run(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
