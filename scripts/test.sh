#!/usr/bin/env bash
# Builds commdx and runs the whole test suite (GPU tests skip cleanly without a GPU).
#   scripts/test.sh                 release build with warnings as errors
#   COMMDX_SANITIZE=ON scripts/test.sh    AddressSanitizer + UBSan (+ LeakSanitizer) build
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
sanitize=${COMMDX_SANITIZE:-OFF}
build=${COMMDX_BUILD_DIR:-build}
[ "$sanitize" = ON ] && build=${COMMDX_BUILD_DIR:-build-asan}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOMMDX_WERROR=ON \
  -DCOMMDX_SANITIZE="$sanitize" >/dev/null
cmake --build "$build"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" "$@"
