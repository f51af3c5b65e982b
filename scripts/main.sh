#!/usr/bin/env bash
# The main job: set up, then reproduce the headline experiment, paper 000's Table 5
# (one GCC video flow and one SCTP data channel on a 2 Mbit/s bottleneck), uncoupled
# and under each media+data coupling mechanism, 10 runs each. Outputs (summary.json,
# timeseries.csv per variant) go to out/p000-table5/<mechanism>/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
for mechanism in none fse-ng ext-fse-ng fsev2; do
  .venv/bin/flowstate run "scenarios/p000-table5-${mechanism}.toml" --runs 10 \
    --out "out/p000-table5/${mechanism}" "$@"
  echo
done
echo "Paper 000 Table 5 (means of 10 runs): GCC 0.106 / 0.955 / 1.001 / 0.946 Mbit/s,"
echo "SCTP 1.889 / 0.942 / 0.954 / 0.948 Mbit/s, Jain 0.556 / 1 / 0.999 / 1,"
echo "GCC RTT 268 / 114 / 120 / 115 ms (uncoupled / FSE-NG / Ext FSE-NG / FSEv2)."
echo "Where ours differ and why: docs/ALGORITHMS.md (Simulator, known deviations)."
