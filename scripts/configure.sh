#!/usr/bin/env bash
# Configures a build folder with every option set explicitly, so that scripts/quickstart.sh and
# scripts/test.sh share build/ in either order: neither inherits a setting the other left in the
# cache, and the objects one builds are the objects the other needs.
#   scripts/configure.sh BUILD_DIR [SANITIZE(ON|OFF, default OFF)] [WERROR(ON|OFF, default ON)]
# SANITIZE=ON builds with clang when it is installed (g++ otherwise): AddressSanitizer + UBSan,
# and the libFuzzer targets beside the tests, so one sanitizer build serves both
# `COMMDX_SANITIZE=ON scripts/test.sh` and scripts/fuzz.sh. g++ 12 takes 3-4x clang's time to
# compile with the sanitizers (132 s against 36 s for src/cli/env_command.cc), and a separate
# fuzzer build compiled every library a third time.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/configure.sh BUILD_DIR [SANITIZE] [WERROR]}
sanitize=${2:-OFF}
werror=${3:-ON}
# Benchmarks measure nothing under the sanitizers and no test runs them: not built there.
benchmarks=ON
fuzzers=OFF
compilers=()
if [ "$sanitize" = ON ]; then
  benchmarks=OFF
  if command -v clang++ >/dev/null && command -v clang >/dev/null; then
    fuzzers=ON
    compilers=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
  fi
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${compilers[@]}" \
  -DCOMMDX_BUILD_TESTS=ON -DCOMMDX_BUILD_BENCHMARKS="$benchmarks" -DCOMMDX_BUILD_FUZZERS="$fuzzers" \
  -DCOMMDX_WERROR="$werror" -DCOMMDX_SANITIZE="$sanitize" >/dev/null
