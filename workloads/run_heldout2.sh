#!/usr/bin/env bash
# Record the cases of workloads/heldout2.py on one GPU, one folder each.
#   bash workloads/run_heldout2.sh OUTDIR
# Env: PYTHON (python3), ONLY (space-separated case names).
set -u
OUTDIR=${1:?usage: run_heldout2.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1
mkdir -p "$OUTDIR"
for c in compile_healthy compile_graphs_tiny checkpoint_each_step clip_norm_item; do
  if [[ -n ${ONLY:-} && " $ONLY " != *" $c "* ]]; then continue; fi
  out=$OUTDIR/heldout2_$c t0=$SECONDS
  mkdir -p "$out"
  timeout -k 10 170 "$PYTHON" "$HERE/heldout2.py" --case "$c" --out "$out" >"$out/stdout.log" 2>&1
  echo "$c rc=$? $((SECONDS - t0)) s: $(tail -1 "$out/stdout.log")"
done
