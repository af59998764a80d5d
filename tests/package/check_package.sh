#!/usr/bin/env bash
# Installs what scripts/package.sh wrote as a user would and runs it: the wheel into a fresh
# virtualenv from the file alone (pip --no-index), the tarball unpacked into an empty folder.
# Each binary must print the version the package is named after, need no shared library but
# glibc's, need no glibc newer than the wheel's platform tag says, and diagnose every bundled
# example as its meta.json expects (judged as tests/accuracy/check_accuracy.py judges); the
# tarball's binary also passes the accuracy check on all of examples/.
#   tests/package/check_package.sh [DIST_DIR]    (default dist)
set -uo pipefail
dist=$(cd "${1:-dist}" && pwd)
cd "$(dirname "$0")/../.."
passed=0
failed=0
check() {  # check NAME COMMAND...: runs the command, counts and reports the result
  local name=$1
  shift
  if out=$("$@" 2>&1); then
    passed=$((passed + 1))
    echo "ok      $name"
  else
    failed=$((failed + 1))
    echo "FAILED  $name"
    echo "$out" | tail -20 | sed 's/^/        /'
  fi
}
wheels=("$dist"/commdx-*.whl)
tarballs=("$dist"/commdx-*-linux-x86_64.tar.gz)
if [ ! -f "${wheels[0]}" ] || [ ! -f "${tarballs[0]}" ]; then
  echo "check_package: no wheel or tarball in $dist (run scripts/package.sh)" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
wheel=${wheels[0]}
version=$(basename "$wheel" | cut -d- -f2)
# manylinux_2_17_x86_64 -> 2.17: the newest glibc the binary may ask for.
tag_glibc=$(basename "$wheel" | sed -n 's/.*-manylinux_\([0-9]*\)_\([0-9]*\)_x86_64.*/\1.\2/p')
work=$(mktemp -d "${TMPDIR:-/tmp}/commdx-package.XXXXXX")
trap 'rm -rf "$work"' EXIT

version_is() { [ "$("$1" --version)" = "commdx $version" ]; }
only_glibc_needed() {
  local needed
  needed=$(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  echo "needs: $needed"
  ! echo "$needed" | grep -vqE '^(libc|libm|libdl|libpthread|librt|libz)\.so\.[0-9]+$|^ld-linux'
}
glibc_within_tag() {
  local newest
  newest=$(objdump -T "$1" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1)
  echo "newest glibc symbol: $newest, tag: $tag_glibc"
  [ -n "$tag_glibc" ] && [ "$(printf '%s\n%s\n' "$newest" "$tag_glibc" | sort -V | tail -1)" = \
    "$tag_glibc" ]
}
diagnoses_example() {  # BINARY EXAMPLE_DIR, judged as the accuracy test judges (meta.json)
  python3 - "$@" <<'PY'
import json, pathlib, sys
sys.path.insert(0, "tests/accuracy")
import check_accuracy
commdx, folder = sys.argv[1:3]
meta = json.loads((pathlib.Path(folder) / "meta.json").read_text())
right, said = check_accuracy.judge(meta, check_accuracy.diagnose(commdx, folder))
print(f"expected {meta.get('expected_finding') or 'nothing at error level'}, commdx said {said}")
sys.exit(0 if right else 1)
PY
}
check_binary() {  # LABEL BINARY EXAMPLES_DIR
  check "$1: --version is commdx $version" version_is "$2"
  check "$1: needs no shared library but glibc's" only_glibc_needed "$2"
  check "$1: needs no glibc newer than $tag_glibc" glibc_within_tag "$2"
  local example
  for example in "$3"/*/; do
    check "$1: diagnose $(basename "$example")" diagnoses_example "$2" "${example%/}"
  done
}

python3 -m venv "$work/venv"
check "wheel installs with pip --no-index" \
  "$work/venv/bin/python" -m pip install -q --no-index "$wheel"
check_binary wheel "$work/venv/bin/commdx" "$work/venv/share/commdx/examples"
mkdir "$work/tar"
check "tarball unpacks" tar -xzf "${tarballs[0]}" -C "$work/tar"
top="$work/tar/commdx-$version-linux-x86_64"
check_binary tarball "$top/bin/commdx" "$top/examples"
# The packaged binary (zig, libc++, SQLite from its amalgamation) concludes what the source
# build does on every example, the Nsight Systems ones included.
check "tarball: accuracy on every example in examples/" \
  python3 tests/accuracy/check_accuracy.py "$top/bin/commdx" examples
nsys_sizes() {  # NCCL's NVTX payloads read: 88 all-reduces with a median of 32.03 MiB
  "$1" trace tests/data/nsys/ddp_sync_end_payloads.sqlite.gz | grep -q "all_reduce *88 .*32.03 MiB"
}
check "tarball: an Nsight Systems export with NCCL payloads is read" nsys_sizes "$top/bin/commdx"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
