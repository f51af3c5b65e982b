#!/usr/bin/env bash
# The main job: set up, then run the headline demonstration.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/flowstate demo "$@"
