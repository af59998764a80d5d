#!/usr/bin/env bash
# Installs what is missing, builds commdx, and runs the main job on a bundled real example.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Warnings stay warnings here (scripts/test.sh, which CI runs, turns them into errors; its
# setting would otherwise stay in build/'s cache).
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCOMMDX_BUILD_TESTS=OFF \
  -DCOMMDX_BUILD_BENCHMARKS=OFF -DCOMMDX_WERROR=OFF >/dev/null
cmake --build build --target commdx
# A real 2xH200 DDP run with NCCL_P2P_DISABLE=1: profiler traces, NCCL logs, environment dumps.
example=${1:-examples/ddp_p2p_disable}
echo "+ build/commdx diagnose $example" >&2
build/commdx diagnose "$example" || [ $? -eq 1 ]  # exit 1 = error-level findings, the expected answer
