#!/usr/bin/env bash
# Runs on the GPU machine (one H200 is enough), from the repository root, with devbin/
# (scripts/device/build.sh) carried: `commdx bench replay` of point-to-point calls and of process
# groups smaller than the job, every rank its own "node" on the one GPU (workloads/as_node.sh).
#   1. examples/pipeline_healthy (a 2-stage pipeline: sends and receives only) replayed on two
#      ranks with the correctness check, and `commdx bench sendrecv` at the replayed size;
#   2. a 4-rank capture of workloads/subgroups.py (pairs, ranks two apart, every rank, a send two
#      ranks on), then its replay on four ranks with the correctness check.
# Output: $OUT/replay_groups.log, the snapshots and JSON reports, the capture's traces.
#   R=$OUT; OUT=/tmp/rg workloads/run_replay_groups.sh; tar czf "$R/replay_groups.tgz" -C /tmp/rg .
set -uo pipefail
export NCCL_NVLS_ENABLE=0 NCCL_SOCKET_IFNAME=lo
export LD_LIBRARY_PATH="$PWD/devbin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out=${OUT:-/tmp/commdx-replay-groups}; mkdir -p "$out"
log="$out/replay_groups.log"; : >"$log"
lib=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], "lib", "libnccl.so.2"))')
port=29700
nodes() {  # nodes N NAME TIMEOUT_S CMD...: CMD as N ranks, each its own "node"
  local n=$1 name=$2 t=$3; shift 3
  port=$((port + 1))
  echo "=== $name: $*" >>"$log"
  local s; s=$(date +%s%N)
  timeout -k 5 "$t" torchrun --nproc-per-node "$n" --master-port "$port" --no-python \
    workloads/as_node.sh "$@" >>"$log" 2>&1
  printf '=== %s: exit %d, %d ms\n\n' "$name" $? $((($(date +%s%N) - s) / 1000000)) >>"$log"
}
{ date -u; nvidia-smi -L; echo "NCCL: $lib"; } >>"$log" 2>&1
nodes 2 replay_pipeline 240 devbin/commdx bench replay examples/pipeline_healthy -c 1 \
  --nccl-lib "$lib" --save "$out/pipeline.replay.json" --format json -o "$out/pipeline.report.json"
devbin/commdx diagnose examples/pipeline_healthy "$out/pipeline.replay.json" >>"$log" 2>&1
nodes 2 bench_sendrecv 240 devbin/commdx bench sendrecv -b 1M -e 16M -f 2 -c 1 --nccl-lib "$lib"
mkdir -p "$out/subgroups"
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL,P2P NCCL_DEBUG_FILE="$out/subgroups/nccl.%h.%p.log" \
  nodes 4 capture_subgroups 300 python3 workloads/subgroups.py --out "$out/subgroups"
ls -la "$out/subgroups" >>"$log"
nodes 4 replay_subgroups 400 devbin/commdx bench replay "$out/subgroups" -c 1 --nccl-lib "$lib" \
  --save "$out/subgroups.replay.json" --format json -o "$out/subgroups.report.json"
nodes 4 replay_subgroups_text 300 devbin/commdx bench replay "$out/subgroups" -c 0 \
  --nccl-lib "$lib"
devbin/commdx diagnose "$out/subgroups" "$out/subgroups.replay.json" >>"$log" 2>&1
nodes 2 bench_all_reduce 240 devbin/commdx bench all_reduce -b 8M -e 16M -f 2 -c 0 \
  --nccl-lib "$lib"
