#!/usr/bin/env bash
# Builds commdx and runs the whole test suite (GPU tests skip cleanly without a GPU).
#   scripts/test.sh                 RelWithDebInfo build in build/, warnings as errors
#   COMMDX_SANITIZE=ON scripts/test.sh    AddressSanitizer + UBSan (+ LeakSanitizer) in build-san/,
#                                         clang when installed: the libFuzzer targets' corpus replays
#                                         run with the tests (label fuzz)
# Every option the suite depends on is set here (scripts/configure.sh), whatever the build
# folder's cache held before (scripts/quickstart.sh configures build/ the same way).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
sanitize=${COMMDX_SANITIZE:-OFF}
build=${COMMDX_BUILD_DIR:-build}
[ "$sanitize" = ON ] && build=${COMMDX_BUILD_DIR:-build-san}
scripts/configure.sh "$build" "$sanitize" ON
cmake --build "$build"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" --output-on-failure --no-tests=error -j "$(nproc)" "$@"
