#!/usr/bin/env bash
# Installs what is missing, builds commdx, and runs the main job on a bundled real example.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCOMMDX_BUILD_TESTS=OFF \
  -DCOMMDX_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build --target commdx
example=${1:-examples}
echo "+ build/commdx logs $example" >&2
build/commdx logs "$example" || [ $? -eq 1 ]  # exit 1 = error-level findings, the expected answer
