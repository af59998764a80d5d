#!/usr/bin/env bash
# Ranks at scale: `commdx diagnose` over N ranks' NCCL logs, job logs and Flight Recorder dumps
# (made by make_rank_logs.py from real captures), one kind at a time.
#
#   bench_programs/rank_scale.sh [N ...]          # default: 128 1024 4096
#   COMMDX=path/to/commdx KINDS="nccl job fr" WORK=/tmp/rank_scale REPEAT=3 \
#     bench_programs/rank_scale.sh 128 1024 4096
#
# Prints one row per kind and N: user and system CPU seconds, wall seconds and peak RSS of the
# commdx process (the rusage /usr/bin/time -v prints, the times to the millisecond), input MB
# (10^6 bytes), and CPU per rank in ms, user and user + system (the figure the target compares:
# at 4,096 ranks at most 1.5x the one at 128), and per MB of input. Each row is the run with the
# median user time of REPEAT runs. The generated jobs stay in WORK (reused when present);
# nothing is committed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
commdx="${COMMDX:-$here/../build/commdx}"
kinds="${KINDS:-nccl job fr}"
work="${WORK:-/tmp/rank_scale}"
repeat="${REPEAT:-3}"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(128 1024 4096)

# One run of `commdx diagnose DIR --format json`: "user sys wall maxrss_kb". bash's `time` reads
# the child's rusage to the millisecond (/usr/bin/time -v prints it to 10 ms, too coarse at 128
# ranks); /usr/bin/time gives the peak RSS.
run_once() {
  local t
  t=$({ TIMEFORMAT='%3U %3S %3R'; time /usr/bin/time -f '%M' -o "$out/rss" \
    "$commdx" diagnose "$1" --format json -o "$out/report.json" >/dev/null 2>&1; } 2>&1)
  echo "$t $(tail -1 "$out/rss")"
}

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
echo "| kind | N | input MB | user s | sys s | wall s | peak RSS MB | user ms / rank | CPU ms / rank | CPU ms / MB |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
  job="$work/$n"
  if [ ! -d "$job" ]; then
    python3 "$here/make_rank_logs.py" "$n" "$job" --kinds "$(echo "$kinds" | tr ' ' ,)" >/dev/null
  fi
  for kind in $kinds; do
    runs=$(for _ in $(seq "$repeat"); do run_once "$job/$kind"; done | sort -n)
    read -r user sys wall rss_kb <<<"$(echo "$runs" | sed -n "$(((repeat + 1) / 2))p")"
    bytes=$(du -sb "$job/$kind" | cut -f1)
    awk -v k="$kind" -v n="$n" -v b="$bytes" -v u="$user" -v s="$sys" -v w="$wall" -v r="$rss_kb" \
      'BEGIN { mb = b / 1e6; printf "| %s | %d | %.1f | %.3f | %.3f | %.3f | %d | %.3f | %.3f | %.1f |\n",
               k, n, mb, u, s, w, r / 1024, u * 1000 / n, (u + s) * 1000 / n, (u + s) * 1000 / mb }'
  done
done
