#!/usr/bin/env bash
# The main job: set up, then reproduce the headline experiment, paper 000's Table 5
# (one GCC video flow and one SCTP data channel on a 2 Mbit/s bottleneck), uncoupled
# and under FSE-NG, Extended FSE-NG and FSEv2, 10 runs each (catalogue entry
# scenarios/p000-table5/experiment.toml). Prints the comparison with the paper's
# numbers and the paper's claims, and ends with where the report is:
# out/p000-table5/report.html (results.json and each variant's summary.json and
# timeseries.csv next to it). Extra arguments go to `flowstate reproduce`
# (e.g. --runs 3, --out DIR). --force: a second run replaces the first one's folder
# (without it `reproduce` refuses a folder that holds outputs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/flowstate reproduce p000-table5 --force "$@"
