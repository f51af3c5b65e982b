#!/usr/bin/env bash
# Build scripts/ns3/dumbbell.cc against Debian's ns-3 (apt-get install libns3-dev) and
# run it: bash scripts/ns3/run.sh FLOWS [SECONDS]. Prints ns-3's own timing line, then
# the process's wall, user and system time and peak RSS (/usr/bin/time).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${TMPDIR:-/tmp}/flowstate-ns3-dumbbell"
if [ ! -x "$bin" ] || [ "$here/dumbbell.cc" -nt "$bin" ]; then
    g++ -O2 -std=c++17 -o "$bin" "$here/dumbbell.cc" \
        -lns3-point-to-point-layout -lns3-applications -lns3-internet -lns3-traffic-control \
        -lns3-point-to-point -lns3-network -lns3-core
fi
/usr/bin/time -f "wall %e s, user %U s, sys %S s, peak RSS %M kB" "$bin" --flows="${1:-100}" --seconds="${2:-10}"
