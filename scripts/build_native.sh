#!/usr/bin/env bash
# Builds and installs the native extension (flowstate._native) into ./.venv: a release
# build. Called by scripts/setup.sh; run it alone after changing Rust code. A build whose
# Rust sources, Cargo.lock, compiler and mode are those of the installed extension is
# skipped (one "up to date" line), so a second set-up builds nothing.
#
#   bash scripts/build_native.sh            # the extension, a plain release build
#   bash scripts/build_native.sh --example  # also target/release/examples/run_scenario,
#                                           # the engine binary, built the same way
#   FLOWSTATE_PGO=1 bash scripts/build_native.sh   # profile-guided (benchmarks: ~15 % faster
#                                           # simulations, two builds and a training run)
#
# Profile-guided optimization (docs/investigations/2026-11-scaling-passes.md,
# "whole-program LTO and a profile-guided build"): an instrumented build
# of the extension runs a training workload (the whole catalogue at one run per point,
# and a 1,000-flow TCP and GCC+SCTP run), `llvm-profdata` merges what it counted, and the
# final build optimizes with those counts (branch layout, inlining, hot and cold code).
# The results are the same (no fast-math: the same floating-point operations; checked on
# every catalogue output file); only the speed changes (~15 % less CPU for the catalogue).
# The profile is kept in .venv/pgo/ under a hash of the Rust sources and the compiler, so
# a second run with unchanged sources skips the instrumented build and the training.
# `llvm-profdata` must be the one of rustc's own LLVM (rustup's `llvm-tools` component,
# added here when missing); without it the build is a plain release build, said in one line.
#
# Prints one line per step (the `setup:` lines); each step's output goes to $LOG, shown
# only when the step fails.
set -euo pipefail
cd "$(dirname "$0")/.."
PGO=${FLOWSTATE_PGO:-0}

if [ ! -x .venv/bin/maturin ]; then
  echo "build_native.sh: .venv has no maturin: run bash scripts/setup.sh first (it calls this script)" >&2
  exit 1
fi
export VIRTUAL_ENV="$PWD/.venv"
export PATH="$VIRTUAL_ENV/bin:$PATH"
LOG=${LOG:-.venv/setup.log}
EXAMPLE=0
for arg in "$@"; do
  case $arg in
    --example) EXAMPLE=1 ;;
    *) echo "build_native.sh: unknown option '$arg' (known: --example)" >&2; exit 2 ;;
  esac
done

# step "what it does" command...: one line, the command's output to $LOG (shown on failure).
source scripts/setup_step.sh

# Where the PGO build keeps its artifacts: apart from target/, so that a plain
# `cargo build --release` there is not rebuilt each time the flags differ.
PGO_TARGET=target/pgo
PGO_GENERATE_TARGET=target/pgo-generate

# What the installed extension was built from: the sources, the compiler and the mode.
# Written after a build succeeds; a set-up whose key matches builds nothing.
STAMP=.venv/native-build.key
source_key() {
  {
    echo "pgo=$PGO example=$EXAMPLE"
    rustc -vV
    cat Cargo.lock
    find Cargo.toml crates -type f \( -name '*.rs' -o -name Cargo.toml \) -not -path '*/target/*' -print0 \
      | sort -z | while IFS= read -r -d '' f; do printf '%s\n' "$f"; cat "$f"; done
  } | digest | cut -c1-16
}
if command -v sha256sum >/dev/null 2>&1; then
  digest() { sha256sum "$@"; }
elif command -v shasum >/dev/null 2>&1; then
  digest() { shasum -a 256 "$@"; }
else
  digest() { cksum "$@"; }
fi
BUILD_KEY=$(source_key)
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$BUILD_KEY" ] && compgen -G "python/flowstate/_native*.so" >/dev/null \
  && python -c "import flowstate._native" >/dev/null 2>&1; then
  echo "setup: native extension up to date (no Rust change since its build)"
  exit 0
fi
rm -f "$STAMP"
trap '[ $? = 0 ] && echo "$BUILD_KEY" >"$STAMP"' EXIT

plain_build() {
  step "building the native extension (cargo, release; about 1.5 min on a fresh clone)" \
    maturin develop --release
  if [ "$EXAMPLE" = 1 ]; then
    step "building the engine binary (target/release/examples/run_scenario)" \
      cargo build --release -p flowstate-sim --example run_scenario
  fi
}

# llvm-profdata of rustc's own LLVM, or nothing.
find_profdata() {
  local sysroot host tool
  sysroot=$(rustc --print sysroot) || return 1
  host=$(rustc -vV | sed -n 's/^host: //p')
  tool="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
  if [ ! -x "$tool" ] && command -v rustup >/dev/null 2>&1; then
    rustup component add llvm-tools >>"$LOG" 2>&1 || true
  fi
  [ -x "$tool" ] && echo "$tool"
}

if [ "$PGO" != 1 ]; then
  plain_build
  exit 0
fi
if ! PROFDATA=$(find_profdata); then
  echo "setup: no llvm-profdata for rustc's LLVM (rustup component add llvm-tools): a plain release build, without profile-guided optimization"
  plain_build
  exit 0
fi

# The profile belongs to these sources and this compiler.
KEY=$( {
  rustc -vV
  cat Cargo.lock
  find Cargo.toml crates -type f \( -name '*.rs' -o -name Cargo.toml \) -not -path '*/target/*' -print0 \
    | sort -z | while IFS= read -r -d '' f; do printf '%s\n' "$f"; cat "$f"; done
} | digest | cut -c1-16)
mkdir -p .venv/pgo
RAW="$PWD/.venv/pgo/raw"

# train_profile PROFILE WHAT BUILD_CMD... -- TRAIN_CMD...: the instrumented build, the
# training and the merge, unless PROFILE exists. Returns 1 (said in one line) when the
# training fails.
train_profile() {
  local profile=$1 what=$2
  shift 2
  local build=() train=()
  while [ "$1" != -- ]; do build+=("$1"); shift; done
  shift
  train=("$@")
  [ -f "$profile" ] && return 0
  rm -rf "$RAW"
  step "building the instrumented $what (profile-guided build, 1 of 2; a few minutes)" \
    env CARGO_TARGET_DIR="$PGO_GENERATE_TARGET" CARGO_ENCODED_RUSTFLAGS="-Cprofile-generate=$RAW" "${build[@]}"
  # The build's own build scripts wrote counts too: only the training's are wanted.
  rm -rf "$RAW"
  echo "setup: training it: the whole catalogue at 1 run per point, 1,000-flow TCP and GCC+SCTP runs (~40 s)"
  if ! "${train[@]}" >>"$LOG" 2>&1; then
    echo "setup: the training of the $what failed (its output is in $LOG): a plain release build instead" >&2
    rm -rf "$RAW"
    return 1
  fi
  step "merging the training's profile (llvm-profdata)" "$PROFDATA" merge -o "$profile.tmp" "$RAW"
  mv "$profile.tmp" "$profile"
  rm -rf "$RAW"
}

# The extension, and (--example) the engine binary: each its own profile, because the
# example's build gives the same functions other symbol names.
EXTENSION_PROFILE="$PWD/.venv/pgo/$KEY.profdata"
if ! train_profile "$EXTENSION_PROFILE" "native extension" maturin develop --release -- \
  python scripts/pgo_training.py; then
  EXAMPLE_AFTER=$EXAMPLE
  EXAMPLE=0
  plain_build
  EXAMPLE=$EXAMPLE_AFTER
else
  step "building the native extension with the profile (profile-guided build, 2 of 2; a few minutes)" \
    env CARGO_TARGET_DIR="$PGO_TARGET" CARGO_ENCODED_RUSTFLAGS="-Cprofile-use=$EXTENSION_PROFILE" \
    maturin develop --release
fi
if [ "$EXAMPLE" = 1 ]; then
  EXAMPLE_PROFILE="$PWD/.venv/pgo/$KEY-example.profdata"
  if train_profile "$EXAMPLE_PROFILE" "engine binary" cargo build --release -p flowstate-sim --example run_scenario -- \
    python scripts/pgo_training.py --engine "$PGO_GENERATE_TARGET/release/examples/run_scenario"; then
    step "building the engine binary with the profile ($PGO_TARGET/release/examples/run_scenario)" \
      env CARGO_TARGET_DIR="$PGO_TARGET" CARGO_ENCODED_RUSTFLAGS="-Cprofile-use=$EXAMPLE_PROFILE" \
      cargo build --release -p flowstate-sim --example run_scenario
  else
    step "building the engine binary (target/release/examples/run_scenario)" \
      cargo build --release -p flowstate-sim --example run_scenario
  fi
fi
# The profiles kept: the current sources'.
find .venv/pgo -maxdepth 1 -name '*.profdata' ! -name "$KEY.profdata" ! -name "$KEY-example.profdata" -delete
