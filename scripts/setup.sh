#!/usr/bin/env bash
# The main job's set-up (scripts/main.sh): ./.venv with maturin, the native extension
# (release build) and the package's own dependencies (pandas, rich, matplotlib), nothing
# else; the test set-up (scripts/setup-test.sh) adds what the tests need on top.
# Prints one line per step; a step's own output is kept in .venv/setup.log and shown only
# if the step fails. Idempotent: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

need() { command -v "$1" >/dev/null 2>&1 || { echo "setup: '$1' not found: $2" >&2; exit 1; }; }
need cargo "install the Rust toolchain (rustup, stable >= 1.80) first"
need python3 "install Python >= 3.9 first"

LOG=.venv/setup.log
# step "what it does" command...: one line, the command's output to $LOG (shown on failure).
source scripts/setup_step.sh

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  python3 -m venv .venv
fi
: >"$LOG"
export VIRTUAL_ENV="$PWD/.venv"
export PATH="$VIRTUAL_ENV/bin:$PATH"
if ! python -c "import maturin" >/dev/null 2>&1; then
  step "installing maturin" python -m pip install --quiet --disable-pip-version-check "maturin>=1.5,<2"
fi
# The distribution was once called "flowstate" (a name PyPI gives an unrelated project):
# a venv set up then holds that record, which the rename would leave behind.
if python -m pip show --disable-pip-version-check flowstate >/dev/null 2>&1; then
  step "removing the distribution's old name (flowstate, now flowstate-rtc)" \
    python -m pip uninstall --yes --quiet --disable-pip-version-check flowstate
  # It took the `flowstate` command with it: install the extension again.
  rm -f .venv/native-build.key
fi
# Release build: the simulator and the benchmarks run through this extension (scripts/
# build_native.sh; skipped when no Rust source changed since the installed build;
# FLOWSTATE_PGO=1 makes it profile-guided, for benchmarks). maturin also installs the
# package's dependencies (pyproject.toml [project] dependencies).
LOG="$LOG" bash scripts/build_native.sh
step "checking that flowstate imports" python -c "import flowstate"
