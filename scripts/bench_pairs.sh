#!/bin/bash
# Interleaved timing pairs of two engine binaries (or two scenarios), the way
# docs/BENCHMARKS.md compares code on a shared machine whose speed drifts:
#
#   bash scripts/bench_pairs.sh N BINARY_A SCENARIO_A BINARY_B SCENARIO_B
#
# runs A then B, N times, and prints the medians, the minima and the median of the
# pairs' B/A ratios of the engine's own wall time (what `run_scenario` prints on stderr:
# `flowstate_sim::run` alone). Build the binaries with
# `cargo build --release -p flowstate-sim --example run_scenario` (copy each out of
# target/ before building the other) and write scenarios with scripts/bench_scale.py's
# `scenario()`.
set -euo pipefail
if [ "$#" -ne 5 ]; then
  echo "usage: bash scripts/bench_pairs.sh N BINARY_A SCENARIO_A BINARY_B SCENARIO_B" >&2
  exit 2
fi
n=$1
case "$n" in
  '' | *[!0-9]*)
    echo "bench_pairs.sh: N must be a positive whole number, got '$n'" >&2
    exit 2
    ;;
esac
if [ "$n" -lt 1 ]; then
  echo "bench_pairs.sh: N must be at least 1, got $n" >&2
  exit 2
fi
for f in "$2" "$4"; do
  if [ ! -x "$f" ]; then
    echo "bench_pairs.sh: $f is not an executable engine binary" >&2
    exit 2
  fi
done
for f in "$3" "$5"; do
  if [ ! -f "$f" ]; then
    echo "bench_pairs.sh: no scenario file $f" >&2
    exit 2
  fi
done

# The engine's wall time of one run of binary $1 on scenario $2.
wall() {
  local out
  if ! out=$("$1" "$2" 2>&1 >/dev/null); then
    echo "bench_pairs.sh: $1 $2 failed: $out" >&2
    exit 1
  fi
  echo "$out" | awk '/^wall /{print $2}'
}

for _ in $(seq "$n"); do
  echo "$(wall "$2" "$3") $(wall "$4" "$5")"
done | python3 -c '
import statistics, sys
rows = [tuple(map(float, line.split())) for line in sys.stdin if line.strip()]
a = [r[0] for r in rows]
b = [r[1] for r in rows]
med = statistics.median
print(
    "A s: median %.3f min %.3f | B s: median %.3f min %.3f | B/A: medians %.3f, minima %.3f, median of the pairs %.3f"
    % (med(a), min(a), med(b), min(b), med(b) / med(a), min(b) / min(a), med([y / x for x, y in rows]))
)
'
