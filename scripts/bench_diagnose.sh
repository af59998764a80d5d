#!/usr/bin/env bash
# Full `commdx diagnose` on a large generated job: RANKS traces of MB megabytes each, made from a
# real 2xH200 capture by bench_programs/make_large_trace.py (steps replicated, timestamps and ids
# shifted), one per rank with distributedInfo rewritten to that rank and world size, plus the
# capture's NCCL logs. Measures wall time, CPU time, MB/s of uncompressed JSON and peak RSS with
# /usr/bin/time -v. Nothing generated is committed; the job is kept in WORK for reruns.
#   scripts/bench_diagnose.sh [RANKS [MB [CAPTURE]]]     defaults: 64 200 captures/ddp_healthy
# Env: COMMDX (binary, default build-hard/commdx), WORK (default /tmp/commdx-bench-job),
#      KEEP=0 deletes the job afterwards, LAYOUT=oneline writes each rank's trace without line
#      breaks (as json.dump without indent does; default: the capture's own Kineto layout).
set -euo pipefail
cd "$(dirname "$0")/.."
ranks=${1:-64}
mb=${2:-200}
capture=${3:-captures/ddp_healthy}
commdx=${COMMDX:-build-hard/commdx}
layout=${LAYOUT:-kineto}
work=${WORK:-/tmp/commdx-bench-job}/${ranks}x${mb}MB
jobdir="$work/job_$layout"
mkdir -p "$work"
need_gb=$(( ranks * mb / 1000 + 1 ))
free_gb=$(df -P --block-size=1G "$work" | awk 'NR==2 {print $4}')
if [ "$free_gb" -le $(( need_gb + 2 )) ]; then
  echo "bench_diagnose: needs ~${need_gb} GB in $work, only ${free_gb} GB free" >&2
  exit 2
fi
# One large trace per rank of the capture, then a renamed copy per generated rank.
t0=$(date +%s)
for src in "$capture"/trace_rank*.json*; do
  base="$work/base_$(basename "$src" | sed 's/\.json.*//').json"
  [ -s "$base" ] || python3 bench_programs/make_large_trace.py "$src" "$base" --gb "$(awk "BEGIN {print $mb/1000}")"
done
mapfile -t bases < <(ls "$work"/base_*.json)
for ((r = 0; r < ranks; r++)); do
  out="$jobdir/trace_rank$r.json"
  [ -s "$out" ] && continue
  mkdir -p "$jobdir"
  python3 - "${bases[$((r % ${#bases[@]}))]}" "$out" "$r" "$ranks" "$layout" <<'PY'
import re, sys
src, dst, rank, world = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
# Raw line breaks are never inside JSON strings: dropping them all gives the one-line layout.
relayout = (lambda b: b.replace(b"\r", b"").replace(b"\n", b"")) if sys.argv[5] == "oneline" \
    else (lambda b: b)
with open(src, "rb") as f, open(dst, "wb") as g:
    head = f.read(1 << 16)
    cut = head.index(b'"traceEvents"')
    h = head[:cut]
    h = re.sub(rb'"rank": [0-9]+', b'"rank": %d' % rank, h, count=1)
    h = re.sub(rb'"world_size": [0-9]+', b'"world_size": %d' % world, h, count=1)
    h = re.sub(rb'"pg_size": [0-9]+', b'"pg_size": %d' % world, h, count=1)
    h = re.sub(rb'"ranks": \[[0-9, ]*\]', b'"ranks": [' + ", ".join(map(str, range(world))).encode() + b"]", h, count=1)
    g.write(relayout(h + head[cut:]))
    while chunk := f.read(1 << 24):
        g.write(relayout(chunk))
PY
done
cp "$capture"/nccl*.log "$jobdir/" 2>/dev/null || true
t1=$(date +%s)
json_bytes=$(cat "$jobdir"/trace_rank*.json | wc -c)
echo "generated $ranks x ${mb} MB ($layout) in $((t1 - t0)) s: $json_bytes bytes of JSON in $jobdir"
log="$work/time_$layout.txt"
set +e
/usr/bin/time -v ${TASKSET:-} "$commdx" diagnose "$jobdir" --format json -o "$work/report_$layout.json" 2>"$log"
rc=$?
set -e
if [ "$rc" -ge 2 ] && [ "$rc" -ne 3 ]; then  # 2 usage, 126/127 not runnable, crashes
  echo "bench_diagnose: commdx exited $rc" >&2
  tail -5 "$log" >&2
  exit 1
fi
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log")
user=$(awk -F': ' '/User time/ {print $2}' "$log")
sys=$(awk -F': ' '/System time/ {print $2}' "$log")
rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
secs=$(echo "$wall" | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
python3 - "$json_bytes" "$secs" "$user" "$sys" "$rss_kb" "$rc" "$ranks" "$mb" "$(nproc)" "$layout" <<'PY'
import sys
b, wall, user, sys_, rss, rc, ranks, mb, cores = sys.argv[1:10]
b, wall, cpu, rss = int(b), float(wall), float(user) + float(sys_), int(rss) * 1024
print(f"commdx diagnose: {ranks} ranks x {mb} MB, exit {rc}, {sys.argv[10]} layout")
print(f"  JSON {b/1e9:.2f} GB  wall {wall:.1f} s  CPU {cpu:.1f} s  ({cores} cores)")
print(f"  {b/1e6/wall:.0f} MB/s wall, {b/1e6/cpu:.0f} MB/s per CPU-second")
print(f"  peak RSS {rss/1e9:.2f} GB = {rss/b:.2f} x the JSON")
PY
[ "${KEEP:-1}" = 0 ] && rm -rf "$work"
exit 0
