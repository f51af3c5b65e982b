#!/usr/bin/env bash
# Sets up, then runs every check and test: rustfmt, clippy (warnings are errors),
# cargo test (unit, property and scenario tests, doc tests), pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "== rustfmt"; cargo fmt --all -- --check
echo "== clippy"; cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "== cargo test"; cargo test --workspace --quiet
echo "== pytest"; .venv/bin/python -m pytest
