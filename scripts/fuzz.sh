#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and either replays their corpora
# (default) or fuzzes one target for a while:
#   scripts/fuzz.sh                       replay every committed corpus and the real seed folders
#   scripts/fuzz.sh nccl_log 600          fuzz nccl_log for 600 s
# The targets live in the sanitizer build of the tests (build-san/, scripts/configure.sh), so
# `COMMDX_SANITIZE=ON scripts/test.sh` has built them and replayed the corpora already (CI runs
# just that). A long run starts from tests/fuzz/corpus/NAME plus the real seed folders the build
# lists (build-san/tests/fuzz/seeds_NAME.txt) and writes what it finds to build-san/corpus/NAME
# (not committed); crashes go to build-san/artifacts/. To keep new coverage, merge a minimal set
# into the committed corpus: scripts/fuzz.sh --merge NAME
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang++ >/dev/null || ! command -v clang >/dev/null; then
  echo "fuzz.sh: the libFuzzer targets need clang (apt-get install clang)" >&2
  exit 2
fi
build=${COMMDX_FUZZ_BUILD_DIR:-build-san}
scripts/configure.sh "$build" ON ON
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if [ $# -eq 0 ]; then
  cmake --build "$build" --target fuzzers
  ctest --test-dir "$build" -L fuzz --output-on-failure
  exit
fi
merge=0
if [ "$1" = --merge ]; then merge=1; shift; fi
target=$1
seconds=${2:-600}
cmake --build "$build" --target "fuzz_$target"
mapfile -t seeds < <(grep -v '^$' "$build/tests/fuzz/seeds_$target.txt" || true)
committed="tests/fuzz/corpus/$target"
work="$build/corpus/$target"
mkdir -p "$committed" "$work" "$build/artifacts"
bin="$build/tests/fuzz/fuzz_$target"
if [ "$merge" = 1 ]; then
  # Adds to the committed corpus only the inputs of the long runs that reach new coverage.
  "$bin" -merge=1 -max_len=1048576 -timeout=10 -rss_limit_mb=4096 "$committed" "$work"
  exit
fi
"$bin" -max_total_time="$seconds" -max_len=1048576 -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix="$build/artifacts/$target-" -print_final_stats=1 \
  "$work" "$committed" "${seeds[@]}"
