#!/usr/bin/env bash
# Record workloads/hang.py (healthy and timeout modes) under torchrun, one folder each, with the
# job's stdout/stderr, NCCL logs (INIT,ENV,COLL,TUNING) and Flight Recorder dumps.
#   bash workloads/run_hang.sh OUTDIR
# Env: PYTHON (python3), NPROC (ranks, default 1), MODES (default "healthy timeout"; skip and
# mismatch need 2+ ranks), AS_NODES=1 (every rank on GPU 0 as its own node: as_node.sh),
# DETAIL (1: TORCH_DISTRIBUTED_DEBUG=DETAIL, whose checks before every collective catch a skipped
# or mismatched one in Python before NCCL hangs; 0: without it, folders named hang_MODE_plain).
set -u
OUTDIR=${1:?usage: run_hang.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
NPROC=${NPROC:-1}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
launch=("$PYTHON" -m torch.distributed.run --standalone --nproc_per_node="$NPROC")
if [ "${AS_NODES:-0}" = 1 ]; then launch+=(--no-python "$HERE/as_node.sh" "$PYTHON"); fi
for mode in ${MODES:-healthy timeout}; do
  out=$OUTDIR/hang_$mode debug=(TORCH_DISTRIBUTED_DEBUG=DETAIL)
  if [ "${DETAIL:-1}" = 0 ]; then out=${out}_plain debug=(); fi
  mkdir -p "$out"
  t0=$SECONDS
  NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,COLL,TUNING NCCL_DEBUG_FILE="$out/nccl.%h.%p.log" \
    TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1 \
    TORCH_FR_DUMP_TEMP_FILE="$out/fr_dump_rank" TORCH_NCCL_DEBUG_INFO_TEMP_FILE="$out/fr_dump_rank" \
    TORCH_CPP_LOG_LEVEL=INFO \
    env "${debug[@]}" timeout -k 10 120 "${launch[@]}" "$HERE/hang.py" --mode "$mode" --out "$out" >"$out/job.log" 2>&1
  echo "$(basename "$out"): exit $? in $((SECONDS - t0)) s; files: $(ls "$out" | tr '\n' ' ')"
  tail -n 5 "$out/job.log"
done
