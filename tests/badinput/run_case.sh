#!/usr/bin/env bash
# One bad-input case through the real binary:
#   run_case.sh EXITS REGEX [--json] -- COMMDX ARGS...
# Passes when commdx ends within the time limit with one of the exit codes in EXITS (e.g. "3"
# or "0,1"), its stdout+stderr match the extended regex REGEX, and no sanitizer report, crash
# or uncaught exception shows. --json: stdout must also be valid JSON (the report escapes every
# string it took from the input). COMMDX_CASE_TIMEOUT (seconds, default 120) bounds a hang.
set -uo pipefail
exits=$1 regex=$2
shift 2
json=0
if [ "$1" = --json ]; then json=1; shift; fi
[ "$1" = -- ] && shift
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
timeout "${COMMDX_CASE_TIMEOUT:-120}" "$@" >"$out" 2>"$err"
rc=$?
fail() {
  echo "FAIL: $*"
  echo "--- command: $*"
  echo "--- stderr (head):"; head -c 4000 "$err"
  echo "--- stdout (head):"; head -c 4000 "$out"
  exit 1
}
[ "$rc" -eq 124 ] && fail "timed out (hang?)"
if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:|Segmentation fault|terminate called|Assertion .* failed' "$err"; then
  fail "sanitizer report or crash (exit $rc)"
fi
case ",$exits," in
  *",$rc,"*) ;;
  *) fail "exit code $rc, expected one of $exits" ;;
esac
# grep reads the files itself: `cat | grep -q` fails under pipefail when grep stops early on a
# long output (cat gets SIGPIPE).
if ! grep -qE -- "$regex" "$out" "$err"; then fail "output does not match /$regex/"; fi
if [ "$json" = 1 ] && ! python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$out"; then
  fail "stdout is not valid UTF-8 JSON"
fi
echo "ok: exit $rc, matched /$regex/"
