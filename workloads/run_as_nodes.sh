#!/usr/bin/env bash
# Two-rank captures on a one-GPU machine: every rank on GPU 0 as its own node (as_node.sh), so
# NCCL joins them through its socket transport. Real 2-rank files of every kind commdx reads:
# Flight Recorder dumps, watchdog output and COLL lines of hangs (run_hang.sh modes healthy,
# skip, mismatch), Kineto traces and NCCL logs of DDP runs with a cause on one rank, and
# Nsight Systems reports (one per rank, and one for the whole job) exported to SQLite.
#   bash workloads/run_as_nodes.sh OUTDIR
# Env: PYTHON (python3), NPROC (ranks, default 2; folders are named nodesNPROC_*), NSYS (an nsys
# binary; no reports without it), NSYS_LIBS (libdw/libelf its importer needs), ONLY
# (space-separated step names: hang ddp nsys_per_rank nsys_job).
# Times are those of two processes taking turns on one GPU, not of two GPUs.
set -u
OUTDIR=${1:?usage: run_as_nodes.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
NPROC=${NPROC:-2}
torchrun=("$PYTHON" -m torch.distributed.run --standalone --nproc_per_node="$NPROC" --no-python
          "$HERE/as_node.sh")
small=(--layers 2 --timed-steps 8)  # socket all-reduces of a 6-layer model take seconds
want() { [[ -z ${ONLY:-} || " $ONLY " == *" $1 "* ]]; }

if want hang; then
  AS_NODES=1 NPROC=$NPROC MODES="healthy skip mismatch" PYTHON="$PYTHON" bash "$HERE/run_hang.sh" "$OUTDIR"
fi

ddp() {  # ddp NAME CAUSE: Kineto traces and NCCL logs of both ranks
  local name=$1 cause=$2 out=$OUTDIR/$1 t0=$SECONDS
  mkdir -p "$out"
  NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,ENV,NET,TUNING NCCL_DEBUG_FILE="$out/nccl.%h.%p.log" \
    timeout -k 10 150 "${torchrun[@]}" "$PYTHON" "$HERE/ddp.py" --scenario "$name" \
    --cause "$cause" --out "$out" "${small[@]}" >"$out/stdout.log" 2>&1
  echo "$name: exit $? in $((SECONDS - t0)) s; files: $(ls "$out" | tr '\n' ' ')"
  tail -n 3 "$out/stdout.log"
}
if want ddp; then
  ddp "nodes${NPROC}_ddp_healthy" none
  ddp "nodes${NPROC}_ddp_straggler" straggler
  ddp "nodes${NPROC}_ddp_data_stall" data_stall
fi

[ -n "${NSYS:-}" ] && [ -x "$NSYS" ] || { echo "no NSYS: no Nsight Systems reports"; exit 0; }
# shellcheck source=workloads/nsys_sqlite.sh
. "$HERE/nsys_sqlite.sh"
to_sqlite() {  # to_sqlite REP_BASE OUT.sqlite, then its size
  nsys_to_sqlite "$1" "$2" /dev/null
  echo "  $(basename "$2"): $([ -f "$2.gz" ] && du -h "$2.gz" | cut -f1 || echo missing)"
}
profile=("$NSYS" profile -t cuda,nvtx --sample=none --cpuctxsw=none --force-overwrite true)
if want nsys_per_rank; then
  # The way NVIDIA's guides profile a multi-rank job: nsys inside the launcher, one report per
  # rank named by RANK, a capture range around the profiled steps.
  out=$OUTDIR/nsys_nodes${NPROC}_straggler_per_rank t0=$SECONDS; mkdir -p "$out"
  NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV NCCL_DEBUG_FILE="$out/nccl.%h.%p.log" \
    timeout -k 10 200 "${torchrun[@]}" "${profile[@]}" --capture-range=cudaProfilerApi \
    -o "/tmp/nodes2_rank%q{RANK}" "$PYTHON" "$HERE/ddp.py" --scenario nsys_nodes2_straggler \
    --cause straggler --nsys --out "$out" "${small[@]}" >"$out/stdout.log" 2>&1
  echo "nsys per rank: exit $? in $((SECONDS - t0)) s"; tail -n 3 "$out/stdout.log"
  for ((r = 0; r < NPROC; r++)); do to_sqlite "/tmp/nodes2_rank$r" "$out/report_rank$r.sqlite"; done
fi
if want nsys_job; then
  # nsys outside the launcher: one report holding both ranks' processes, the whole run (init,
  # warm-up and timed steps too; no capture range).
  out=$OUTDIR/nsys_nodes${NPROC}_straggler_job t0=$SECONDS; mkdir -p "$out"
  NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV NCCL_DEBUG_FILE="$out/nccl.%h.%p.log" \
    timeout -k 10 200 "${profile[@]}" -o /tmp/nodes2_job "${torchrun[@]}" "$PYTHON" \
    "$HERE/ddp.py" --scenario nsys_nodes2_straggler --cause straggler --nsys --out "$out" \
    "${small[@]}" >"$out/stdout.log" 2>&1
  echo "nsys whole job: exit $? in $((SECONDS - t0)) s"; tail -n 3 "$out/stdout.log"
  to_sqlite /tmp/nodes2_job "$out/report.sqlite"
fi
