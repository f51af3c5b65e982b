#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/fuzz_targets/: rtp, rtcp, ccfb, sctp, utp) for a time budget each:
#   scripts/fuzz.sh [SECONDS] [TARGET...]      (default 15 s, all targets)
# Needs the nightly toolchain (installed with rustup when missing) and cargo-fuzz
# (installed with `cargo install cargo-fuzz --locked` when missing). Without nightly it
# prints a notice and exits 0. A crash fails the script; the reproducer is in
# fuzz/artifacts/<target>/ and the full log in fuzz/target/fuzz-<target>.log.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-15}"
shift || true
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  if ! rustup toolchain install nightly --profile minimal >/dev/null 2>&1; then
    echo "NOTICE: no nightly Rust toolchain available: fuzzing skipped"
    exit 0
  fi
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz"
  cargo install cargo-fuzz --locked --quiet
fi
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
mkdir -p fuzz/target
status=0
for t in "${targets[@]}"; do
  log="fuzz/target/fuzz-$t.log"
  if cargo +nightly fuzz run "$t" -- -max_total_time="$secs" -print_final_stats=1 >"$log" 2>&1; then
    done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)
    execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
    echo "fuzz $t: ${secs}s, ${execs:-?} executions, no crash (${done_line:-see $log})"
  else
    echo "fuzz $t: FAILED (log: $log)"
    tail -40 "$log"
    status=1
  fi
done
exit "$status"
