#!/usr/bin/env bash
# Inputs over the limits, broken mid-write, or met with little memory, as a user hands them over:
#   io_limits_case.sh CASE COMMDX SOURCE_DIR
# As io_case.sh: each case builds its inputs in a fresh temporary folder from a real capture
# (examples/ddp_healthy) and checks the exit code, the message and what was read. Exit 0 = pass,
# 1 = fail, 77 = cannot run here (skipped).
set -uo pipefail
case_name=$1 commdx=$2 src=$3
ex=$src/examples/ddp_healthy
source "$(dirname "$0")/io_lib.sh"

case $case_name in
  trace_refused_from_start)  # `trace` of text or junk: refused from its first bytes, never
    # read on (a pipe of 300 MB was held whole, 533 MB RSS; a text file scanned to its end)
    yes "epoch 1 step 100 loss 2.345" | head -c 50000000 > out.log
    run 3 trace out.log; has "out\.log:1:1: error: not JSON"
    if command -v strace >/dev/null; then  # 50 MB in 256 KiB windows: over 190 reads
      strace -f -qq -c -e trace=read,pread64 -o reads timeout 60 "$commdx" trace out.log 2>/dev/null
      n=$(awk '$NF == "total" { print $(NF-1) }' reads)
      [ -n "$n" ] && [ "$n" -lt 100 ] || fail "$n reads of a 50 MB text file: read to its end"
    fi
    sanitized && exit 0  # peak RSS under AddressSanitizer says nothing
    (exec /usr/bin/time -f %M -o rss timeout 60 "$commdx" trace - < <(yes "not a trace" | head -c 300000000)) \
      >"$out" 2>"$err"; rc=$?
    [ $rc -eq 3 ] || fail "pipe: exit $rc, expected 3"; has "-:1:1: error: not JSON .*found 'n'"
    [ "$(tail -n 1 rss)" -lt 100000 ] || fail "peak RSS $(tail -n 1 rss) KB: the pipe was read whole"
    zcat "$ex"/trace_rank0.json.gz | timeout 60 "$commdx" trace - >"$out" 2>"$err"; rc=$?
    [ $rc -le 1 ] || fail "a trace piped in: exit $rc"; has "distributedInfo" ;;
  broken_records)  # a record broken mid-write in the middle of a 5 MB trace (read in parts):
    # skipped up to the next event and counted, the rest read; was exit 3 for a bracket of the
    # wrong kind, missing or extra, and "cut short" at half the file for a string never closed
    python3 - "$ex/trace_rank0.json.gz" <<'PY'
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
s = json.dumps(d)
i = s.index('{"ph":', len(s) // 2)
ev = '{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 5, "dur": 5, '
for name, bad in [("wrong_kind", ev + '"args": {"x": [1, 2}}, '), ("missing", ev + '"args": {"x": [1]}, '),
                  ("extra", ev + '"args": {"x": [1]}}}, '), ("open_string", ev + '"args": {"x": "a}}, '),
                  ("spliced", '{"ph": "X", "na')]:
    open(name + ".json", "w").write(s[:i] + bad + s[i:])
for gz in ("open_string", "spliced"):
    open(gz + ".json.gz", "wb").write(gzip.compress(open(gz + ".json", "rb").read()))
PY
    want=$("$commdx" trace --format json "$ex/trace_rank0.json.gz" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["trace_ranks"][0]["events"])')
    for f in wrong_kind.json missing.json extra.json open_string.json spliced.json open_string.json.gz spliced.json.gz; do
      run 0,1 trace --format json "$f"
      python3 -c 'import json,sys
d = json.load(open(sys.argv[1])); q = {x["id"] for x in d["input_quality"]}
n = d["data"]["trace_ranks"][0]["events"]; want = int(sys.argv[2])
sys.exit(0 if "kineto.bad_event" in q and "kineto.trace_cut_short" not in q and want - 2 <= n <= want + 2
         else f"events {n} of {want}, notes {sorted(q)}")' "$out" "$want" || fail "$f"
    done ;;
  job_copied_over_limit)  # copies of a log over the limit of a file held whole (292 MiB under
    # this `ulimit -v`): the same text gzipped, and a shorter copy made while the job ran, each
    # found by its hash read window by window and not read; two read at once would not fit
    sanitized && { echo "skip: ulimit -v and AddressSanitizer's shadow memory do not mix"; exit 77; }
    job; mkdir -p all/a; cp job/* all/a/
    { cat "$ex"/nccl.vm.653.log
      yes "epoch 1 step 100 loss 2.345 lr 0.001 throughput 1234 samples/s" | head -c 320000000
      cat "$ex"/nccl.vm.653.log; } > all/a/nccl.vm.653.log
    cp -r all/a all/b && gzip -1 all/b/nccl.vm.653.log
    mkdir all/early && head -c 310000000 all/a/nccl.vm.653.log > all/early/nccl.vm.653.log
    (ulimit -v 1200000; exec /usr/bin/time -f %M -o rss timeout 120 "$commdx" diagnose all --format json) \
      >"$out" 2>"$err"; rc=$?
    [ $rc -le 1 ] || fail "exit $rc"
    python3 -c 'import json,sys
d = json.load(open(sys.argv[1])); why = {s["path"]: s["reason"] for s in d["skipped"]}
want = {"all/b/nccl.vm.653.log.gz": "the same text as all/a/nccl.vm.653.log",
        "all/early/nccl.vm.653.log": "the start of all/a/nccl.vm.653.log"}
bad = [(p, why.get(p)) for p, w in want.items() if not why.get(p, "").startswith(w)]
logs = [i["path"] for i in d["inputs"] if "nccl_log" in i["kind"]]
sys.exit(f"not found as copies: {bad}" if bad else
         f"NCCL logs read: {logs}" if logs != ["all/a/nccl.vm.653.log", "all/a/nccl.vm.654.log"] else 0)' "$out" ||
      fail "copies over the limit read"
    [ "$(tail -1 rss)" -lt 700000 ] || fail "peak RSS $(tail -1 rss) KiB" ;;
  console_copied_over_limit)  # the same, of console text over the limit that also holds an
    # nvidia-smi matrix (read by the main thread, not a worker): the copy found by its hash too
    sanitized && { echo "skip: ulimit -v and AddressSanitizer's shadow memory do not mix"; exit 77; }
    mkdir -p all/a
    { cat "$src"/tests/data/smi/h200x2-topo-m.txt "$ex"/nccl.vm.653.log
      yes "epoch 1 step 100 loss 2.345 lr 0.001 throughput 1234 samples/s" | head -c 310000000
      cat "$ex"/nccl.vm.653.log; } > all/a/console.log
    cp -r all/a all/b
    (ulimit -v 1200000; exec timeout 120 "$commdx" diagnose all --format json) >"$out" 2>"$err"; rc=$?
    [ $rc -le 1 ] || fail "exit $rc"
    python3 -c 'import json,sys
d = json.load(open(sys.argv[1])); why = {s["path"]: s["reason"] for s in d["skipped"]}
ok = why.get("all/b/console.log", "").startswith("the same text as all/a/console.log")
read = [i["path"] for i in d["inputs"]]
sys.exit(0 if ok and read == ["all/a/console.log"] else f"read {read}, skipped {why}")' "$out" ||
      fail "copy over the limit read" ;;
  tiny_address_space)  # `ulimit -v` too small for a thread's stack: fewer threads, never
    # "internal error: Resource temporarily unavailable" (exit 70, as at 16-20 MB before)
    sanitized && { echo "skip: ulimit -v and AddressSanitizer's shadow memory do not mix"; exit 77; }
    tried=0
    for v in 16000 20000 24000 28000 32000 40000; do
      (ulimit -v $v; exec "$commdx" --version) >/dev/null 2>&1 || continue  # cannot even start
      tried=$((tried + 1))
      (ulimit -v $v; exec timeout 60 "$commdx" diagnose "$ex") >"$out" 2>"$err"; rc=$?
      [ $rc -le 1 ] || { [ $rc -eq 4 ] && grep -q "out of memory while reading it" "$err"; } ||
        fail "ulimit -v $v: exit $rc"
    done
    [ $tried -gt 0 ] || { echo "skip: commdx does not start under 40 MB here"; exit 77; } ;;
  out_of_memory_names_inputs)  # out of memory past the reading (in the analyses) names the
    # input too: it was a bare "commdx: out of memory", exit 70 (trace_pg_used_100k.json, 71 MB,
    # at ulimit -v 250000 here). Every limit: read, or an out-of-memory error naming the file.
    sanitized && { echo "skip: ulimit -v and AddressSanitizer's shadow memory do not mix"; exit 77; }
    t=${HOSTILE:?}/trace_pg_used_100k.json
    for v in 150000 200000 225000 250000 275000 300000 350000; do
      (ulimit -v $v; exec timeout 120 "$commdx" diagnose "$t") >"$out" 2>"$err"; rc=$?
      [ $rc -le 1 ] && continue
      [ $rc -eq 4 ] && grep -q "trace_pg_used_100k\.json: error: out of memory" "$err" ||
        fail "ulimit -v $v: exit $rc"
    done ;;
  *) echo "unknown case $case_name"; exit 1 ;;
esac
echo "ok $case_name"
