#!/usr/bin/env bash
# Installs the Debian 12 packages commdx builds with, if any is missing. Safe to run again.
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config zlib1g-dev libsimdjson-dev libcli11-dev
          libgtest-dev libgmock-dev libbenchmark-dev libsqlite3-dev python3)
# Optional: ISA-L inflates .gz inputs 3x faster than zlib (the build falls back to zlib).
optional=(libisal-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
opt_missing=()
for p in "${optional[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || opt_missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ] && [ ${#opt_missing[@]} -eq 0 ]; then
  exit 0
fi
echo "commdx: installing ${missing[*]} ${opt_missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -eq 0 ]; then
  "${sudo_cmd[@]}" apt-get update -qq || true
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${opt_missing[@]}" ||
    echo "commdx: ${opt_missing[*]} not installed (optional; .gz traces use zlib)" >&2
  exit 0
fi
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${opt_missing[@]}" ||
  echo "commdx: ${opt_missing[*]} not installed (optional; .gz traces use zlib)" >&2
