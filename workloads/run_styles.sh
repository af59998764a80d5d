#!/usr/bin/env bash
# Record the capture styles of workloads/styles.py on one GPU, one folder each, then pack OUTDIR.
#   bash workloads/run_styles.sh OUTDIR
# Env: PYTHON (python3), ONLY (space-separated style names), NSYS (an nsys binary: the styles of
# NSYS_STYLES are also recorded under Nsight Systems and exported to SQLite), NSYS_LIBS
# (libdw/libelf it needs), NSYS_EXPORT_FLAGS (`nsys export` options; --include-json true).
set -u
OUTDIR=${1:?usage: run_styles.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=workloads/nsys_sqlite.sh
. "$HERE/nsys_sqlite.sh"
PYTHON=${PYTHON:-python3}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
printf 'style\tddp\trc\tseconds\n' >"$OUTDIR/summary.tsv"
run() {  # run STYLE plain|ddp
  local style=$1 mode=$2 out=$OUTDIR/styles_$1 t0=$SECONDS rc
  if [[ -n ${ONLY:-} && " $ONLY " != *" $style "* ]]; then return 0; fi
  mkdir -p "$out"
  if [ "$mode" = ddp ]; then
    NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,ENV,NET NCCL_DEBUG_FILE="$out/nccl.%h.%p.log" \
      timeout -k 10 90 "$PYTHON" -m torch.distributed.run --standalone --nproc_per_node=1 \
      "$HERE/styles.py" --style "$style" --out "$out" --ddp >"$out/stdout.log" 2>&1
  else
    timeout -k 10 90 "$PYTHON" "$HERE/styles.py" --style "$style" --out "$out" >"$out/stdout.log" 2>&1
  fi
  rc=$?
  printf '%s\t%s\t%s\t%s\n' "$style" "$mode" "$rc" "$((SECONDS - t0))" >>"$OUTDIR/summary.tsv"
  tail -n 1 "$out/stdout.log"
  [ $rc -eq 0 ] || tail -n 20 "$out/stdout.log"
}
run healthy_iter_marks ddp
run healthy_no_marks plain
run healthy_item_end plain
run healthy_sync_end ddp
run slow_loader_item_end plain
run slow_loader_sched ddp
run slow_loader_workers plain
run slow_loader_windows plain
run torchrec_load_batch ddp
run item_mid_forward plain
run cuda_graph plain
run launch_bound_tiny plain
run healthy_stack plain
# Styles also recorded under Nsight Systems (exported to SQLite) for the nsys importer:
# NSYS_STYLES lists STYLE[:ddp][@VARIANT] (ddp: under torchrun, one process). VARIANT is how the
# capture is taken, as users do it differently (default: CUDA + NVTX, emit_nvtx in the script,
# a cudaProfilerApi capture range):
#   cuda_only      -t cuda: no NVTX at all (no step marks, no operator names)
#   whole          no capture range: the whole process, warm-up and timed steps included
#   autograd_nvtx  nsys's --pytorch=autograd-nvtx makes the operator ranges, not the script
#   graph_nodes    --cuda-graph-trace=node: each kernel of a CUDA graph, not one graph launch
nsys_run() {  # nsys_run STYLE plain|ddp VARIANT
  local style=$1 mode=$2 variant=$3 name=nsys_$1 rep cmd opts
  [ "$variant" = default ] || name=${name}_$variant
  local out=$OUTDIR/$name
  rep=/tmp/$name
  mkdir -p "$out"
  cmd=("$PYTHON" "$HERE/styles.py" --style "$style" --nsys --out "$out")
  if [ "$mode" = ddp ]; then
    cmd=("$PYTHON" -m torch.distributed.run --standalone --nproc_per_node=1 "$HERE/styles.py"
         --style "$style" --nsys --ddp --out "$out")
  fi
  opts=(-t cuda,nvtx --capture-range=cudaProfilerApi)
  case $variant in
    cuda_only) opts=(-t cuda --capture-range=cudaProfilerApi) ;;
    whole) opts=(-t cuda,nvtx) ;;
    autograd_nvtx) opts+=(--pytorch=autograd-nvtx); cmd+=(--no-emit-nvtx) ;;
    graph_nodes) opts+=(--cuda-graph-trace=node) ;;
  esac
  timeout -k 10 150 "$NSYS" profile "${opts[@]}" --sample=none --cpuctxsw=none \
    --force-overwrite true -o "$rep" "${cmd[@]}" >"$out/stdout.log" 2>&1
  nsys_to_sqlite "$rep" "$out/report.sqlite" "$out/stdout.log"
  printf '%s\t%s\t%s\t%s\n' "$name" "$mode" "$([ -f "$out/report.sqlite.gz" ] && echo 0 || echo 1)" "-" \
    >>"$OUTDIR/summary.tsv"
  tail -n 3 "$out/stdout.log"
}
if [ -n "${NSYS:-}" ] && [ -x "$NSYS" ]; then
  for s in ${NSYS_STYLES:-healthy_iter_marks}; do
    v=default; [[ $s == *@* ]] && v=${s#*@} && s=${s%@*}
    nsys_run "${s%%:*}" "$([[ $s == *:ddp ]] && echo ddp || echo plain)" "$v"
  done
fi
cat "$OUTDIR/summary.tsv"
