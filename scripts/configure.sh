#!/usr/bin/env bash
# Configures a build folder with every option set explicitly, so that scripts/quickstart.sh and
# scripts/test.sh share build/ in either order: neither inherits a setting the other left in the
# cache, and the objects one builds are the objects the other needs.
#   scripts/configure.sh BUILD_DIR [SANITIZE(ON|OFF, default OFF)] [WERROR(ON|OFF, default ON)]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/configure.sh BUILD_DIR [SANITIZE] [WERROR]}
sanitize=${2:-OFF}
werror=${3:-ON}
# Benchmarks measure nothing under the sanitizers and no test runs them: not built there.
benchmarks=ON
[ "$sanitize" = ON ] && benchmarks=OFF
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCOMMDX_BUILD_TESTS=ON -DCOMMDX_BUILD_BENCHMARKS="$benchmarks" -DCOMMDX_BUILD_FUZZERS=OFF \
  -DCOMMDX_WERROR="$werror" -DCOMMDX_SANITIZE="$sanitize" >/dev/null
