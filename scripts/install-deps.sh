#!/usr/bin/env bash
# Installs the Debian 12 packages commdx builds with, if any is missing. Safe to run again.
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config zlib1g-dev libsimdjson-dev libcli11-dev
          libgtest-dev libgmock-dev libbenchmark-dev libsqlite3-dev python3)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "commdx: installing ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
