#!/usr/bin/env bash
# The test set-up (scripts/test.sh): the main set-up (scripts/setup.sh), then what only
# the tests use: pytest, html5lib, gymnasium, numpy, onnx and onnxruntime (requirements.txt), playwright (tests/test_browser_*.py;
# the `browser` and `test` extras), Ray (the Ray sweep test; the `ray` extra), and where
# we can, tshark and chromium (scripts/install-test-tools.sh). One line per step.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export VIRTUAL_ENV="$PWD/.venv"
export PATH="$VIRTUAL_ENV/bin:$PATH"
LOG=.venv/setup.log
pip_quiet() { python -m pip install --quiet --disable-pip-version-check "$@" >>"$LOG" 2>&1; }

echo "setup: installing the test packages (requirements.txt, playwright)"
pip_quiet -r requirements.txt "playwright>=1.40" || {
  echo "setup: failed: installing the test packages; its output (from $LOG):" >&2
  tail -n 40 "$LOG" >&2
  exit 1
}
# Ray: the optional executor of `flowstate sweep` (pyproject extra `ray`), installed so that
# its test runs against a local Ray instance. Skipped when already importable (keeps reruns fast).
if ! python -c "import ray" >/dev/null 2>&1; then
  echo "setup: installing ray (the Ray sweep test)"
  pip_quiet "ray>=2" || echo "setup: could not install ray; the Ray sweep test will report SKIPPED" >&2
fi
# tshark checks that flowstate-wire's packets decode in Wireshark, chromium that the
# reports render; install them where we can.
if { ! command -v tshark >/dev/null 2>&1 || ! command -v chromium >/dev/null 2>&1 \
  || ! command -v node >/dev/null 2>&1; } \
  && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "setup: installing tshark, chromium and node (apt-get)"
  sh scripts/install-test-tools.sh >>"$LOG" 2>&1 \
    || echo "setup: could not install tshark/chromium/node; their tests will report SKIPPED" >&2
fi
