#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with devbin/ (scripts/device/build.sh)
# carried: every live path of commdx that works on the GPUs there, each step's output in
# $OUT/checks.log, snapshots and JSON under $OUT. Steps that need two GPUs are waived with a
# line saying so when only one is present. Nothing here changes a GPU setting.
#   checks.sh [quick]     quick: skip the longer bench sweeps
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export LD_LIBRARY_PATH="$PWD/devbin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out=${OUT:-/tmp/commdx-checks}; mkdir -p "$out"
log="$out/checks.log"; : >"$log"
cx=devbin/commdx
torch_nccl=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], "lib", "libnccl.so.2"))' 2>/dev/null)
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
step() {  # step NAME TIMEOUT_S CMD...: one check, its exit code and wall time in the log
  local name=$1 t=$2; shift 2
  echo "=== $name: $*" >>"$log"
  local s; s=$(date +%s%N)
  timeout -k 5 "$t" "$@" >>"$log" 2>&1
  local rc=$?
  printf '=== %s: exit %d, %d ms\n\n' "$name" "$rc" $((($(date +%s%N) - s) / 1000000)) >>"$log"
}
{ date -u; uname -r; nvidia-smi -L; echo "GPUs: $ngpu"; echo "torch NCCL: $torch_nccl"; ldd "$cx"; } >>"$log" 2>&1
nvidia-smi topo -m >"$out/nvidia-smi-topo-m.txt" 2>&1
nvidia-smi nvlink -s >"$out/nvidia-smi-nvlink-s.txt" 2>&1
step topo 60 "$cx" topo
step topo_save 60 "$cx" topo --save "$out/topo-snapshot.json"
step env 60 "$cx" env --save "$out/env-snapshot.json"
step topo_from_smi 30 "$cx" topo --from "$out/nvidia-smi-topo-m.txt"
step doctor 120 "$cx" doctor --nccl-lib "$torch_nccl"
step gpu_tests 300 devbin/commdx_gpu_tests --gtest_brief=1
nl=(--nccl-lib "$torch_nccl")
step ar_plain 120 "$cx" bench all_reduce -b 8 -e 64M -f 8 "${nl[@]}"
step ar_graph 120 "$cx" bench all_reduce -b 8 -e 64M -f 8 -G 20 "${nl[@]}" --timeout 20
step ar_gate 120 "$cx" bench all_reduce -b 8 -e 64M -f 8 --gate "${nl[@]}" --timeout 20
# What per-iteration timing events cost at latency-bound sizes: one event per K launches.
for k in 1 4 16 64; do
  step "ar_events_every_$k" 120 "$cx" bench all_reduce -b 8 -e 64K -f 8 -n 256 --events-every "$k" "${nl[@]}"
done
[ "${1:-}" = quick ] || step ar_sweep 180 "$cx" bench all_reduce -b 8 -e 8G -f 4 "${nl[@]}" --format json -o "$out/ar_sweep.json"
step oom 60 "$cx" bench all_reduce -b 100G -e 100G -c 0 "${nl[@]}"
# torchrun-style launch: one process (world 1) must run; world 2 with rank 1 never started must
# name the missing rank and stop; two processes on one GPU must get NCCL's error explained.
tr=(env MASTER_ADDR=127.0.0.1 LOCAL_RANK=0)
step torchrun_world1 120 "${tr[@]}" RANK=0 WORLD_SIZE=1 MASTER_PORT=29511 "$cx" bench all_reduce -b 8 -e 16M -f 16 "${nl[@]}"
step torchrun_rank_missing 120 "${tr[@]}" RANK=0 WORLD_SIZE=2 MASTER_PORT=29512 "$cx" bench all_reduce -e 1M "${nl[@]}" --timeout 15
if [ "$ngpu" -ge 2 ]; then
  echo "=== torchrun_two_ranks (two GPUs)" >>"$log"
  "${tr[@]}" RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 MASTER_PORT=29513 timeout 120 "$cx" bench all_reduce -b 8 -e 256M -f 4 "${nl[@]}" >"$out/rank1.txt" 2>&1 &
  step torchrun_two_ranks 120 "${tr[@]}" RANK=0 WORLD_SIZE=2 MASTER_PORT=29513 "$cx" bench all_reduce -b 8 -e 256M -f 4 "${nl[@]}"
  wait; cat "$out/rank1.txt" >>"$log"
else
  echo "=== torchrun_two_ranks: waived (one GPU; two ranks need two GPUs)" >>"$log"
  echo "=== two ranks on one GPU (NCCL refuses; the message must say why)" >>"$log"
  "${tr[@]}" RANK=1 WORLD_SIZE=2 MASTER_PORT=29514 CUDA_VISIBLE_DEVICES=0 timeout 60 "$cx" bench all_reduce -e 1M "${nl[@]}" --timeout 15 >"$out/dup_rank1.txt" 2>&1 &
  step torchrun_same_gpu 60 "${tr[@]}" RANK=0 WORLD_SIZE=2 MASTER_PORT=29514 CUDA_VISIBLE_DEVICES=0 "$cx" bench all_reduce -e 1M "${nl[@]}" --timeout 15
  wait; echo "--- rank 1:" >>"$log"; cat "$out/dup_rank1.txt" >>"$log"
fi
# Two ranks on one GPU under two host ids (as two pods time-slicing one GPU do): NCCL joins them
# through sockets and the run completes; the report must name the shared GPU (bench.shared_gpu).
"${tr[@]}" RANK=1 WORLD_SIZE=2 MASTER_PORT=29515 CUDA_VISIBLE_DEVICES=0 NCCL_HOSTID=commdx-node1 timeout 90 "$cx" bench all_reduce -b 8 -e 4M -f 8 "${nl[@]}" --timeout 30 >"$out/shared_rank1.txt" 2>&1 &
step two_hosts_one_gpu 90 "${tr[@]}" RANK=0 WORLD_SIZE=2 MASTER_PORT=29515 CUDA_VISIBLE_DEVICES=0 NCCL_HOSTID=commdx-node0 "$cx" bench all_reduce -b 8 -e 4M -f 8 "${nl[@]}" --timeout 30
wait; echo "--- rank 1:" >>"$log"; cat "$out/shared_rank1.txt" >>"$log"
# Placement audit while a process holds the GPU (pinned to CPUs 0-1).
taskset -c 0-1 python3 -c 'import torch,time; x=torch.ones(1<<28,device="cuda:0"); time.sleep(25)' &
sleep 12
step topo_placement 60 "$cx" topo
wait
tail -n 3 "$log"
