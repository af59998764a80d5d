#!/usr/bin/env bash
# badinput_trace_over_4gib: a trace over simdjson's 4 GiB document limit, generated here (a 4 MB
# gzip that inflates to 4.25 GiB; gen_huge_trace.py), read by `commdx trace`. Skipped (77) unless
# COMMDX_SLOW_TESTS=1: it takes minutes and several GB of memory on a 2-core box.
#   huge_trace_test.sh COMMDX SEED_TRACE WORK_DIR
set -uo pipefail
if [ "${COMMDX_SLOW_TESTS:-0}" != 1 ]; then
  echo "skipped: set COMMDX_SLOW_TESTS=1 to run (minutes, several GB of memory)"
  exit 77
fi
commdx=$1 seed=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
file="$work/over_4gib.json.gz"
python3 "$here/gen_huge_trace.py" "$seed" "$file" --gib 4.25 || exit 1
cd "$work"
# The one bad event sits after the gap: its place must be a byte offset past 4 GiB (> 4294967296).
COMMDX_CASE_TIMEOUT=1100 "$here/run_case.sh" 0,1 \
  "kineto\.negative_dur x1: .*over_4gib\.json\.gz@(4[3-9][0-9]{8}|[5-9][0-9]{9})" -- \
  /usr/bin/time -v "$commdx" trace over_4gib.json.gz
rc=$?
rm -f "$file"
exit $rc
