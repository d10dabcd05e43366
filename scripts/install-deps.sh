#!/usr/bin/env bash
# Installs the Debian 12 packages rwstress builds and tests with, if any is
# missing. Needs root (or sudo) only when something is missing.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config meson
  patch xz-utils  # rwstress kernel: --patch, and the kernel source tarballs
  libhwloc-dev libabsl-dev liburcu-dev libboost-test-dev libck-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev libbenchmark-dev gnuplot-nox
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "rwstress: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
