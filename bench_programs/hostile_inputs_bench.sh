#!/usr/bin/env bash
# Times `commdx diagnose` on the hostile sizes of issue 16 (made by gen_hostile_inputs.py) and
# prints one line per input: name, bytes, seconds, peak RSS. Numbers: docs/measurements/hostile-inputs.md.
#   bench_programs/hostile_inputs_bench.sh build/commdx [WORKDIR]
set -euo pipefail
commdx=$(realpath "$1")
dir=${2:-$(mktemp -d)}
python3 "$(dirname "$0")/gen_hostile_inputs.py" "$dir" >/dev/null
for f in env_80k.json env_200k.json env_80k_nccl.json comms_40k.log ranks_80k.log trace_pg100k.json \
         trace_pg_used_40k.json trace_pg_used_100k.json; do
  /usr/bin/time -f "$f $(stat -c %s "$dir/$f") bytes %e s %M KB" \
    timeout 300 "$commdx" diagnose "$dir/$f" >/dev/null 2>"$dir/$f.time" || true
  tail -1 "$dir/$f.time"
done
