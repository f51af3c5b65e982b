# shellcheck shell=bash
# Sourced by scripts/setup.sh and scripts/build_native.sh: the set-up's one line per step.
# step "what it does" command...: prints "setup: what it does", runs the command with its
# output appended to $LOG, and when it fails shows the log's last 40 lines and exits 1.
step() {
  local what=$1
  shift
  echo "setup: $what"
  if ! "$@" >>"$LOG" 2>&1; then
    echo "setup: failed: $what; its output (from $LOG):" >&2
    tail -n 40 "$LOG" >&2
    exit 1
  fi
}
