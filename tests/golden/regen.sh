#!/usr/bin/env bash
# Regenerates the expected outputs of the golden tests from the current binary.
#   tests/golden/regen.sh [BUILD_DIR]        (default: build)
# Review the result with `git diff tests/golden` before committing.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build}"
[ -d "$build" ] || { echo "no build dir $build" >&2; exit 2; }
bin="$(cd "$build" && pwd)/commdx"
[ -x "$bin" ] || { echo "no commdx binary at $bin (build first)" >&2; exit 2; }
out="$root/tests/golden/nccl_logs/expected"
mkdir -p "$out"
while IFS='|' read -r name dir want args; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  dir="${dir/\$SOURCE/$root}"
  [ -d "$dir" ] || { echo "$name: no folder $dir" >&2; exit 2; }
  for fmt in text json; do
    ext=$([ "$fmt" = text ] && echo txt || echo json)
    set +e
    (cd "$dir" && NO_COLOR=1 "$bin" logs --format "$fmt" $args) >"$out/$name.$ext" 2>&1
    rc=$?
    set -e
    if [ "$rc" != "$want" ]; then
      echo "$name ($fmt): exit code $rc, cases.txt expects $want" >&2
    fi
  done
  echo "regenerated $name"
done <"$root/tests/golden/nccl_logs/cases.txt"
