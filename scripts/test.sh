#!/usr/bin/env bash
# Sets up, then runs every check and test: rustfmt, clippy (warnings are errors),
# cargo test (unit, property and scenario tests, doc tests), a short cargo-fuzz run per
# target (FLOWSTATE_FUZZ_SECS, default 15 s; scripts/fuzz.sh), pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-test.sh
echo "== rustfmt"; cargo fmt --all -- --check
echo "== clippy"; cargo clippy --workspace --all-targets --quiet -- -D warnings
# flowstate-coupling's `custom-mechanism` feature: its example and test need it.
cargo clippy -p flowstate-coupling --all-targets --all-features --quiet -- -D warnings
echo "== cargo test"; cargo test --workspace --quiet
cargo test -p flowstate-coupling --all-features --quiet
echo "== fuzz (cargo-fuzz, ${FLOWSTATE_FUZZ_SECS:-15} s per target)"; bash scripts/fuzz.sh "${FLOWSTATE_FUZZ_SECS:-15}"
echo "== pytest"; .venv/bin/python -m pytest
