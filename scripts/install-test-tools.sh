#!/bin/sh
# Installs the optional tools used by flowstate-wire's tests (tshark for the
# Wireshark dissector check in crates/flowstate-wire/tests/tshark.rs).
# Run as root (or through sudo) on Debian/Ubuntu.
set -eu
export DEBIAN_FRONTEND=noninteractive
# Answer "no" to "should non-superusers be able to capture packets?".
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections || true
apt-get update
apt-get install -y tshark
tshark --version | head -n 1
