#!/usr/bin/env bash
# Captures NCCL Inspector output in its Prometheus mode (issue 42) on a one-GPU machine, as real
# test data, with the plugin built from two NVIDIA/nccl tags, whose Prometheus output differs:
#   v2.29.3-1 `ext-profiler/inspector` (the first with `inspector_prom.cc`): per communicator, the
#     last collective of each dump pass, labelled with its rank, coll_sn and size;
#   v2.30.7-1 `plugins/profiler/inspector`: per GPU, every collective of the pass aggregated per
#     (communicator name, collective, size range, algorithm_protocol): mean time, geometric-mean
#     busbw; no rank, no sequence number.
# Both use profiler API v5, so the machine's NCCL 2.28 loads them. Built here (no -march=native,
# CUDA runtime linked statically so the plugin needs only libc, libstdc++):
#
#   make -C <dir> LIBS="-Wl,-Bstatic -lcudart_static -Wl,-Bdynamic -ldl -lpthread -lrt"
#   cp <dir>/libnccl-profiler-inspector.so devbin/inspector229/ (or devbin/inspector230/)
#
# In Prometheus mode (NCCL_INSPECTOR_PROM_DUMP=1) the plugin rewrites one file per GPU,
# DUMP_DIR/nccl_inspector_metrics_<GPU UUID>.prom, every dump interval (at least 30 s). It deletes
# the file when the process exits, so a watcher here copies every new version while the job runs.
#
# The job is workloads/ddp.py (2 layers) over two NCCL ranks on GPU 0, each rank its own "host"
# (as_node.sh: NCCL_HOSTID per rank, sockets over lo). Both ranks sit on one GPU, so both would
# write the same file name: each rank gets its own dump folder (DUMP_BASE/rank<R>), as two nodes
# would have. Cases, each run for RUN_S seconds (default 65: two dump passes):
#   p229_healthy     2.29.3 plugin, healthy
#   p230_healthy     2.30.7 plugin, healthy
#   p230_straggler   2.30.7 plugin, rank 1 runs an extra ~STRAGGLER_MS matmul loop before each
#                    forward
#   j230_healthy     2.30.7 plugin in its default JSONL mode, healthy, 20 s (what the newer JSONL
#                    looks like next to the 2.28.9 captures of tests/data/inspector)
# Results: $OUT/prom/<case>/{snap/rank<R>/<seconds>_<file>.prom, nccl.*.log, stdout.log, how.txt},
# packed into $OUT/prom.tar.gz.
#
#   OUT=/tmp/o bash workloads/run_inspector_prom.sh     (from the repository root)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HERE=$ROOT/workloads
P229=$ROOT/devbin/inspector229/libnccl-profiler-inspector.so
P230=$ROOT/devbin/inspector230/libnccl-profiler-inspector.so
PYTHON=${PYTHON:-python3}
RUN_S=${RUN_S:-65}
STRAGGLER_MS=${STRAGGLER_MS:-50}
OUT=${OUT:?set OUT}
D=$OUT/prom
rm -rf "$D" && mkdir -p "$D"
cd "$ROOT" || exit 1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export NCCL_SOCKET_IFNAME=lo PYTHONUNBUFFERED=1
for p in "$P229" "$P230"; do [ -f "$p" ] || { echo "no plugin at $p"; exit 2; }; done
{ date -u +%FT%TZ; hostname; nvidia-smi -L; ldd "$P229" "$P230"; sha256sum "$P229" "$P230"
  "$PYTHON" -c 'import torch; print("torch", torch.__version__, "nccl", torch.cuda.nccl.version())'
} >"$D/preflight.txt" 2>&1

watch_prom() {  # watch_prom BASE SNAP: copy each new version of every .prom file, until killed
  local base=$1 snap=$2 t0=$SECONDS f r last
  declare -A seen
  while true; do
    for f in "$base"/rank*/*.prom; do
      [ -f "$f" ] || continue
      r=$(basename "$(dirname "$f")")
      last=${seen[$f]:-}
      if [ -z "$last" ] || ! cmp -s "$f" "$last"; then
        mkdir -p "$snap/$r"
        cp "$f" "$snap/$r/$(printf '%03d' $((SECONDS - t0)))_$(basename "$f")" &&
          seen[$f]="$snap/$r/$(printf '%03d' $((SECONDS - t0)))_$(basename "$f")"
      fi
    done
    sleep 1
  done
}

run_case() {  # run_case NAME PLUGIN CAUSE PROM(0/1) SECONDS
  local name=$1 plugin=$2 cause=$3 prom=$4 secs=$5 out=$D/$1 wpid r
  mkdir -p "$out/dump"
  if [ "$prom" = 1 ]; then
    watch_prom "$out/dump" "$out/snap" &
    wpid=$!
  fi
  # Each rank its own dump folder: DUMP_BASE/rank$RANK (RANK comes from torchrun).
  env NCCL_PROFILER_PLUGIN="$plugin" NCCL_INSPECTOR_ENABLE=1 NCCL_INSPECTOR_PROM_DUMP="$prom" \
    NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS=$([ "$prom" = 1 ] && echo 30000000 || echo 500) \
    DUMP_BASE="$out/dump" NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,NET,PROFILE \
    NCCL_DEBUG_FILE="$out/nccl.%h.%p.log" \
    timeout -k 10 "$secs" "$PYTHON" -m torch.distributed.run --standalone --nproc_per_node=2 \
    --no-python "$HERE/as_node.sh" bash -c \
    'export NCCL_INSPECTOR_DUMP_DIR=$DUMP_BASE/rank$RANK; mkdir -p "$NCCL_INSPECTOR_DUMP_DIR"; exec "$@"' \
    _ "$PYTHON" "$HERE/ddp.py" --scenario "$name" --cause "$cause" --straggler-ms "$STRAGGLER_MS" \
    --out "$out" --layers 2 --warmup-steps 2 --timed-steps 100000 --prof-wait 0 --prof-warmup 1 \
    --prof-active 1 >"$out/stdout.log" 2>&1
  r=$?
  sleep 2
  [ -n "${wpid:-}" ] && kill "$wpid" 2>/dev/null
  pkill -f "$HERE/ddp.py" 2>/dev/null
  {
    echo "exit $r (124: stopped by timeout after $secs s, as intended), cause $cause," \
         "NCCL_INSPECTOR_PROM_DUMP=$prom, straggler_ms $STRAGGLER_MS, plugin $plugin"
    echo "command: torchrun --standalone --nproc_per_node=2 --no-python workloads/as_node.sh" \
         "python3 workloads/ddp.py --cause $cause --layers 2 --timed-steps 100000 (until timeout)"
  } >"$out/how.txt"
  echo "== $name: exit $r"; find "$out/snap" "$out/dump" -type f 2>/dev/null | head -20
  grep -h 'median step ms\|step ' "$out/stdout.log" | tail -2
}

run_case p229_healthy "$P229" none 1 "$RUN_S"
run_case p230_healthy "$P230" none 1 "$RUN_S"
run_case p230_straggler "$P230" straggler 1 "$RUN_S"
run_case j230_healthy "$P230" none 0 25
for c in "$D"/*/; do rm -f "$c"/trace_rank*.json.gz; done  # the Kineto traces: not needed here
tar czf "$OUT/prom.tar.gz" -C "$OUT" prom && rm -rf "$D"
ls -la "$OUT"
