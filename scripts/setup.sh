#!/usr/bin/env bash
# Installs everything flowstate needs into ./.venv and builds the native extension.
# Idempotent: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

need() { command -v "$1" >/dev/null 2>&1 || { echo "setup: '$1' not found: $2" >&2; exit 1; }; }
need cargo "install the Rust toolchain (rustup, stable >= 1.80) first"
need python3 "install Python >= 3.9 first"

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
export VIRTUAL_ENV="$PWD/.venv"
export PATH="$VIRTUAL_ENV/bin:$PATH"
python -m pip install --quiet --disable-pip-version-check "maturin>=1.5,<2" -r requirements.txt
# Release build: the simulator and the benchmarks run through this extension.
maturin develop --quiet --release --extras test 2>&1 | grep -vE "^(📦|🔗|🐍|💻|✏️|🛠|📖|⚠️ +Warning: .*RECORD)" || true
# tshark checks that flowstate-wire's packets decode in Wireshark; install it where we can.
if ! command -v tshark >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  sh scripts/install-test-tools.sh >/dev/null 2>&1 || echo "setup: could not install tshark; its test will report SKIPPED" >&2
fi
# Ray: the optional executor of `flowstate sweep` (pyproject extra `ray`), installed so that
# its test runs against a local Ray instance. Skipped when already importable (keeps reruns fast).
if ! python -c "import ray" >/dev/null 2>&1; then
  python -m pip install --quiet --disable-pip-version-check "ray>=2" \
    || echo "setup: could not install ray; the Ray sweep test will report SKIPPED" >&2
fi
python -c "import flowstate" || { echo "setup: the flowstate extension did not build" >&2; exit 1; }
