#!/usr/bin/env bash
# Captures what NCCL itself writes about a job (issue 42), on a one-GPU machine, as real test data:
#
#  1. NCCL Inspector JSONL (profiler plugin, devtools/libnccl-profiler-inspector.so, built from
#     NVIDIA/nccl v2.28.9-1 ext-profiler/inspector): the DDP workload (workloads/ddp.py, 2 layers)
#     over two NCCL ranks on GPU 0, each rank its own "host" (as_node.sh: NCCL_HOSTID per rank,
#     NCCL_SOCKET_IFNAME=lo, so the ranks talk through NCCL's socket transport), as
#       ddp_healthy              healthy
#       ddp_straggler            rank 1 late by an extra ~50 ms matmul loop per step (--cause straggler)
#       ddp_straggler_verbose    the same with NCCL_INSPECTOR_DUMP_VERBOSE=1 (per-channel kernel
#                                events and collective start/stop timestamps per record)
#       ddp_healthy_verbose      healthy, verbose (last; skipped when time runs short)
#     Per case: inspector/<hostname>-pid<pid>.log (the JSONL, one file per process), the NCCL logs
#     (nccl.<host>.<pid>.log, INFO with INIT,GRAPH,ENV,NET,TUNING,PROFILE: the TUNING lines carry
#     the algorithm and protocol of every collective), the job's stdout.log, and what ddp.py
#     writes (meta.json, env_rank*.json, steps_rank*.json, trace_rank*.json.gz: a 1-step Kineto
#     trace to check Inspector against the trace analysis).
#  2. RAS (ras/): workloads/ras_loop.py (all-reduces in a loop on two communicators, same two-
#     ranks-as-two-hosts launch; RAS is on by default in NCCL 2.28, NCCL_RAS_ENABLE=1 set anyway;
#     each rank's RAS client socket on 127.0.0.1:28100+rank) queried with devtools/ncclras
#     (client from src/ras/client.cc v2.28.9-1; text, `-f json`, `-v`): healthy; rank 1 stopped
#     with SIGSTOP, at +8 s (RAS collective leg timeout 5 s: rank missing), +25 s (after the 20 s
#     keep-alive error) and +RAS_DEAD_WAIT s (default 90: past the 60 s RAS_PEER_DEAD_TIMEOUT, which
#     the monitor capture measured from the stop; rank considered DEAD); the stopped rank's own socket (no answer: the client retries until
#     our timeout); after SIGCONT. ras/queries.tsv says when each query ran (seconds after the
#     SIGSTOP).
#  2b. RAS monitor mode (ras_monitor/, step "ras_monitor", NCCL 2.29+): the same job on NCCL
#     2.29.7 (devtools/nccl-2.29/libnccl.so.2 through LD_PRELOAD) watched by `ncclras -m` clients
#     (devtools/ncclras-2.29) while rank 1 is stopped and resumed; see the step below.
#  3. nccl-tests 2.19.6 (nccl_tests/; devtools/nccl-tests.tar.xz, sm_90, CUDA runtime static, MPI
#     off, against the pip package's libnccl.so.2): one process, one GPU (-g 1: nccl-tests without
#     MPI cannot run two ranks on one GPU, so nranks=1 and busbw is 0 for all_reduce):
#     all_reduce_perf -J (JSON) and -I 1 (per-iteration timing, p50/p95/p99), all_gather_perf,
#     reduce_scatter_perf, alltoall_perf with -J; text tables (*.txt) and NCCL logs beside them; one
#     all_reduce_perf run with the Inspector plugin on (a single-rank communicator's JSONL).
#     Run under `env -i` with a few variables, so the "env" list in the JSON is short.
#
#   bash workloads/run_nccl_data.sh          (from the repository root, devtools/ present)
# Env: OUT (required: results go to $OUT/nccl_data, packed into $OUT/nccl_data.tar.gz, the folder
# then removed), PYTHON (python3), BUDGET_S (total seconds, default 460; late steps are shortened
# or skipped to stay inside it), RAS_DEAD_WAIT (90), STRAGGLER_MS (50), ONLY (space-separated
# steps: ddp ras ras_monitor nccl_tests ddp_verbose_healthy).
# Every step runs under `timeout`; every process started here is killed at the end (by pid).
# Times are those of two processes taking turns on one GPU, not of two GPUs.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HERE=$ROOT/workloads
DEV=$ROOT/devtools
PYTHON=${PYTHON:-python3}
BUDGET_S=${BUDGET_S:-460}
RAS_DEAD_WAIT=${RAS_DEAD_WAIT:-90}
STRAGGLER_MS=${STRAGGLER_MS:-50}
OUT=${OUT:?set OUT: results go to \$OUT/nccl_data and \$OUT/nccl_data.tar.gz}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
D=$OUT/nccl_data
rm -rf "$D" "$OUT/nccl_data.tar.gz"
mkdir -p "$D"
SUMMARY=$D/summary.txt
cd "$ROOT" || exit 1

export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export NCCL_SOCKET_IFNAME=lo PYTHONUNBUFFERED=1

say() { echo "$*" | tee -a "$SUMMARY"; }
left() { echo $((BUDGET_S - SECONDS)); }
want() { [[ -z ${ONLY:-} || " $ONLY " == *" $1 "* ]]; }

# --- clean-up: process groups (timeout makes its own) and worker pids started here ---------------
GROUPS_STARTED=()
WORKER_PIDS=()
kill_worker() {  # kill_worker PID PATTERN: only if that pid still runs a command matching PATTERN
  local pid=$1 pat=$2
  [[ $pid =~ ^[0-9]+$ ]] || return 0
  [ -r "/proc/$pid/cmdline" ] || return 0
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$pat" || return 0
  kill -CONT "$pid" 2>/dev/null
  kill -KILL "$pid" 2>/dev/null
}
cleanup() {
  local g p
  for g in "${GROUPS_STARTED[@]}"; do
    kill -0 -- "-$g" 2>/dev/null || continue
    kill -CONT -- "-$g" 2>/dev/null; kill -TERM -- "-$g" 2>/dev/null
  done
  sleep 1
  for g in "${GROUPS_STARTED[@]}"; do kill -KILL -- "-$g" 2>/dev/null; done
  for p in "${WORKER_PIDS[@]}"; do kill_worker "${p%%:*}" "${p#*:}"; done
}
PACKED=0
pack() {
  [ "$PACKED" = 1 ] && return
  PACKED=1
  local tgz=$OUT/nccl_data.tar.gz max=$((15 * 1000 * 1000))
  tar -C "$OUT" -czf "$tgz" nccl_data
  if [ "$(stat -c %s "$tgz")" -gt "$max" ]; then
    echo "tarball over 15 MB: dropping Kineto traces" | tee -a "$SUMMARY"
    find "$D" -name 'trace_rank*.json.gz' -delete
    tar -C "$OUT" -czf "$tgz" nccl_data
  fi
  if [ "$(stat -c %s "$tgz")" -gt "$max" ]; then
    echo "still over 15 MB: cutting NCCL logs to 4 MB each" | tee -a "$SUMMARY"
    find "$D" -name 'nccl.*.log' -size +4M -exec truncate -s 4M {} \;
    tar -C "$OUT" -czf "$tgz" nccl_data
  fi
  cp "$SUMMARY" "$OUT/nccl_data_summary.txt" 2>/dev/null
  # only files at most two folders below $OUT come back: keep the tarball and the summary
  if tar -tzf "$tgz" >/dev/null 2>&1; then rm -rf "$D"; fi
  echo "packed: $tgz ($(du -h "$tgz" | cut -f1)) after $SECONDS s"
}
on_exit() { cleanup; pack; }
trap on_exit EXIT
trap 'echo "interrupted"; exit 130' INT TERM

# --- preflight ------------------------------------------------------------------------------------
NCCL_LIB_DIR=$("$PYTHON" -c 'import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], "lib"))' 2>/dev/null)
PLUGIN=$DEV/libnccl-profiler-inspector.so
RASBIN=$DEV/ncclras
if ! "$RASBIN" --version >/dev/null 2>&1; then RASBIN=$DEV/ncclras.dyn; fi
{
  echo "date: $(date -u +%FT%TZ)"; echo "host: $(hostname)"; uname -a
  nvidia-smi --query-gpu=name,driver_version,memory.total,pci.bus_id --format=csv 2>&1 | head -5
  "$PYTHON" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())' 2>&1
  echo "nccl lib dir: $NCCL_LIB_DIR"; ls -la "$NCCL_LIB_DIR" 2>&1
  echo "ras client: $RASBIN"; "$RASBIN" --version 2>&1
  echo "--- devtools"; ls -la "$DEV" 2>&1; sha256sum "$DEV"/* 2>&1
  echo "--- ldd"; ldd "$PLUGIN" 2>&1; ldd "$DEV/ncclras.dyn" 2>&1
  echo "--- nproc $(nproc)"; env | grep -E '^(NCCL|CUDA|TORCH)_' | sort
} >"$D/preflight.txt" 2>&1
say "commdx NCCL data capture, $(date -u +%FT%TZ) on $(hostname); budget ${BUDGET_S} s"
say "torch/nccl: $(grep -m1 '^torch ' "$D/preflight.txt")"
[ -f "$PLUGIN" ] || say "WARNING: no $PLUGIN: Inspector cases will have no JSONL"
[ -f "$NCCL_LIB_DIR/libnccl.so.2" ] || say "WARNING: no libnccl.so.2 under '$NCCL_LIB_DIR'"

torchrun=("$PYTHON" -m torch.distributed.run --standalone --nproc_per_node=2 --no-python
          "$HERE/as_node.sh")
inspector_env=(NCCL_PROFILER_PLUGIN="$PLUGIN" NCCL_INSPECTOR_ENABLE=1
               NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS=500)

count_inspector() {  # count_inspector DIR: records per JSONL file, comm ids, kinds of collectives
  local f
  for f in "$1"/*; do
    [ -f "$f" ] || continue
    "$PYTHON" - "$f" <<'EOF' 2>&1
import collections, json, os, sys
f = sys.argv[1]
n = bad = 0
comms, colls, verbose = collections.Counter(), collections.Counter(), 0
for line in open(f, errors="replace"):
    line = line.strip()
    if not line:
        continue
    try:
        r = json.loads(line)
    except ValueError:
        bad += 1
        continue
    n += 1
    h, c = r.get("header", {}), r.get("coll_perf", {})
    comms["%s(r%s/%s)" % (h.get("id"), h.get("rank"), h.get("n_ranks"))] += 1
    colls[c.get("coll")] += 1
    verbose += "event_trace_ts" in c
print("  %s: %d records (%d bad lines, %d verbose); comms %s; colls %s" % (
    os.path.basename(f), n, bad, verbose, dict(comms), dict(colls)))
EOF
  done
}

# --- 1. DDP with the Inspector plugin ---------------------------------------------------------------
ddp_case() {  # ddp_case NAME CAUSE VERBOSE(0/1)
  local name=$1 cause=$2 verbose=$3 out=$D/$1 t0=$SECONDS tmo r
  tmo=$(( $(left) - 20 )); [ "$tmo" -gt 150 ] && tmo=150
  if [ "$tmo" -lt 45 ]; then say "$name: skipped (time budget)"; return; fi
  mkdir -p "$out/inspector"
  env "${inspector_env[@]}" NCCL_INSPECTOR_DUMP_DIR="$out/inspector" \
    NCCL_INSPECTOR_DUMP_VERBOSE="$verbose" \
    NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,ENV,NET,TUNING,PROFILE \
    NCCL_DEBUG_FILE="$out/nccl.%h.%p.log" \
    timeout -k 10 "$tmo" "${torchrun[@]}" "$PYTHON" "$HERE/ddp.py" --scenario "$name" \
    --cause "$cause" --straggler-ms "$STRAGGLER_MS" --out "$out" --layers 2 --warmup-steps 2 \
    --timed-steps 10 --prof-wait 0 --prof-warmup 1 --prof-active 1 >"$out/stdout.log" 2>&1
  r=$?
  for f in "$out"/env_rank*.json; do  # worker pids, for the final clean-up
    [ -f "$f" ] && WORKER_PIDS+=("$(sed -n 's/.*"pid": \([0-9]*\).*/\1/p' "$f" | head -1):ddp.py")
  done
  cleanup
  {
    echo "exit $r, timeout $tmo s, inspector verbose $verbose, cause $cause," \
         "straggler_ms $STRAGGLER_MS, NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS=500"
    echo "command: torchrun --standalone --nproc_per_node=2 --no-python workloads/as_node.sh" \
         "python3 workloads/ddp.py --cause $cause --layers 2 --warmup-steps 2 --timed-steps 10" \
         "--prof-wait 0 --prof-warmup 1 --prof-active 1 --straggler-ms $STRAGGLER_MS"
  } >"$out/how.txt"
  say "$name: exit $r in $((SECONDS - t0)) s; $(cd "$out" && echo *)"
  say "$(grep -h 'median step ms' "$out/stdout.log" | tail -1)"
  say "$(count_inspector "$out/inspector")"
  grep -h 'Inspector\|PROFILER\|profiler' "$out"/nccl.*.log 2>/dev/null | head -4 | tee -a "$SUMMARY"
}
if want ddp; then
  ddp_case ddp_healthy none 0
  ddp_case ddp_straggler straggler 0
  ddp_case ddp_straggler_verbose straggler 1
fi

# --- 2. RAS against a live job ---------------------------------------------------------------------
# start_ras_job DIR READY_DIR MAX_S [VAR=VALUE...]: ras_loop.py on two ranks in the background
# (NCCL INFO logs DIR/nccl.*.log, stdout DIR/job_stdout.log); sets `job` (the caller's local).
start_ras_job() {
  local dir=$1 ready=$2 max_s=$3
  shift 3
  env "$@" NCCL_RAS_ENABLE=1 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,RAS \
    NCCL_DEBUG_FILE="$dir/nccl.%h.%p.log" \
    timeout -k 10 "$((max_s + 60))" "${torchrun[@]}" "$PYTHON" "$HERE/ras_loop.py" \
    --ready-dir "$ready" --stop-file "$ready/STOP" --max-s "$max_s" --port-base 28100 \
    >"$dir/job_stdout.log" 2>&1 &
  job=$!
  GROUPS_STARTED+=("$job")
}
# wait_ras_ready READY_DIR: until both ranks wrote their ready file (false after 120 s, or when the
# job ended first).
wait_ras_ready() {
  local i
  for ((i = 0; i < 120; i++)); do
    [ -f "$1/rank0.json" ] && [ -f "$1/rank1.json" ] && return 0
    kill -0 "$job" 2>/dev/null || break
    sleep 1
  done
  [ -f "$1/rank0.json" ] && [ -f "$1/rank1.json" ]
}
ras_step() {
  local R=$D/ras rd=$D/ras/ready t0=$SECONDS job r0 r1 p0 p1 t_stop=0 w dead_wait maxs i
  mkdir -p "$R" "$rd"
  printf 'name\tunix_time\ts_after_sigstop\trc\tbytes\tcommand\n' >"$R/queries.tsv"
  q() {  # q NAME PORT TIMEOUT ARGS...: one ncclras call, output in NAME.txt / NAME.stderr
    local name=$1 port=$2 tmo=$3 rc since=""
    shift 3
    [ "$t_stop" -gt 0 ] && since=$((SECONDS - t_stop))
    timeout -k 2 "$tmo" "$RASBIN" -h 127.0.0.1 -p "$port" "$@" >"$R/$name.txt" 2>"$R/$name.stderr"
    rc=$?
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$(date +%s)" "$since" "$rc" \
      "$(stat -c %s "$R/$name.txt")" "ncclras -h 127.0.0.1 -p $port $*" >>"$R/queries.tsv"
    echo "  ras $name: rc $rc, $(stat -c %s "$R/$name.txt") bytes${since:+, ${since} s after SIGSTOP}"
    if [ "$rc" != 0 ]; then head -n 2 "$R/$name.stderr" | sed 's/^/    /'; fi
  }
  dead_wait=$RAS_DEAD_WAIT
  # keep ~120 s for nccl-tests and packing after this step
  w=$(( $(left) - 120 - 60 ))
  [ "$w" -lt "$dead_wait" ] && dead_wait=$w
  if [ "$dead_wait" -lt 10 ]; then say "ras: skipped (time budget)"; return; fi
  maxs=$((dead_wait + 150))
  start_ras_job "$R" "$rd" "$maxs"
  if ! wait_ras_ready "$rd"; then
    say "ras: job not ready after $((SECONDS - t0)) s"; tail -n 20 "$R/job_stdout.log" | tee -a "$SUMMARY"
    cleanup; return
  fi
  r0=$(sed -n 's/.*"pid": \([0-9]*\).*/\1/p' "$rd/rank0.json")
  r1=$(sed -n 's/.*"pid": \([0-9]*\).*/\1/p' "$rd/rank1.json")
  WORKER_PIDS+=("$r0:ras_loop.py" "$r1:ras_loop.py")
  p0=28100 p1=28101
  say "ras: job ready in $((SECONDS - t0)) s; rank0 pid $r0 (port $p0), rank1 pid $r1 (port $p1); client $RASBIN"
  sleep 5
  {
    q healthy_text "$p0" 30
    q healthy_json "$p0" 30 -f json
    q healthy_verbose_text "$p0" 30 -v
    q healthy_verbose_json "$p0" 30 -v -f json
    q healthy_text_rank1port "$p1" 30
    q healthy_json_rank1port "$p1" 30 -f json
  } | tee -a "$SUMMARY"
  kill -STOP "$r1"; t_stop=$SECONDS
  say "ras: SIGSTOP rank 1 (pid $r1); waits: 8 s, 25 s, ${dead_wait} s"
  sleep 8
  { q stopped_8s_text "$p0" 30; q stopped_8s_json "$p0" 30 -f json; } | tee -a "$SUMMARY"
  if [ "$dead_wait" -gt 35 ]; then
    w=$((25 - (SECONDS - t_stop))); [ "$w" -gt 0 ] && sleep "$w"
    { q stopped_25s_text "$p0" 30; q stopped_25s_json "$p0" 30 -f json; } | tee -a "$SUMMARY"
  fi
  w=$((dead_wait - (SECONDS - t_stop))); [ "$w" -gt 0 ] && sleep "$w"
  {
    q "stopped_${dead_wait}s_text" "$p0" 30
    q "stopped_${dead_wait}s_json" "$p0" 30 -f json
    q "stopped_${dead_wait}s_verbose_text" "$p0" 30 -v
    q stopped_query_the_stopped_rank "$p1" 6
  } | tee -a "$SUMMARY"
  kill -CONT "$r1"; say "ras: SIGCONT rank 1 after $((SECONDS - t_stop)) s"
  sleep 6
  { q resumed_text "$p0" 30; q resumed_json "$p0" 30 -f json; } | tee -a "$SUMMARY"
  touch "$rd/STOP"
  for ((i = 0; i < 40; i++)); do kill -0 "$job" 2>/dev/null || break; sleep 1; done
  if kill -0 "$job" 2>/dev/null; then say "ras: job still running after STOP: killed"; fi
  cleanup
  wait "$job" 2>/dev/null; say "ras: job exit $?, step took $((SECONDS - t0)) s"
  grep -h 'RAS' "$R"/nccl.*.log 2>/dev/null | grep -v 'RAS client listening' | head -5 | tee -a "$SUMMARY"
  for f in healthy_text "stopped_${dead_wait}s_text"; do
    [ -s "$R/$f.txt" ] && { echo "--- $f"; head -n 40 "$R/$f.txt"; } | tee -a "$SUMMARY"
  done
}
if want ras; then ras_step; fi

# --- 2b. RAS monitor mode (NCCL 2.29+) against a live job ------------------------------------------
# The job runs on devtools/nccl-2.29/libnccl.so.2 (NVIDIA/nccl v2.29.7-1 built for sm_90 with only
# the all-reduce kernels ras_loop.py needs), loaded with LD_PRELOAD ahead of the pip package's
# 2.28.9 (same soname, so PyTorch binds to it); the monitors are devtools/ncclras-2.29 (v2.29.7-1
# src/ras/client.cc). Monitors connect to rank 0's RAS socket as soon as it listens: `-m all`
# (lifecycle and trace events) as text, `-m` (lifecycle) as JSON, and `-m all` on rank 1's socket;
# then rank 1 is stopped (SIGSTOP) for RAS_DEAD_WAIT s (a one-shot query at the end), resumed, and
# the job told to stop: the monitors end when the job closes their connections.
ras_monitor_step() {
  local R=$D/ras_monitor rd=$D/ras_monitor/ready t0=$SECONDS job r0 r1 t_stop mon=() i w maxs
  local lib=${RAS_NCCL_LIB:-$DEV/nccl-2.29/libnccl.so.2} bin=${RAS229:-$DEV/ncclras-2.29}
  "$bin" --version >/dev/null 2>&1 || bin=$bin.dyn
  [ -f "$lib" ] || { say "ras_monitor: no $lib: skipped"; return; }
  mkdir -p "$R" "$rd"
  w=$(( $(left) - 60 ))
  [ "$w" -lt 60 ] && { say "ras_monitor: skipped (time budget)"; return; }
  local dead=$RAS_DEAD_WAIT; [ "$((dead + 50))" -gt "$w" ] && dead=$((w - 50))
  maxs=$((dead + 120))
  start_ras_job "$R" "$rd" "$maxs" LD_PRELOAD="$lib"
  # connect as early as rank 0's RAS socket accepts (to see the peers join)
  for ((i = 0; i < 600; i++)); do
    "$bin" -h 127.0.0.1 -p 28100 -t 2 >/dev/null 2>&1 && break
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
  done
  "$bin" -h 127.0.0.1 -p 28100 -m all >"$R/monitor_all_text.txt" 2>"$R/monitor_all_text.stderr" &
  mon+=($!)
  "$bin" -h 127.0.0.1 -p 28100 -m -f json >"$R/monitor_json.txt" 2>"$R/monitor_json.stderr" &
  mon+=($!)
  "$bin" -h 127.0.0.1 -p 28101 -m all >"$R/monitor_rank1port_text.txt" \
    2>"$R/monitor_rank1port_text.stderr" &
  mon+=($!)
  say "ras_monitor: monitors started $((SECONDS - t0)) s after the job (client $bin)"
  if ! wait_ras_ready "$rd"; then
    say "ras_monitor: job not ready after $((SECONDS - t0)) s"
    tail -n 20 "$R/job_stdout.log" | tee -a "$SUMMARY"; kill "${mon[@]}" 2>/dev/null; cleanup; return
  fi
  r0=$(sed -n 's/.*"pid": \([0-9]*\).*/\1/p' "$rd/rank0.json")
  r1=$(sed -n 's/.*"pid": \([0-9]*\).*/\1/p' "$rd/rank1.json")
  WORKER_PIDS+=("$r0:ras_loop.py" "$r1:ras_loop.py")
  say "ras_monitor: ready in $((SECONDS - t0)) s; $(cat "$rd/rank0.json")"
  sleep 5
  kill -STOP "$r1"; t_stop=$SECONDS
  say "ras_monitor: SIGSTOP rank 1 (pid $r1) at $(date -u +%T); resume after ${dead} s"
  sleep "$dead"
  timeout -k 2 30 "$bin" -h 127.0.0.1 -p 28100 >"$R/stopped_${dead}s_text.txt" 2>&1
  kill -CONT "$r1"; say "ras_monitor: SIGCONT rank 1 after $((SECONDS - t_stop)) s at $(date -u +%T)"
  sleep 8
  touch "$rd/STOP"
  for ((i = 0; i < 40; i++)); do kill -0 "$job" 2>/dev/null || break; sleep 1; done
  kill -0 "$job" 2>/dev/null && say "ras_monitor: job still running after STOP: killed"
  cleanup
  wait "$job" 2>/dev/null; say "ras_monitor: job exit $?, step took $((SECONDS - t0)) s"
  sleep 2; kill "${mon[@]}" 2>/dev/null
  for f in "$R"/monitor_*.txt "$R"/monitor_*.stderr; do
    { echo "--- $(basename "$f") ($(stat -c %s "$f") bytes)"; head -n 30 "$f"; } | tee -a "$SUMMARY"
  done
}
if want ras_monitor; then ras_monitor_step; fi

# --- 3. nccl-tests ---------------------------------------------------------------------------------
nccl_tests_step() {
  local N=$D/nccl_tests bin tmo
  mkdir -p "$N"
  bin=$(mktemp -d /tmp/commdx-nccl-tests.XXXXXX)
  if ! tar -C "$bin" -xJf "$DEV/nccl-tests.tar.xz" 2>"$N/unpack.err"; then
    "$PYTHON" -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
      "$DEV/nccl-tests.tar.xz" "$bin" 2>>"$N/unpack.err"
  fi
  bin=$bin/nccl-tests
  [ -x "$bin/all_reduce_perf" ] || { say "nccl-tests: not unpacked: $(cat "$N/unpack.err")"; return; }
  LD_LIBRARY_PATH="$NCCL_LIB_DIR" ldd "$bin/all_reduce_perf" >"$N/ldd.txt" 2>&1
  nt() {  # nt NAME TEST ARGS...: one run, text table NAME.txt, NCCL log NAME.nccl.log
    local name=$1 test=$2 rc
    shift 2
    tmo=$(( $(left) - 15 )); [ "$tmo" -gt 90 ] && tmo=90
    if [ "$tmo" -lt 10 ]; then say "nccl-tests $name: skipped (time budget)"; return; fi
    env -i PATH=/usr/bin:/bin HOME="${HOME:-/tmp}" LD_LIBRARY_PATH="$NCCL_LIB_DIR" \
      CUDA_VISIBLE_DEVICES="${CUDA_VISIBLE_DEVICES:-0}" NCCL_NVLS_ENABLE=0 NCCL_SOCKET_IFNAME=lo \
      NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,TUNING NCCL_DEBUG_FILE="$N/$name.nccl.log" \
      "${EXTRA_ENV[@]}" timeout -k 5 "$tmo" "$bin/$test" "$@" >"$N/$name.txt" 2>&1
    rc=$?
    echo "$name: exit $rc; $test $*" >>"$N/commands.txt"
    say "nccl-tests $name: exit $rc; $(grep -m1 'Avg bus bandwidth' "$N/$name.txt")"
    if [ "$rc" != 0 ]; then tail -n 3 "$N/$name.txt" | sed 's/^/    /' | tee -a "$SUMMARY"; fi
  }
  EXTRA_ENV=()
  nt all_reduce all_reduce_perf -b 8 -e 64M -f 4 -g 1 -J "$N/all_reduce.json"
  nt all_reduce_per_iter all_reduce_perf -b 8 -e 64M -f 4 -g 1 -n 50 -I 1 -J "$N/all_reduce_per_iter.json"
  nt all_gather all_gather_perf -b 8 -e 64M -f 4 -g 1 -J "$N/all_gather.json"
  nt reduce_scatter reduce_scatter_perf -b 8 -e 64M -f 4 -g 1 -J "$N/reduce_scatter.json"
  nt alltoall alltoall_perf -b 8 -e 64M -f 4 -g 1 -J "$N/alltoall.json"
  mkdir -p "$N/inspector"
  EXTRA_ENV=("${inspector_env[@]}" NCCL_INSPECTOR_DUMP_DIR="$N/inspector" NCCL_INSPECTOR_DUMP_VERBOSE=1)
  nt all_reduce_inspector all_reduce_perf -b 8 -e 64M -f 4 -g 1 -n 20 -J "$N/all_reduce_inspector.json"
  say "$(count_inspector "$N/inspector")"
  rm -rf "$(dirname "$bin")"
  head -c 600 "$N/all_reduce_per_iter.json" | tee -a "$SUMMARY"; echo | tee -a "$SUMMARY"
}
if want nccl_tests; then nccl_tests_step; fi

# --- 4. last, if time is left: healthy DDP with verbose Inspector output ---------------------------
if want ddp || want ddp_verbose_healthy; then ddp_case ddp_healthy_verbose none 1; fi

say "done in $SECONDS s; files:"
(cd "$D" && find . -type f -printf '%s\t%p\n' | sort -k2) >"$D/files.tsv"
say "$(wc -l <"$D/files.tsv") files, $(du -sh "$D" | cut -f1)"
cleanup
pack
