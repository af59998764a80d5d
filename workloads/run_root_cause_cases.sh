#!/usr/bin/env bash
# Cases where the root cause is what fixing it would save (issue 38), on the one-GPU machine:
#   kineto  idle_causes.py: mask indexing on small kernels, allocator churn, host work between
#           steps, a CUDA graph captured in the profiled window; each recorded with a profiler
#           schedule (sched) and a plain `with profile():` (plain)
#   nsys    the first three under Nsight Systems (needs NSYS), exported to gzipped SQLite
#   nodes   two NCCL ranks as two nodes (as_node.sh): NCCL_MAX_NCHANNELS=1 NCCL_BUFFSIZE=65536
#           and its healthy twin, both profile styles, NCCL logs
#   symm    a two-rank gradient all-reduce through symmetric memory, both profile styles
#   oom     rank 1 runs out of memory inside NCCL, rank 0 loses its peer; one launcher per node
#   bash workloads/run_root_cause_cases.sh WORKDIR [PACKDIR]
# Each case gets WORKDIR/<case>_<style>/; with PACKDIR, each finished folder is appended to
# PACKDIR/<group>.tar at once (a run stopped at its time limit keeps what finished).
# Env: PYTHON (python3), ONLY (the groups to run, in that order; default "kineto symm oom nsys
# nodes"), NSYS, NSYS_LIBS, DEADLINE_S (start no case after this many seconds).
set -u
W=${1:?usage: run_root_cause_cases.sh WORKDIR [PACKDIR]}
PACK=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1
mkdir -p "$W"
W=$(cd "$W" && pwd)
late() {
  if ((SECONDS > ${DEADLINE_S:-1000000})); then echo "SKIPPED $1: ${SECONDS} s > DEADLINE_S"; return 0; fi
  return 1
}
pack() {  # pack GROUP NAME
  [ -n "$PACK" ] && tar -rf "$PACK/$1.tar" -C "$W" "$2"
  echo "$2: $(du -sh "$W/$2" | cut -f1) [$(cd "$W/$2" && echo *)] at ${SECONDS} s"
}
nccl_log() {  # nccl_log DIR: the NCCL log settings as an array, for env
  ncclenv=(NCCL_DEBUG=INFO "NCCL_DEBUG_SUBSYS=INIT,GRAPH,ENV,NET,TUNING" "NCCL_DEBUG_FILE=$1/nccl.%h.%p.log")
}

run_kineto() {
  for c in mask_index_small alloc_churn host_gap cuda_graph_capture; do
    for r in sched plain; do
      late "${c}_$r" && continue
      out=$W/${c}_$r; mkdir -p "$out"
      timeout -k 10 150 "$PYTHON" "$HERE/idle_causes.py" --case "$c" --record "$r" --out "$out" \
        >"$out/stdout.log" 2>&1
      echo "${c}_$r: exit $?; $(tail -n 1 "$out/stdout.log")"
      pack "kineto_$([[ $c == mask_index_small || $c == alloc_churn ]] && echo a || echo b)" "${c}_$r"
    done
  done
}

run_nsys() {
  if [ -z "${NSYS:-}" ] || [ ! -x "$NSYS" ]; then echo "no NSYS: no Nsight Systems captures"; return; fi
  # shellcheck source=workloads/nsys_sqlite.sh
  . "$HERE/nsys_sqlite.sh"
  for c in mask_index_small alloc_churn host_gap; do
    late "${c}_nsys" && continue
    out=$W/${c}_nsys; mkdir -p "$out"
    timeout -k 10 180 "$NSYS" profile -t cuda,nvtx --sample=none --cpuctxsw=none \
      --capture-range=cudaProfilerApi --force-overwrite true -o "/tmp/${c}_nsys" \
      "$PYTHON" "$HERE/idle_causes.py" --case "$c" --record nsys --out "$out" \
      >"$out/stdout.log" 2>&1
    echo "${c}_nsys: exit $?"
    NSYS_EXPORT_FLAGS="--include-json true" nsys_to_sqlite "/tmp/${c}_nsys" "$out/report.sqlite" \
      "$out/stdout.log"
    pack nsys "${c}_nsys"
  done
}

torchrun=("$PYTHON" -m torch.distributed.run --standalone --nproc_per_node=2 --no-python
          "$HERE/as_node.sh")
run_nodes() {
  for r in sched plain; do
    for cause in few_channels_buffsize none; do
      name=nodes2_ddp_few_channels_buffsize_$r
      envs=(NCCL_MAX_NCHANNELS=1 NCCL_BUFFSIZE=65536)
      if [ "$cause" = none ]; then name=nodes2_ddp_healthy_twin_$r; envs=(); fi
      late "$name" && continue
      out=$W/$name; mkdir -p "$out"
      nccl_log "$out"
      env "${ncclenv[@]}" "${envs[@]}" timeout -k 10 200 "${torchrun[@]}" "$PYTHON" \
        "$HERE/ddp.py" --scenario "$name" --cause "$cause" --out "$out" --layers 2 \
        --dim 512 --warmup-steps 2 --timed-steps 4 --prof-warmup 1 --profile-style "$r" \
        >"$out/stdout.log" 2>&1
      echo "$name: exit $?; $(tail -n 1 "$out/stdout.log")"
      pack nodes "$name"
    done
  done
}

run_symm() {
  for r in sched plain; do
    name=nodes2_symm_mem_allreduce_$r
    late "$name" && continue
    out=$W/$name; mkdir -p "$out"
    nccl_log "$out"
    env "${ncclenv[@]}" timeout -k 10 100 "${torchrun[@]}" "$PYTHON" \
      "$HERE/symm_mem_allreduce.py" --record "$r" --out "$out" >"$out/stdout.log" 2>&1
    rc=$?
    echo "$name: exit $rc; $(tail -n 2 "$out/stdout.log")"
    pack symm "$name"
    [ $rc -eq 0 ] || break
  done
}

run_oom() {
  local name=nodes2_oom_then_remote_exit port k rc0 rc1 pids=()
  if ! late "$name"; then
    out=$W/$name; mkdir -p "$out"
    port=$((29600 + RANDOM % 200))
    nccl_log "$out"
    for k in 0 1; do
      env "${ncclenv[@]}" timeout -k 10 110 "$PYTHON" -m torch.distributed.run --nnodes=2 \
        --nproc_per_node=1 --node_rank=$k --master_addr=127.0.0.1 --master_port=$port \
        --no-python "$HERE/as_node.sh" "$PYTHON" "$HERE/oom_peer_exit.py" --out "$out" \
        >"$out/stdout_node$k.log" 2>&1 &
      pids[k]=$!
    done
    wait "${pids[0]}"; rc0=$?
    wait "${pids[1]}"; rc1=$?
    echo "$name: node 0 exit $rc0, node 1 exit $rc1"; tail -n 3 "$out"/stdout_node*.log
    pack oom "$name"
  fi
}

for g in ${ONLY:-kineto symm oom nsys nodes}; do "run_$g"; done
echo "done in ${SECONDS} s"
