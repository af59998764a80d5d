#!/usr/bin/env bash
# A GPU shared with another job (issue 38): the GPU-bound loop of idle_causes.py (case
# gpu_bound_alone) recorded while gpu_hog.py runs on the same GPU as a separate process, started
# here and never profiled (nsys does not follow it: it is not the profiled process's child).
#   bash workloads/run_shared_gpu.sh WORKDIR
# Cases (WORKDIR/<name>/: meta.json, trace_rank0.json.gz or report.sqlite.gz, stdout.log):
#   shared_bursty_sched  hog --mode bursty (short matmuls, 3 ms asleep between bursts), profiler
#                        schedule
#   shared_big_nsys      hog --mode big (8192^3 matmuls back to back), Nsight Systems (needs NSYS)
# meta.json's timed steps are measured with the hog running (the "without" numbers too: the
# hog is outside the script); the hog's own step-time cost is measured here, alone and with it.
# Env: PYTHON (python3), NSYS, NSYS_LIBS.
set -u
W=${1:?usage: run_shared_gpu.sh WORKDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
mkdir -p "$W"
W=$(cd "$W" && pwd)
HOG=
start_hog() {  # start_hog MODE: in the background, until stop_hog
  coproc HOGP { "$PYTHON" "$HERE/gpu_hog.py" --mode "$1"; }
  HOG=$HOGP_PID
  read -r line <&"${HOGP[0]}"
  echo "hog $1 ($HOG): $line"
}
stop_hog() { [ -n "$HOG" ] && kill "$HOG" 2>/dev/null; wait "$HOG" 2>/dev/null; HOG=; }
trap stop_hog EXIT

out=$W/alone_sched; mkdir -p "$out"
timeout -k 10 150 "$PYTHON" "$HERE/idle_causes.py" --case gpu_bound_alone --record sched \
  --out "$out" >"$out/stdout.log" 2>&1
echo "alone_sched: exit $?; $(grep median "$out/stdout.log")"

start_hog bursty
out=$W/shared_bursty_sched; mkdir -p "$out"
timeout -k 10 150 "$PYTHON" "$HERE/idle_causes.py" --case gpu_bound_alone --record sched \
  --out "$out" >"$out/stdout.log" 2>&1
echo "shared_bursty_sched: exit $?; $(grep median "$out/stdout.log")"
stop_hog

if [ -n "${NSYS:-}" ] && [ -x "$NSYS" ]; then
  # shellcheck source=workloads/nsys_sqlite.sh
  . "$HERE/nsys_sqlite.sh"
  start_hog big
  out=$W/shared_big_nsys; mkdir -p "$out"
  timeout -k 10 180 "$NSYS" profile -t cuda,nvtx --sample=none --cpuctxsw=none \
    --capture-range=cudaProfilerApi --force-overwrite true -o /tmp/shared_big_nsys \
    "$PYTHON" "$HERE/idle_causes.py" --case gpu_bound_alone --record nsys --out "$out" \
    >"$out/stdout.log" 2>&1
  echo "shared_big_nsys: exit $?; $(grep median "$out/stdout.log")"
  stop_hog
  nsys_to_sqlite /tmp/shared_big_nsys "$out/report.sqlite" "$out/stdout.log"
else
  echo "no NSYS: no Nsight Systems capture"
fi
