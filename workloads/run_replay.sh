#!/usr/bin/env bash
# Runs on the GPU machine (one H200 is enough), from the repository root, with devbin/
# (scripts/device/build.sh) carried: `commdx bench replay` of the DDP captures recorded on this
# machine as two ranks on one GPU, each rank its own "node" (workloads/as_node.sh: NCCL_HOSTID
# per rank, sockets over loopback), and `commdx bench all_reduce` at the replayed size, so the
# replay's busbw can be checked against the sweep's. Output: $OUT/replay.log, one --save
# snapshot and one JSON report per replay, the sweep's JSON.
#   workloads/run_replay.sh
# The device tool returns at most eight files from $OUT: run it into another folder and pack it,
#   R=$OUT; OUT=/tmp/rr workloads/run_replay.sh; tar czf "$R/replay_out.tgz" -C /tmp/rr .
set -uo pipefail
export NCCL_NVLS_ENABLE=0 NCCL_SOCKET_IFNAME=lo
export LD_LIBRARY_PATH="$PWD/devbin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out=${OUT:-/tmp/commdx-replay}; mkdir -p "$out"
log="$out/replay.log"; : >"$log"
lib=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], "lib", "libnccl.so.2"))')
port=29600
two_nodes() {  # two_nodes NAME TIMEOUT_S ARGS...: `commdx ARGS` as two ranks, two "nodes"
  local name=$1 t=$2; shift 2
  port=$((port + 1))
  echo "=== $name: $*" >>"$log"
  local s; s=$(date +%s%N)
  timeout -k 5 "$t" torchrun --nproc-per-node 2 --master-port "$port" --no-python \
    workloads/as_node.sh devbin/commdx "$@" --nccl-lib "$lib" >>"$log" 2>&1
  printf '=== %s: exit %d, %d ms\n\n' "$name" $? $((($(date +%s%N) - s) / 1000000)) >>"$log"
}
{ date -u; nvidia-smi -L; echo "NCCL: $lib"; } >>"$log" 2>&1
for c in nodes2_ddp_healthy nodes2_ddp_straggler nodes2_ddp_healthy_twin_sched \
         nodes2_ddp_few_channels_buffsize_sched; do
  two_nodes "replay_$c" 240 bench replay "examples/$c" -c 0 --save "$out/$c.replay.json" \
    --format json -o "$out/$c.report.json"
  devbin/commdx diagnose "examples/$c" "$out/$c.replay.json" >>"$log" 2>&1
done
# The slowed run replayed without its settings: fast alone, so the job looks slow in the job.
two_nodes replay_few_channels_without_settings 240 bench replay \
  examples/nodes2_ddp_few_channels_buffsize_sched -c 0 --no-job-settings \
  --save "$out/few_channels_no_settings.replay.json"
# Both replays of the slowed run together: what its settings cost, measured.
devbin/commdx diagnose examples/nodes2_ddp_few_channels_buffsize_sched \
  "$out/nodes2_ddp_few_channels_buffsize_sched.replay.json" \
  "$out/few_channels_no_settings.replay.json" >>"$log" 2>&1
# The sweep at the DDP captures' bucket size (32 MiB) and the twin's (25 MiB, 31 MiB).
two_nodes bench_all_reduce 240 bench all_reduce -b 25M -e 32M -i 1M -c 0 --place out-of-place \
  --format json -o "$out/bench_all_reduce.json"
two_nodes bench_all_reduce_text 240 bench all_reduce -b 25M -e 32M -i 1M -c 0 --place out-of-place
