#!/usr/bin/env bash
# Times `commdx trace` (ingest + all analyses + the report) on one core for each trace given,
# with one or more commdx binaries side by side, and prints a Markdown table row per (file,
# binary): CPU time (user + sys, the median of the runs), MB/s and events/s of decompressed
# JSON per CPU second, the fastest run's CPU time and events/s, the median system time, peak
# RSS, RSS per event and RSS / JSON size. On a shared machine one binary's runs of one file can
# differ by 2x within a minute: the fastest run says what the code can do, the median what a
# run met.
#
#   bench_programs/trace_layouts.sh "build/commdx /tmp/commdx-main" /tmp/v100.*.json*
#
# Traces come from bench_programs/make_trace_layouts.py. RUNS (default 3) runs per binary,
# alternating the binaries; CPU (default 0) is the core taskset pins them to.
set -euo pipefail
bins=($1)
shift
runs=${RUNS:-3}
cpu=${CPU:-0}
# User and system CPU seconds and peak RSS in KB of one run of "$@": /usr/bin/time where it is
# installed, else Python's wait4 on a posix_spawn'ed child (not fork: a forked child's peak RSS
# would start at Python's).
measure() {
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "%U %S %M" "$@" 2>&1 >/dev/null | tail -1
  else
    python3 -c 'import os, sys
fd = os.open(os.devnull, os.O_RDWR)
pid = os.posix_spawnp(sys.argv[1], sys.argv[1:], os.environ,
                      file_actions=[(os.POSIX_SPAWN_DUP2, fd, 1), (os.POSIX_SPAWN_DUP2, fd, 2)])
r = os.wait4(pid, 0)[2]
print(r.ru_utime, r.ru_stime, r.ru_maxrss)' "$@"
  fi
}
echo "| file | binary | CPU s (median of $runs) | MB/s | M events/s | fastest: CPU s, M events/s | sys s | peak RSS MB | RSS B/event | RSS / JSON |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for f in "$@"; do
  # Bytes and events ("ph": keys) of the decompressed JSON, read in blocks (grep -o takes
  # minutes on a one-line file).
  read -r bytes events < <(python3 - "$f" <<'PY'
import gzip, sys
f = sys.argv[1]
src = gzip.open(f, "rb") if f.endswith(".gz") else open(f, "rb")
n = k = 0
tail = b""
while block := src.read(1 << 24):
    n += len(block)
    buf = tail + block
    k += buf.count(b'"ph":')
    tail = buf[-4:]
    k -= tail.count(b'"ph":')
print(n, k)
PY
)
  declare -A cpu_s=() sys_s=() rss=()
  for ((r = 0; r < runs; r++)); do
    for b in "${bins[@]}"; do
      read -r u s m < <(measure taskset -c "$cpu" "$b" trace --format json -o /dev/null "$f")
      cpu_s[$b]+="$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') "
      sys_s[$b]+="$s "
      rss[$b]+="$m "
    done
  done
  median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
  for b in "${bins[@]}"; do
    med=$(median "${cpu_s[$b]}")
    fastest=$(tr ' ' '\n' <<<"${cpu_s[$b]}" | grep . | sort -g | head -1)
    sys=$(median "${sys_s[$b]}")
    peak=$(tr ' ' '\n' <<<"${rss[$b]}" | grep . | sort -g | tail -1)
    awk -v f="$(basename "$f")" -v b="$b" -v t="$med" -v t0="$fastest" -v sy="$sys" \
      -v by="$bytes" -v ev="$events" -v k="$peak" \
      'BEGIN { printf "| %s | %s | %.2f | %.0f | %.2f | %.2f, %.2f | %.2f | %.0f | %.0f | %.2f |\n",
               f, b, t, by / 1e6 / t, ev / 1e6 / t, t0, ev / 1e6 / t0, sy, k / 1024,
               k * 1024 / ev, k * 1024 / by }'
  done
  unset cpu_s sys_s rss
done
