#!/usr/bin/env bash
# The bottleneck emulator between two network namespaces (needs root and iproute2):
#
#   [P-snd] 10.77.1.2 --veth-- 10.77.1.1 [P-emu: flowstate-emu] 10.77.2.1 --veth-- 10.77.2.2 [P-rcv]
#
# Three namespaces (sender, emulator, receiver), so the host's own network is untouched.
# Senders in P-snd send to 10.77.1.1:5000; the emulator forwards from 10.77.2.1:5001 to
# the receiver 10.77.2.2:6000 in P-rcv, which answers to 10.77.2.1:5001.
#
#   scripts/netns-testbed.sh up                 create namespaces and veth pairs
#   scripts/netns-testbed.sh run SCENARIO [ARGS]  run flowstate-emu in P-emu (ARGS: --duration S, --seed N)
#   scripts/netns-testbed.sh selftest [SCENARIO]  up, relay 200 datagrams both ways, check, down
#   scripts/netns-testbed.sh down               delete them
# Run programs inside with `ip netns exec P-snd CMD` / `ip netns exec P-rcv CMD`.
# Environment: FLOWSTATE_NETNS_PREFIX (P, default "fsemu", at most 8 characters),
# FLOWSTATE_EMU_BIN (the emulator binary; default: cargo build, target/debug).
set -euo pipefail
cd "$(dirname "$0")/.."
P="${FLOWSTATE_NETNS_PREFIX:-fsemu}"
if [ "${#P}" -gt 8 ]; then echo "FLOWSTATE_NETNS_PREFIX: at most 8 characters, got \"$P\"" >&2; exit 2; fi
SND="$P-snd"; EMU="$P-emu"; RCV="$P-rcv"
EMU_IN=10.77.1.1; SND_IP=10.77.1.2; EMU_OUT=10.77.2.1; RCV_IP=10.77.2.2
LISTEN="$EMU_IN:5000"; RFACING="$EMU_OUT:5001"; RECEIVER="$RCV_IP:6000"

need_root() {
  if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
    echo "netns-testbed: needs root and iproute2 (ip)" >&2; exit 2
  fi
}

up() {
  need_root
  down 2>/dev/null || true
  for ns in "$SND" "$EMU" "$RCV"; do ip netns add "$ns"; ip -n "$ns" link set lo up; done
  ip link add "${P}s0" netns "$SND" type veth peer name "${P}s1" netns "$EMU"
  ip link add "${P}r0" netns "$RCV" type veth peer name "${P}r1" netns "$EMU"
  ip -n "$SND" addr add "$SND_IP/24" dev "${P}s0"
  ip -n "$EMU" addr add "$EMU_IN/24" dev "${P}s1"
  ip -n "$EMU" addr add "$EMU_OUT/24" dev "${P}r1"
  ip -n "$RCV" addr add "$RCV_IP/24" dev "${P}r0"
  for l in "$SND ${P}s0" "$EMU ${P}s1" "$EMU ${P}r1" "$RCV ${P}r0"; do
    set -- $l; ip -n "$1" link set "$2" up
  done
  echo "netns-testbed: up ($SND $EMU $RCV); send to $LISTEN, receiver at $RECEIVER"
}

down() {
  for ns in "$SND" "$EMU" "$RCV"; do ip netns del "$ns" 2>/dev/null || true; done
}

emu_bin() {
  if [ -n "${FLOWSTATE_EMU_BIN:-}" ]; then echo "$FLOWSTATE_EMU_BIN"; return; fi
  cargo build -q -p flowstate-emu --bin flowstate-emu >&2
  echo "$PWD/target/debug/flowstate-emu"
}

run() {
  need_root
  local scenario="$1" bin; shift
  bin="$(emu_bin)"
  ip netns exec "$EMU" "$bin" "$scenario" --listen "$LISTEN" \
    --receiver-facing "$RFACING" --receiver "$RECEIVER" "$@"
}

selftest() {
  need_root
  local scenario="${1:-}"
  TMP="$(mktemp -d)"
  trap 'down; rm -rf "$TMP"' EXIT
  FLOWSTATE_EMU_BIN="$(emu_bin)"
  local tmp="$TMP"
  if [ -z "$scenario" ]; then
    scenario="$tmp/netns.toml"
    cat >"$scenario" <<'TOML'
name = "netns-selftest"
duration = "4s"
[link]
capacity = "10Mbps"
delay = "20ms"
queue = "100pkt"
[[flows]]
name = "probe"
kind = "cbr"
overrides = { rate = "1Mbps" }
TOML
  fi
  up
  run "$scenario" --duration 8 >"$tmp/emu.out" &
  local emu_pid=$!
  for _ in $(seq 100); do grep -q "^route 0" "$tmp/emu.out" && break; sleep 0.05; done
  # Receiver: echo every datagram back (through the reverse bottleneck), count them and
  # those whose IP header still says ECT(0) (the ECN field crosses the relay).
  ip netns exec "$RCV" python3 - "$RCV_IP" >"$tmp/rcv.out" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind((sys.argv[1], 6000)); s.settimeout(2.5)
s.setsockopt(socket.IPPROTO_IP, socket.IP_RECVTOS, 1); s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 2)
n = ect = 0
try:
    while True:
        d, anc, _, a = s.recvmsg(2048, 64); n += 1; s.sendto(d, a)
        ect += any(l == socket.IPPROTO_IP and t == socket.IP_TOS and c[0] & 3 == 2 for l, t, c in anc)
except socket.timeout:
    pass
print(n, ect)
PY
  local rcv_pid=$!
  sleep 0.5
  # Sender: 200 datagrams of 500 B with ECT(0), 2 ms apart (2 Mbit/s), then count the
  # echoes.
  ip netns exec "$SND" python3 - "$EMU_IN" >"$tmp/snd.out" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 2)
t0 = time.monotonic()
n = 0
for k in range(200):
    s.sendto(k.to_bytes(4, "big") * 125, (sys.argv[1], 5000)); time.sleep(0.002)
    s.setblocking(False)
    try:
        while True:
            s.recvfrom(2048); n += 1
    except BlockingIOError:
        pass
s.settimeout(1.0)
try:
    while True:
        s.recvfrom(2048); n += 1
except socket.timeout:
    pass
print(n, round(time.monotonic() - t0, 2)) if "t0" in dir() else print(n)
PY
  wait "$rcv_pid"; wait "$emu_pid"
  local got echoed
  got="$(cat "$tmp/rcv.out")"; echoed="$(cat "$tmp/snd.out")"
  cat "$tmp/emu.out"
  echo "netns-testbed selftest: receiver got ${got%% *}/200 (${got#* } with ECT(0)), sender got ${echoed%% *}/200 echoes (sender ran ${echoed#* } s)"
  [ "${got%% *}" = 200 ] && [ "${got#* }" = 200 ] && [ "${echoed%% *}" = 200 ]
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  run) shift; [ $# -ge 1 ] || { echo "run: needs a scenario file" >&2; exit 2; }; run "$@" ;;
  selftest) shift; selftest "$@" ;;
  *) echo "usage: $0 up|run SCENARIO [ARGS]|selftest [SCENARIO]|down" >&2; exit 2 ;;
esac
