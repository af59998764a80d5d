#!/usr/bin/env bash
# Files, pipes and outputs as a hostile user would hand them over (issue 16):
#   io_case.sh CASE COMMDX SOURCE_DIR
# Each case builds its inputs in a fresh temporary folder from a real capture
# (examples/ddp_healthy), runs commdx under a time limit and checks the exit code, the message and
# that inputs are untouched. Exit 0 = pass, 1 = fail, 77 = cannot run here (skipped).
set -uo pipefail
case_name=$1 commdx=$2 src=$3
ex=$src/examples/ddp_healthy
tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp"
out=$tmp/out.txt err=$tmp/err.txt
fail() { echo "FAIL $case_name: $*"; echo "--- stderr:"; head -c 3000 "$err"; echo "--- stdout:";
         head -c 2000 "$out"; exit 1; }
# run EXPECTED_EXITS CMD...: runs commdx with a 60 s limit; a hang or a signal fails.
run() {
  local exits=$1; shift
  timeout 60 "$commdx" "$@" >"$out" 2>"$err"; rc=$?
  [ $rc -eq 124 ] && fail "hung: $*"
  [ $rc -gt 128 ] && fail "killed by signal $((rc - 128)): $*"
  case ",$exits," in *",$rc,"*) ;; *) fail "exit $rc, expected $exits: $*" ;; esac
}
has() { cat "$out" "$err" | grep -qE -- "$1" || fail "output lacks /$1/"; }
job() { mkdir -p job && cp "$ex"/nccl.vm.*.log "$ex"/env_rank*.json job/; }
json_procs() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["inputs"]), sum(i["bytes"] for i in d["inputs"]))' "$1"; }

case $case_name in
  out_over_input)  # -o naming an input: refused, the input untouched
    job; cp job/nccl.vm.653.log keep
    run 2 diagnose job -o job/nccl.vm.653.log; has "refusing to write the report over an input"
    cmp -s keep job/nccl.vm.653.log || fail "input changed"
    ln -s job/nccl.vm.653.log link; ln job/nccl.vm.654.log hard
    run 2 logs job/nccl.vm.653.log -o link; cmp -s keep job/nccl.vm.653.log || fail "changed via link"
    cp job/nccl.vm.654.log keep2
    run 2 logs job/nccl.vm.654.log -o hard; cmp -s keep2 job/nccl.vm.654.log || fail "changed via hard link"
    "$commdx" logs job --format json -o a.json >/dev/null 2>&1; cp a.json keep3
    run 2 compare a.json a.json -o a.json; cmp -s keep3 a.json || fail "compare overwrote A" ;;
  out_atomic)  # -o replaces a report whole, keeps its mode, leaves no temporary file
    job; echo old > report.txt; chmod 640 report.txt
    run 0,1 logs job -o report.txt; grep -q "^commdx logs" report.txt || fail "not replaced"
    [ "$(stat -c %a report.txt)" = 640 ] || fail "mode not kept: $(stat -c %a report.txt)"
    ls -a | grep -q commdx- && fail "temporary file left"; true ;;
  out_write_error)  # a full disk: non-zero exit with the OS reason, both -o and stdout
    [ -w /dev/full ] || exit 77
    job; run 4 logs job -o /dev/full; has "No space left on device"
    timeout 60 "$commdx" logs job >/dev/full 2>"$err"; rc=$?
    [ $rc -eq 4 ] || fail "stdout to /dev/full: exit $rc"; has "No space left on device"
    run 2 logs job -o "$tmp/no/such/dir/r.txt"; has "No such file or directory" ;;
  out_epipe)  # a reader that closes the pipe early is not an error
    job; "$commdx" logs job --verbose 2>"$err" | head -c 10 >/dev/null
    [ -s "$err" ] && fail "message on a closed pipe"; true ;;
  pipe_whole)  # a pipe is read whole, once: the same bytes as the file
    job; cat job/nccl.vm.653.log job/nccl.vm.653.log job/nccl.vm.653.log > big.log
    [ "$(stat -c %s big.log)" -gt 65536 ] || fail "test input too small"
    run 0,1 diagnose big.log --format json; cp "$out" file.json
    run 0,1 diagnose <(cat big.log) --format json; cp "$out" fd.json
    [ "$(json_procs file.json | cut -d' ' -f2)" = "$(json_procs fd.json | cut -d' ' -f2)" ] ||
      fail "bytes: file $(json_procs file.json), <(...) $(json_procs fd.json)"
    timeout 60 "$commdx" diagnose /dev/stdin --format json < <(cat big.log) >"$out" 2>"$err" || true
    [ "$(json_procs "$out" | cut -d' ' -f2)" = "$(stat -c %s big.log)" ] || fail "/dev/stdin short"
    cat "$ex"/nccl.vm.654.log | timeout 60 "$commdx" logs - >"$out" 2>"$err"; rc=$?
    [ $rc -le 1 ] || fail "logs - exit $rc"; has "commdx logs"
    cat "$ex"/trace_rank0.json.gz | timeout 60 "$commdx" trace - >"$out" 2>"$err"; rc=$?
    [ $rc -le 1 ] || fail "trace - exit $rc" ;;
  fifo_refused)  # a named FIFO never blocks: refused at once; inside a folder skipped
    mkfifo f; for c in diagnose logs trace; do run 3 $c f; has "named pipe"; done
    run 3 topo --from f; has "named pipe"
    job; mkfifo job/f2; run 0,1 diagnose job; has "f2" ;;
  device_refused)  # /dev/zero is never read
    for c in diagnose logs trace; do run 3 $c /dev/zero; has "character device"; done
    run 3 topo --from /dev/urandom; has "character device"
    run 3 compare /dev/zero /dev/zero; has "character device" ;;
  symlink_loop)
    ln -s a b; ln -s b a; run 3 diagnose a; has "symbolic link loop" ;;
  one_bad_among_many)  # a broken trace among good inputs: noted with its place, the rest read
    job; cp "$src"/tests/badinput/cases/truncated.json job/trace_rank0.json
    run 0,1 diagnose job; has "load\.broken_input"; has "trace_rank0\.json:[0-9]+:[0-9]+"
    has "Communicators|comm\."
    mkdir only; cp job/trace_rank0.json only/; run 3 diagnose only; has "truncated JSON" ;;
  unreadable)  # an unreadable file or subfolder is an input-quality note, not silent
    command -v setpriv >/dev/null || exit 77
    job; mkdir job/sub; cp "$ex"/nccl.vm.653.log job/sub/x.log
    chmod 755 "$tmp"; chmod -R a+rwX "$tmp"; chmod 000 job/sub job/nccl.vm.654.log
    timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups "$commdx" diagnose job >"$out" 2>"$err"
    rc=$?; [ $rc -le 1 ] || fail "exit $rc"; has "load\.unreadable"; has "Permission denied" ;;
  own_reports)  # earlier reports in the job folder are recognised and skipped
    job; run 0,1 logs job --format json; before=$(json_procs "$out" | cut -d' ' -f1)
    for f in text md html json; do "$commdx" diagnose job --format $f -o job/report.$f >/dev/null 2>&1; done
    "$commdx" logs job -o job/logs.txt >/dev/null 2>&1
    run 0,1 logs job --format json; after=$(json_procs "$out" | cut -d' ' -f1)
    [ "$before" = "$after" ] || fail "inputs $before before, $after with reports"
    python3 -c 'import json,sys; s={k["path"].split("/")[-1]: k["reason"] for k in json.load(open(sys.argv[1]))["skipped"]}
bad=[f for f in sys.argv[2:] if not s.get(f, "").startswith("a commdx report")]
sys.exit(f"not skipped as reports: {bad}" if bad else 0)' "$out" report.text report.md report.html report.json logs.txt ||
      fail "reports not skipped" ;;
  duplicates)  # the same file twice, a folder and a file in it, a link: read once
    job; run 0,1 logs job --format json; want=$(json_procs "$out")
    ln -s job/nccl.vm.653.log link.log
    run 0,1 logs job job/nccl.vm.653.log link.log job --format json
    [ "$(json_procs "$out")" = "$want" ] || fail "read $(json_procs "$out"), want $want" ;;
  gzip_bomb)  # decompression stops at the limit, memory stays bounded
    yes "vm:653:653 [0] NCCL INFO comm 0x5d rank 0 nranks 2 cudaDev 0 busId 1000 - Init START" |
      head -c 400000000 | gzip -1 > bomb.log.gz
    /usr/bin/time -f %M -o rss "$commdx" diagnose bomb.log.gz >"$out" 2>"$err"; rc=$?
    [ $rc -eq 3 ] || fail "exit $rc"; has "decompression stopped"
    [ "$(tail -1 rss)" -lt 600000 ] || fail "peak RSS $(tail -1 rss) KiB" ;;
  big_unclaimed_not_read)  # a 1.5 GB checkpoint in a job folder is never read whole
    job; { printf 'PK\003\004'; head -c 100000 /dev/urandom; } > job/model.pt; truncate -s 1500M job/model.pt
    /usr/bin/time -f %M -o rss "$commdx" diagnose job >"$out" 2>"$err"; rc=$?
    [ $rc -le 1 ] || fail "exit $rc"; has "model\.pt"
    [ "$(tail -1 rss)" -lt 300000 ] || fail "peak RSS $(tail -1 rss) KiB"
    mkdir ptonly; mv job/model.pt ptonly/
    /usr/bin/time -f %M -o rss "$commdx" logs ptonly >"$out" 2>"$err"; has "model\.pt"
    [ "$(tail -1 rss)" -lt 300000 ] || fail "logs: peak RSS $(tail -1 rss) KiB" ;;
  gz_location)  # a gzip error's place is line:col in the decompressed text
    gz=$src/tests/badinput/cases/truncated.json.gz
    want=$(python3 -c 'import zlib,sys; d=zlib.decompressobj(31).decompress(open(sys.argv[1],"rb").read())
lines=d.split(b"\n"); print(f"{len(lines)}:{len(lines[-1])+1}")' "$gz")
    for c in diagnose trace; do run 3 $c "$gz"; has "truncated\.json\.gz:$want: error: truncated gzip"; done ;;
  shrink_while_mapped)  # a mapped trace cut short while read: exit 3, never SIGBUS
    python3 - "$ex/trace_rank0.json.gz" <<'PY'
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
events = json.dumps(d["traceEvents"])[1:-1]
d["traceEvents"] = []
head = json.dumps(d)[:-1]
with open("big.json", "w") as f:
    f.write(head + ', "traceEvents": [' + ",".join([events] * 40) + "]}")
PY
    ("$commdx" trace big.json >"$out" 2>"$err"; echo $? > rc) & pid=$!
    sleep 0.2; truncate -s 100000 big.json; wait $pid; rc=$(cat rc)
    [ "$rc" -gt 128 ] && fail "killed by signal $((rc - 128))"
    [ "$rc" -le 1 ] && { echo "skip: read before it was cut"; exit 77; }
    [ "$rc" -eq 3 ] || fail "exit $rc"; has "changed while reading" ;;
  *) echo "unknown case $case_name"; exit 1 ;;
esac
echo "ok $case_name"
