#!/usr/bin/env bash
# Installs every Debian package accelopt needs to build, test and benchmark (idempotent).
set -euo pipefail
PKGS=(build-essential cmake ninja-build pkg-config git
      nlohmann-json3-dev libcurl4-openssl-dev libcli11-dev libfmt-dev libsqlite3-dev
      libcpp-httplib-dev libopenblas-dev libyaml-cpp-dev libgtest-dev libgmock-dev libbenchmark-dev
      python3 python3-numpy node-diff)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  # The downloaded .deb files are not needed once installed; CI disks can be small.
  $SUDO apt-get clean
fi
