#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and either replays their corpora (default, what CI
# does) or fuzzes one target for a while:
#   scripts/fuzz.sh                       replay every corpus
#   scripts/fuzz.sh nccl_log 600          fuzz nccl_log for 600 s, new inputs go to the corpus
set -euo pipefail
cd "$(dirname "$0")/.."
build=${COMMDX_FUZZ_BUILD_DIR:-build-fuzz}
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCOMMDX_BUILD_FUZZERS=ON -DCOMMDX_BUILD_TESTS=OFF -DCOMMDX_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$build"
if [ $# -eq 0 ]; then
  ctest --test-dir "$build" -L fuzz --output-on-failure
  exit
fi
target=$1
seconds=${2:-600}
mkdir -p "tests/fuzz/corpus/$target" "$build/artifacts"
"$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -max_len=1048576 -timeout=10 \
  -rss_limit_mb=4096 -artifact_prefix="$build/artifacts/" -print_final_stats=1 \
  "tests/fuzz/corpus/$target"
