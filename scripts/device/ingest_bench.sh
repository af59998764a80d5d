#!/usr/bin/env bash
# Trace-ingest speed on the GPU machine's CPU, a quieter machine than the 2-core VM: grows three
# public traces from tests/data/public_traces to ~500 MB each with
# bench_programs/make_trace_layouts.py (several layouts, and gzip) and times `commdx trace` on
# one pinned core with bench_programs/trace_layouts.sh, for each binary given, alternating.
#   scripts/device/ingest_bench.sh "dir/commdx-before dir/commdx-after"
#   SHAPES=all MB_OTHER=300 scripts/device/ingest_bench.sh ...   also every other public trace
# The binaries' own libraries (simdjson, sqlite, ISA-L) may lie beside them. Writes the table,
# the CPU model and the huge-page setting to $OUT/ingest.md (or stdout without OUT).
set -euo pipefail
cd "$(dirname "$0")/../.."
bins=$1
first=${bins%% *}
export LD_LIBRARY_PATH=$(cd "$(dirname "$first")" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
work=${WORK:-/tmp/commdx-ingest}
mb=${MB:-500}
out=${OUT:+$OUT/ingest.md}
out=${out:-/dev/stdout}
mkdir -p "$work"
pub=tests/data/public_traces
gen=bench_programs/make_trace_layouts.py
python3 "$gen" "$pub"/v100_torchrec_rank1_of_2/test.json.gz "$work/v100" --mb "$mb" \
  --layouts perline,oneline,compact,indent,crlf,sorted >/dev/null
python3 "$gen" "$pub"/v100_torchrec_rank1_of_2/test.json.gz "$work/v100" --mb "$mb" \
  --layouts perline,oneline --gz >/dev/null
python3 "$gen" "$pub"/a100_alexnet_no_steps/*.json.gz "$work/alexnet" --mb "$mb" \
  --layouts perline >/dev/null
# Float epoch µs (Kineto since 2024; Python's json keeps ~16 digits of them).
python3 "$gen" "$pub"/v100_ddp_ns_resolution/*.json.gz "$work/ddp_ns" --mb "$mb" \
  --layouts perline,oneline >/dev/null
# SHAPES=all: every other public trace too, one event per line (other profilers and
# producers: MTIA, ROCm, CUPTI range profiling, torch.compile/Triton, CPU only, 2022 sampled
# ranks), at MB_OTHER (default MB) each.
others=()
if [ "${SHAPES:-}" = all ]; then
  for d in "$pub"/*/; do
    n=$(basename "$d")
    case $n in v100_torchrec_rank1_of_2 | a100_alexnet_no_steps | v100_ddp_ns_resolution) continue ;; esac
    src=$(ls "$d" | grep -m1 '\.json')
    [ -n "$src" ] || continue
    python3 "$gen" "$d/$src" "$work/$n" --mb "${MB_OTHER:-$mb}" --layouts perline >/dev/null
    others+=("$work/$n.perline.json")
  done
fi
# The files just written may still be going to disk: let that finish before timing.
sync
{
  echo "# commdx trace ingest, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; pinned to core ${CPU:-0}."
  echo "Kernel $(uname -r); THP enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled)."
  echo
  for b in $bins; do echo "- $b: $("$b" --version 2>&1 | head -1)"; done
  echo
  RUNS=${RUNS:-5} bench_programs/trace_layouts.sh "$bins" "$work"/v100.*.json* \
    "$work"/alexnet.perline.json "$work"/ddp_ns.*.json ${others[@]+"${others[@]}"}
} >"$out"
