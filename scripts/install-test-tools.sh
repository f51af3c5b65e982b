#!/bin/sh
# Installs the optional tools used by the tests: tshark for the Wireshark dissector
# check in crates/flowstate-wire/tests/tshark.rs, and Chromium (headless) for the
# report check in tests/test_report_browser.py, and node for the Rust/JS differential test
# of the Web-API rule (crates/flowstate-core/tests/web_api_js.rs). Run as root (or through sudo) on
# Debian/Ubuntu. Only what is missing is installed.
set -eu
export DEBIAN_FRONTEND=noninteractive
packages=""
command -v tshark >/dev/null 2>&1 || packages="$packages tshark"
command -v chromium >/dev/null 2>&1 || packages="$packages chromium"
command -v node >/dev/null 2>&1 || packages="$packages nodejs"
if [ -z "$packages" ]; then
  exit 0
fi
# Answer "no" to "should non-superusers be able to capture packets?".
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections || true
apt-get update
# shellcheck disable=SC2086
apt-get install -y $packages
if command -v tshark >/dev/null 2>&1; then tshark --version | head -n 1; fi
if command -v chromium >/dev/null 2>&1; then chromium --version; fi
if command -v node >/dev/null 2>&1; then node --version; fi
