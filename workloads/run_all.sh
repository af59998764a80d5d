#!/usr/bin/env bash
# Run every commdx workload scenario (healthy baselines + one injected cause each), then capture
# the machine's system facts, then pack everything into OUTDIR.tar.gz.
#
#   bash workloads/run_all.sh OUTDIR
#
# Knobs (environment): PYTHON (python3), NPROC (2), SCENARIO_TIMEOUT (60 s each),
# TOTAL_BUDGET_S (450: no scenario is started after that many seconds), EXTRA_ARGS (passed to
# every workload, e.g. "--tiny" for a CPU smoke test), ONLY (space-separated scenario names),
# SKIP_SYSTEM (non-empty: no system facts).
# Each scenario runs under `timeout`; a failure is recorded in OUTDIR/summary.tsv and the run goes
# on with the next one.

set -u
OUTDIR=${1:?usage: run_all.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
NPROC=${NPROC:-2}
SCENARIO_TIMEOUT=${SCENARIO_TIMEOUT:-60}
TOTAL_BUDGET_S=${TOTAL_BUDGET_S:-450}
EXTRA_ARGS=${EXTRA_ARGS:-}
ONLY=${ONLY:-}

# Mandatory on the shared GPU machines: NVLink multicast stays off in every process.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1

mkdir -p "$OUTDIR/system"
OUTDIR=$(cd "$OUTDIR" && pwd)
SUMMARY=$OUTDIR/summary.tsv
printf 'scenario\tworkload\tcause\trc\tseconds\tenv\n' >"$SUMMARY"
# The environment as the runner found it, before anything below is set per scenario.
env | grep -E '^(NCCL|CUDA|TORCH|OMP|NVSHMEM|PYTORCH)' | sort >"$OUTDIR/system/env-at-start.txt"
T_START=$SECONDS

# run NAME SCRIPT CAUSE "EXTRA ARGS" [VAR=VALUE ...]
run() {
  local name=$1 script=$2 cause=$3 extra=$4
  shift 4
  if [[ -n $ONLY && " $ONLY " != *" $name "* ]]; then return 0; fi
  local elapsed=$((SECONDS - T_START))
  if ((elapsed > TOTAL_BUDGET_S)); then
    echo "=== $name: SKIPPED (budget: ${elapsed}s > ${TOTAL_BUDGET_S}s)"
    printf '%s\t%s\t%s\tskipped\t0\t%s\n' "$name" "$script" "$cause" "$*" >>"$SUMMARY"
    return 0
  fi
  local out=$OUTDIR/$name
  mkdir -p "$out"
  echo "=== $name: $script --cause $cause $extra $* (t=${elapsed}s)"
  local t0=$SECONDS
  # shellcheck disable=SC2086
  env "$@" \
    NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,ENV,NET,TUNING \
    NCCL_DEBUG_FILE="$out/nccl.%h.%p.log" \
    timeout -k 10 "$SCENARIO_TIMEOUT" \
    "$PYTHON" -m torch.distributed.run --standalone --nproc_per_node="$NPROC" \
    "$HERE/$script" --scenario "$name" --cause "$cause" --out "$out" $extra $EXTRA_ARGS \
    >"$out/stdout.log" 2>&1
  local rc=$?
  local dt=$((SECONDS - t0))
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$script" "$cause" "$rc" "$dt" "$*" >>"$SUMMARY"
  grep -h 'median step ms' "$out/stdout.log" | tail -1
  if ((rc != 0)); then
    echo "--- $name FAILED rc=$rc after ${dt}s; last lines:"
    tail -n 15 "$out/stdout.log"
  else
    echo "--- $name ok in ${dt}s"
  fi
}

# Healthy baselines, one per communication pattern.
run ddp_healthy            ddp.py      none            ""
run fsdp_healthy           fsdp.py     none            ""
run pipeline_healthy       pipeline.py none            ""
run alltoall_healthy       alltoall.py none            ""
# NCCL environment causes (DDP).
run ddp_p2p_disable        ddp.py      p2p_disable     ""  NCCL_P2P_DISABLE=1
run ddp_socket             ddp.py      socket          ""  NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1
run ddp_one_channel        ddp.py      one_channel     ""  NCCL_MAX_NCHANNELS=1
# Training-code causes (DDP).
run ddp_small_buckets      ddp.py      small_buckets   ""
run ddp_item_sync          ddp.py      item_sync       ""
run ddp_cuda_sync          ddp.py      cuda_sync       ""
run ddp_no_overlap         ddp.py      no_overlap      ""
run ddp_straggler          ddp.py      straggler       ""
run ddp_data_stall         ddp.py      data_stall      ""
run fsdp_max_connections_1 fsdp.py     max_connections_1 "" CUDA_DEVICE_MAX_CONNECTIONS=1
run ddp_accum_healthy      ddp.py      none            "--accum 4"
run ddp_accum_no_nosync    ddp.py      accum_no_nosync "--accum 4"
run ddp_find_unused        ddp.py      find_unused     ""
run ddp_algo_tree          ddp.py      algo_tree       ""  NCCL_ALGO=Tree
run ddp_proto_simple       ddp.py      proto_simple    ""  NCCL_PROTO=Simple
run ddp_omp_256            ddp.py      omp_256         ""  OMP_NUM_THREADS=256
run ddp_algo_tree_allreduce ddp.py     algo_tree_allreduce "" NCCL_ALGO=allreduce:tree
# Healthy again with 8x the batch: GPU-bound even under the profiler (at --batch 8 the profiled
# steps are CPU-bound: profiler overhead), a cleaner baseline for the trace analyses.
run ddp_healthy_b64        ddp.py      none            "--batch 64"

echo "=== scenarios done in $((SECONDS - T_START))s; capturing system facts"
if [[ -n ${SKIP_SYSTEM:-} ]]; then
  tar -czf "$OUTDIR.tar.gz" -C "$(dirname "$OUTDIR")" "$(basename "$OUTDIR")"
  cat "$SUMMARY"
  exit 0
fi

# ---- system facts --------------------------------------------------------------------------------
S=$OUTDIR/system
cap() { # cap FILE CMD...: run CMD, keep stdout+stderr and the exit code
  local f=$S/$1
  shift
  { echo "\$ $*"; timeout 30 "$@" 2>&1; echo "[exit $?]"; } >"$f"
}
cap_sh() { # cap_sh FILE 'shell text'
  local f=$S/$1
  { echo "\$ $2"; timeout 30 bash -c "$2" 2>&1; echo "[exit $?]"; } >"$f"
}
cap nvidia-smi-topo-m.txt nvidia-smi topo -m
cap nvidia-smi-nvlink-s.txt nvidia-smi nvlink -s
for m in r w n a; do cap "nvidia-smi-topo-p2p-$m.txt" nvidia-smi topo -p2p "$m"; done
cap nvidia-smi-q.txt nvidia-smi -q
cap nvidia-smi-version.txt nvidia-smi --version
cap nvidia-smi.txt nvidia-smi
cap_sh ls-infiniband-net.txt 'ls -l /sys/class/infiniband /sys/class/net'
cap_sh net-speed.txt 'for f in /sys/class/net/*/speed; do echo "$f: $(cat $f 2>&1)"; done'
cap_sh lspci-tv.txt 'if command -v lspci >/dev/null; then lspci -tv; else echo "lspci: not installed"; fi'
cap_sh gpu-pci-sysfs.txt '
for b in $(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader); do
  b=$(echo "$b" | tr "A-F" "a-f"); b=${b: -12}
  d=$(readlink -f /sys/bus/pci/devices/$b)
  echo "## GPU $b -> $d"
  # the device and every bridge above it
  p=$d
  while [ -n "$p" ] && [ "$p" != "/sys/devices" ] && [ "$p" != "/" ]; do
    if [ -e "$p/current_link_speed" ] || [ -e "$p/numa_node" ]; then
      echo "# $p"
      for a in vendor device class current_link_speed max_link_speed current_link_width max_link_width numa_node local_cpulist; do
        [ -e "$p/$a" ] && echo "$a: $(cat $p/$a 2>&1)"
      done
    fi
    p=$(dirname "$p")
  done
done'
cap_sh shm-ulimit-cpu.txt 'df -h /dev/shm; echo "ulimit -l: $(ulimit -l)"; echo "nproc: $(nproc)"; grep -E "Cpus_allowed_list|Mems_allowed_list" /proc/self/status; lscpu 2>/dev/null | head -30; free -g'
cap_sh ldconfig-nccl-nvml.txt "ldconfig -p | grep -E 'nccl|nvidia-ml'"
cap_sh torch-nccl.txt "$PYTHON - <<'EOF'
import glob, os, torch
print('torch', torch.__version__, 'cuda', torch.version.cuda)
print('nccl version (torch.cuda.nccl.version):', torch.cuda.nccl.version() if torch.cuda.is_available() else None)
try:
    import nvidia.nccl
    for p in nvidia.nccl.__path__:
        print('nvidia.nccl package:', p)
        for f in sorted(glob.glob(os.path.join(p, 'lib', '*'))):
            print('  ', f, os.path.getsize(f))
except Exception as e:
    print('nvidia.nccl not importable:', e)
print('torch lib dir:', os.path.join(os.path.dirname(torch.__file__), 'lib'))
print('cuda devices:', torch.cuda.device_count())
for i in range(torch.cuda.device_count()):
    print(i, torch.cuda.get_device_name(i))
EOF"
cap_sh env-grep.txt "env | grep -E 'NCCL|CUDA|TORCH' | sort"
cap_sh uname-os.txt 'uname -a; cat /etc/os-release; ldd --version | head -1; nvcc --version 2>&1 | tail -2; date -u'

echo "=== all done in $((SECONDS - T_START))s"
cp "$SUMMARY" "$S/summary.tsv" 2>/dev/null
# Pack (traces are gzipped already; the NCCL logs and JSON compress well).
tar -czf "$OUTDIR.tar.gz" -C "$(dirname "$OUTDIR")" "$(basename "$OUTDIR")"
ls -l "$OUTDIR.tar.gz"
cat "$SUMMARY"
