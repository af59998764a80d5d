#!/usr/bin/env bash
# Installs what is missing, builds commdx, and runs the main job on a bundled real example.
# Configures build/ exactly as scripts/test.sh does (scripts/configure.sh), so the two scripts run
# in either order and the tests then build only what quickstart left out.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Warnings are errors, as in scripts/test.sh (the build is warning-free with Debian 12's g++ 12).
# Another compiler may warn where g++ 12 does not: COMMDX_WERROR=OFF builds anyway.
scripts/configure.sh build OFF "${COMMDX_WERROR:-ON}"
if ! cmake --build build --target commdx; then
  echo "quickstart: the build failed; if warnings stopped it, COMMDX_WERROR=OFF $0 builds anyway" >&2
  exit 1
fi
# A real 2xH200 DDP run with NCCL_P2P_DISABLE=1: profiler traces, NCCL logs, environment dumps.
example=${1:-examples/ddp_p2p_disable}
echo "+ build/commdx diagnose $example" >&2
build/commdx diagnose "$example" || [ $? -eq 1 ]  # exit 1 = error-level findings, the expected answer
