#!/usr/bin/env bash
# Files, pipes and outputs as a hostile user would hand them over (issue 16):
#   io_case.sh CASE COMMDX SOURCE_DIR
# Each case builds its inputs in a fresh temporary folder from a real capture
# (examples/ddp_healthy), runs commdx under a time limit and checks the exit code, the message and
# that inputs are untouched. Exit 0 = pass, 1 = fail, 77 = cannot run here (skipped).
set -uo pipefail
case_name=$1 commdx=$2 src=$3
ex=$src/examples/ddp_healthy
source "$(dirname "$0")/io_lib.sh"

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
  junk_pipe_refused_early)  # junk piped in is refused from its first bytes, not held whole
    # 200 MB of base64 text: read whole, the RSS would pass 200 MB; refused from its head it stays
    # near the binary's own. Peak RSS, so not under a sanitizer.
    sanitized && { echo "skip: peak RSS under AddressSanitizer says nothing"; exit 77; }
    head -c 150000000 /dev/zero | tr '\0' 'A' | fold -w 100 > junk.txt
    (exec /usr/bin/time -f %M -o rss timeout 60 "$commdx" diagnose - < <(cat junk.txt)) \
      >"$out" 2>"$err"; rc=$?
    [ $rc -eq 3 ] || fail "exit $rc, expected 3"; has "not a format commdx reads"
    [ "$(tail -n 1 rss)" -lt 100000 ] || fail "peak RSS $(tail -n 1 rss) KB: the pipe was read whole"
    # A pipe that is a format is still read whole, and gzip piped in too.
    gzip -c "$ex"/nccl.vm.653.log | timeout 60 "$commdx" logs - >"$out" 2>"$err"; rc=$?
    [ $rc -le 1 ] || fail "gzip pipe: exit $rc"; has "commdx logs" ;;
  compare_junk_early)  # compare judges a file from its start before reading it whole
    sanitized && { echo "skip: peak RSS under AddressSanitizer says nothing"; exit 77; }
    head -c 150000000 /dev/zero | tr '\0' 'A' > junk.json
    run 0,1 diagnose "$ex" --format json -o a.json
    (exec /usr/bin/time -f %M -o rss timeout 60 "$commdx" compare a.json junk.json) \
      >"$out" 2>"$err"; rc=$?
    [ $rc -eq 3 ] || fail "exit $rc, expected 3"; has "junk.json"; has "does not start with a JSON object"
    [ "$(tail -n 1 rss)" -lt 100000 ] || fail "peak RSS $(tail -n 1 rss) KB: the file was read whole"
    "$commdx" topo --from "$src"/examples/system/nvidia-smi-topo-m.txt --save snap.json >/dev/null 2>&1 &&
      { run 0,1 compare a.json snap.json; has "commdx compare"; has "Findings only in"; } ;;
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
  gzip_cut_whole)  # a cut .gz read whole (a log, any pipe): read up to the cut, and said
    gzip -c "$ex"/nccl.vm.653.log > full.log.gz
    head -c $(( $(stat -c %s full.log.gz) * 7 / 10 )) full.log.gz > cut.log.gz
    run 0,1 logs cut.log.gz; has "load.gzip_cut"; has "0xbb4fa72d159634ea"
    cat cut.log.gz | timeout 60 "$commdx" logs - >"$out" 2>"$err"; rc=$?
    [ $rc -le 1 ] || fail "logs - of a cut .gz: exit $rc"; has "load.gzip_cut"
    gzip -c -d < "$ex"/trace_rank0.json.gz | gzip -c > t.json.gz
    head -c $(( $(stat -c %s t.json.gz) / 2 )) t.json.gz > cut_trace.json.gz
    cat cut_trace.json.gz | timeout 60 "$commdx" trace - >"$out" 2>"$err"; rc=$?
    [ $rc -le 1 ] || fail "trace - of a cut .gz: exit $rc"; has "kineto.trace_cut_short" ;;
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
    # (cut inside its header: a trace cut after its first events is read up to the cut)
    job; cp "$src"/tests/badinput/cases/cut_in_header.json job/trace_rank0.json
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
  job_copied_twice)  # a job folder holding two copies of the same logs: each log read once
    job; run 0,1 diagnose job --format json; want=$(json_procs "$out")
    mkdir all && cp -r job all/a && cp -r job all/b && gzip -k all/b/nccl.vm.654.log
    run 0,1 diagnose all
    has "load\.same_file_twice x5: the same text as all/a/"
    has "NCCL reports it as set by the environment \(2 processes\)"
    run 0,1 diagnose all --format json
    [ "$(json_procs "$out")" = "$want" ] || fail "read $(json_procs "$out"), want $want" ;;
  job_copied_while_running)  # an earlier, shorter copy of the same logs: each process once
    job; mkdir all && cp -r job all/final && cp -r job all/early
    for f in all/early/nccl.vm.*.log; do head -n -5 "$f" > t && mv t "$f"; done
    run 0,1 diagnose all
    has "load\\.same_file_twice x4: the start of all/final/nccl\\.vm\\.653\\.log \\(a shorter copy"
    has "NCCL reports it as set by the environment \(2 processes\)"
    grep -q "4 complete" "$out" && fail "a process counted twice"; true ;;
  gzip_bomb)  # 400 MB of one repeated line, 800:1 gzipped, over the limit for a file held whole
    # (a quarter of `ulimit -v` here: 292 MiB): read in windows, one held at a time, not refused
    sanitized && { echo "skip: ulimit -v and AddressSanitizer's shadow memory do not mix"; exit 77; }
    yes "vm:653:653 [0] NCCL INFO comm 0x5d rank 0 nranks 2 cudaDev 0 busId 1000 - Init START" |
      head -c 400000000 | gzip -1 > bomb.log.gz
    (ulimit -v 1200000; exec /usr/bin/time -f %M -o rss "$commdx" diagnose bomb.log.gz) \
      >"$out" 2>"$err"; rc=$?
    [ $rc -le 1 ] || fail "exit $rc"
    has "load\.in_windows x1: 381 MiB of text, over the limit of 292 MiB for a file held whole"
    has "4705882 init started, 0 completed"
    [ "$(tail -1 rss)" -lt 600000 ] || fail "peak RSS $(tail -1 rss) KiB" ;;
  piped_log_over_limit)  # the same 400 MB log piped in, plain and gzip: over the limit, read in
    # windows from its first 64 KiB on (gzip inflated as it comes), where it used to be refused
    sanitized && { echo "skip: ulimit -v and AddressSanitizer's shadow memory do not mix"; exit 77; }
    line="vm:653:653 [0] NCCL INFO comm 0x5d rank 0 nranks 2 cudaDev 0 busId 1000 - Init START"
    for z in cat "gzip -1"; do
      (ulimit -v 1200000; set +o pipefail; yes "$line" | head -c 400000000 | $z |
        /usr/bin/time -f %M -o rss "$commdx" diagnose -) >"$out" 2>"$err"
      rc=$?; [ $rc -le 1 ] || fail "$z: exit $rc"
      has "load\.in_windows x1: 381 MiB of text, over the limit of 292 MiB"; has "4705882 init started"
      [ "$(tail -1 rss)" -lt 500000 ] || fail "$z: peak RSS $(tail -1 rss) KiB"
    done ;;
  big_unclaimed_not_read)  # a 1.5 GB checkpoint in a job folder is never read whole
    job; { printf 'PK\003\004'; head -c 100000 /dev/urandom; } > job/model.pt; truncate -s 1500M job/model.pt
    /usr/bin/time -f %M -o rss "$commdx" diagnose job >"$out" 2>"$err"; rc=$?
    [ $rc -le 1 ] || fail "exit $rc"; has "model\.pt"
    [ "$(tail -1 rss)" -lt 300000 ] || fail "peak RSS $(tail -1 rss) KiB"
    mkdir ptonly; mv job/model.pt ptonly/
    /usr/bin/time -f %M -o rss "$commdx" logs ptonly >"$out" 2>"$err"; has "model\.pt"
    [ "$(tail -1 rss)" -lt 300000 ] || fail "logs: peak RSS $(tail -1 rss) KiB" ;;
  hang_at_end)  # hours of training output, then a real heartbeat-monitor hang: read, not skipped
    python3 - "$src/tests/data/hang/public/heartbeat_arctictraining219.log" <<'PY'
import sys
with open("long.log", "w") as f:
    for i in range(100000):
        f.write(f"[rank0]: step {i} loss {2.0 + i % 7 / 10:.3f} lr 1.0e-04 tokens/s 12345\n")
    f.write(open(sys.argv[1]).read())
PY
    run 1 diagnose long.log; has "hang\.watchdog"; has "job_log" ;;
  gz_location)  # a gzip's error place is line:col in the decompressed text: the plain file's
    plain=$src/tests/badinput/cases/cut_in_header.json
    python3 -c 'import gzip,sys; d=gzip.compress(open(sys.argv[1],"rb").read()); open("hdr.json.gz","wb").write(d[:-12])' "$plain"
    want=$("$commdx" trace "$plain" 2>&1 | sed -n 's/.*cut_in_header\.json:\([0-9]*:[0-9]*\): error.*/\1/p')
    [ -n "$want" ] || fail "no line:col for the plain file"
    for c in diagnose trace; do run 3 $c hdr.json.gz; has "hdr\.json\.gz:$want: error: truncated"; done ;;
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
  compare_out_of_memory)  # out of memory while compare reads a result names that result, exit 4
    sanitized && { echo "skip: ulimit -v and AddressSanitizer's shadow memory do not mix"; exit 77; }
    job; "$commdx" logs job --format json -o a.json >/dev/null 2>&1
    python3 -c '
import sys
s = open("a.json").read(); i = s.index("\n", 10)
with open("big.json", "w") as f:
    f.write(s[:i + 1]); f.write(" \"pad\": \"" + "x" * (200 << 20) + "\",\n"); f.write(s[i + 1:])'
    (ulimit -v 300000; exec timeout 60 "$commdx" compare a.json big.json) >"$out" 2>"$err"; rc=$?
    [ $rc -eq 4 ] || fail "exit $rc, expected 4"
    has "big\.json: error: out of memory while reading it" ;;
  summarize_over_input)  # summarize never writes over an input; last run's summary only with --force
    job; run 0 summarize job -o job --name run1
    [ -f job/run1.commdx-summary.json.gz ] || fail "no summary written"
    cp job/run1.commdx-summary.json.gz keep
    run 2 summarize job -o job --name run1; has "refusing to write the summary over a file among the inputs"
    cmp -s keep job/run1.commdx-summary.json.gz || fail "summary replaced without --force"
    run 0 summarize job -o job --name run1 --force
    cp job/nccl.vm.653.log keep_log
    run 2 summarize job/run1.commdx-summary.json.gz job/nccl.vm.653.log -o job --name run1 --force
    has "choose another -o or --name$"
    cmp -s keep_log job/nccl.vm.653.log || fail "input changed"
    # An input that is the output under another name (a hard link): never replaced either.
    mkdir other && ln job/run1.commdx-summary.json.gz other/in.json.gz && cp other/in.json.gz keep_in
    run 2 summarize other/in.json.gz job/nccl.vm.653.log -o job --name run1 --force
    cmp -s keep_in other/in.json.gz || fail "input changed through a hard link" ;;
  save_over_input)  # --save naming an input (also through a link) or the -o file: refused
    snap=$src/tests/data/snapshot
    cp "$snap"/h200x2-topo.json topo.json; cp "$snap"/h200x2-env.json env.json
    cp topo.json keep_topo; cp env.json keep_env; ln -s topo.json link.json
    run 2 topo topo.json --save topo.json; has "refusing to write it over an input \(topo\.json\)"
    run 2 topo link.json --save topo.json; run 2 topo topo.json --save link.json
    cmp -s keep_topo topo.json || fail "topo input changed"
    run 2 env --from env.json --save env.json; has "choose another --save"
    cmp -s keep_env env.json || fail "env input changed"
    run 2 topo topo.json --save new.json -o new.json; has "--save and -o name the same file"
    [ -e new.json ] && fail "new.json written by a refused command"
    run 2 doctor --no-bench --save d.json -o ./d.json; has "name the same file"
    run 2 topo topo.json --save -; has "both go to standard output"
    run 0,1 topo topo.json --save - -o report.txt; has '"commdx_snapshot"'
    run 0,1 topo topo.json --save saved.json
    grep -q '"commdx_snapshot"' saved.json || fail "snapshot not saved" ;;
  out_dash)  # -o - is standard output, not a file named '-'
    job; run 0,1 logs job -o -; has "^commdx logs"
    [ -e ./- ] && fail "wrote a file named -"; true ;;
  cut_every_step)  # a trace cut at half: every step lost GPU work; no idle made of lost kernels
    python3 -c '
import gzip, sys
raw = gzip.open(sys.argv[1]).read()
open("cut_half.json", "wb").write(raw[: len(raw) // 2])' "$ex/trace_rank0.json.gz"
    run 0 diagnose cut_half.json; has "no complete step is left"
    grep -q "trace\.host_gap\|trace\.launch_bound" "$out" && fail "GPU idle found in lost work"; true ;;
  out_dev_stdout)  # -o /dev/stdout, /dev/fd/1: the descriptor the shell opened, appended to
    job; echo HDR > app.txt
    timeout 60 "$commdx" logs job -o /dev/stdout >> app.txt 2>"$err"; rc=$?
    [ $rc -le 1 ] || fail "exit $rc"
    [ "$(head -1 app.txt)" = HDR ] || fail "-o /dev/stdout >> app.txt replaced app.txt"
    grep -q "^commdx logs" app.txt || fail "no report appended"
    { echo before; timeout 60 "$commdx" logs job -o /dev/fd/1 2>"$err"; echo after; } > both.txt
    [ "$(head -1 both.txt)" = before ] && [ "$(tail -1 both.txt)" = after ] || fail "lost lines"
    n=$(timeout 60 "$commdx" logs job -o /proc/self/fd/1 2>"$err" | wc -c)
    [ "$n" -gt 100 ] || fail "-o /proc/self/fd/1 into a pipe wrote $n bytes"
    run 2 logs job -o /dev/fd/9; has "/dev/fd/9: error: cannot write the output: Bad file descriptor" ;;
  out_read_only)  # a read-only report or snapshot is refused unless --force; --force keeps its mode
    job; echo keep > base.txt; chmod 444 base.txt; cp base.txt ro.json
    run 2 logs job -o base.txt; has "base\.txt: error: refusing to replace a file that is not writable \(mode 0444\); --force"
    [ "$(cat base.txt)" = keep ] || fail "read-only report replaced"
    run 2 topo "$src"/tests/data/snapshot/h200x2-topo.json --save ro.json; has "--force"
    [ "$(cat ro.json)" = keep ] || fail "read-only snapshot replaced"
    run 0,1 logs job -o base.txt --force; grep -q "^commdx logs" base.txt || fail "--force did not write"
    [ "$(stat -c %a base.txt)" = 444 ] || fail "mode not kept: $(stat -c %a base.txt)" ;;
  out_links)  # a symbolic link is followed (a dangling one too), hard links stay linked
    job; mkdir keep; echo old > keep/real.txt; ln -s keep/real.txt link.txt
    run 0,1 logs job -o link.txt; [ -L link.txt ] || fail "link replaced by a file"
    grep -q "^commdx logs" keep/real.txt || fail "link target not written"
    ln -s keep/new.txt dangling.txt; run 0,1 logs job -o dangling.txt
    [ -L dangling.txt ] || fail "dangling link replaced"; grep -q "^commdx logs" keep/new.txt || fail "target not created"
    echo old > a.txt; ln a.txt b.txt; run 0,1 logs job -o a.txt
    cmp -s a.txt b.txt || fail "hard link broken"; [ "$(stat -c %h a.txt)" = 2 ] || fail "link count $(stat -c %h a.txt)"
    ls -a . keep | grep -q commdx- && fail "temporary file left"; true ;;
  out_owner)  # the owner of a rewritten file is kept: by root through fchown, by others in place
    [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null || exit 77
    job; echo old > theirs.txt; chown 65534:65534 theirs.txt; chmod 640 theirs.txt
    run 0,1 logs job -o theirs.txt; [ "$(stat -c %u:%g:%a theirs.txt)" = 65534:65534:640 ] ||
      fail "root changed owner/mode: $(stat -c %u:%g:%a theirs.txt)"
    mkdir shared; chmod 777 shared; echo old > shared/r.txt; chmod 666 shared/r.txt
    chmod 755 "$tmp"; chmod -R a+rX job
    timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups "$commdx" logs job -o shared/r.txt >"$out" 2>"$err"
    rc=$?; [ $rc -le 1 ] || fail "exit $rc"; grep -q "^commdx logs" shared/r.txt || fail "not written"
    [ "$(stat -c %u shared/r.txt)" = 0 ] || fail "owner changed to $(stat -c %u shared/r.txt)"
    ls -a shared | grep -q commdx- && fail "temporary file left"
    # A writable report in a folder the user may not add files to: rewritten in place.
    mkdir locked; echo old > locked/r.txt; chmod 666 locked/r.txt; chmod 755 locked
    timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups "$commdx" logs job -o locked/r.txt >"$out" 2>"$err"
    rc=$?; [ $rc -le 1 ] || fail "locked folder: exit $rc"; grep -q "^commdx logs" locked/r.txt || fail "not written in place" ;;
  out_file_size_limit)  # past `ulimit -f` the write fails with the reason; old file and no temp left
    job; echo old > r.txt
    (ulimit -f 1; exec timeout 60 "$commdx" logs job --verbose -o r.txt) >"$out" 2>"$err"; rc=$?
    [ $rc -eq 4 ] || fail "exit $rc"; has "r\.txt: error: cannot write the output: File too large"
    [ "$(cat r.txt)" = old ] || fail "old report lost"
    ls -a | grep -q commdx- && fail "temporary file left"; true ;;
  stdout_full)  # every command checks its writes to standard output
    [ -w /dev/full ] || exit 77
    : >"$out"
    for args in "diagnose --list" "--version" "--help" "trace --help"; do
      timeout 60 "$commdx" $args >/dev/full 2>"$err"; rc=$?
      [ $rc -eq 4 ] || fail "$args > /dev/full: exit $rc"; has "cannot write to standard output"
    done ;;
  growing_log)  # a log the job is still writing: read as it was when opened, and said so
    for i in $(seq 400); do cat "$ex"/nccl.vm.653.log; done > big.log
    (while :; do cat "$ex"/nccl.vm.653.log >> big.log; sleep 0.002; done) & bg=$!
    # The read takes ~10 ms: on a loaded machine the writer may not run in that window; each try
    # must read the log (never "changed while reading"), one of five must see it grow.
    for try in 1 2 3 4 5; do
      sleep 0.1; run 0,1 logs big.log
      grep -q "load\.growing x1" "$out" && break
    done
    kill $bg; wait $bg 2>/dev/null; bg=""
    has "load\.growing x1: still being written \(it grew while read\): read as it was when opened"
    has "Communicators" ;;
  growing_trace)  # a trace appended to while streamed: the prefix read, noted (not refused)
    python3 - "$ex/trace_rank0.json.gz" <<'PY'
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
events = json.dumps(d["traceEvents"])[1:-1]
d["traceEvents"] = []
with open("big.json", "w") as f:
    f.write(json.dumps(d)[:-1] + ', "traceEvents": [' + ",".join([events] * 40) + "]}")
PY
    (while :; do echo " " >> big.json; sleep 0.005; done) & bg=$!
    run 0,1 trace big.json; kill $bg; wait $bg 2>/dev/null; bg=""
    has "load\.growing x1: still being written"; has "Traces" ;;
  repetitive_log)  # 78 MB of one real warning repeated (255:1 gzipped) is a log, not a bomb
    fx=$src/tests/data/nccl_log_fixtures
    w=$(grep -h "socket.cc:538 NCCL WARN" "$fx"/case29-*.log | head -1)
    { cat "$ex"/nccl.vm.653.log; yes "$w" | head -c 78000000; cat "$fx"/case24-*.log; } | gzip > rep.log.gz
    /usr/bin/time -f %M -o rss "$commdx" logs rep.log.gz >"$out" 2>"$err"; rc=$?
    [ $rc -le 1 ] || fail "exit $rc"; has "comm\.ib_error"
    sanitized || [ "$(tail -1 rss)" -lt 400000 ] || fail "peak RSS $(tail -1 rss) KiB" ;;
  lines_in_the_middle)  # NCCL lines or a watchdog timeout between hours of training output
    python3 - "$ex/nccl.vm.653.log" <<'PY'
import sys
line = "epoch 1 step 100 loss 2.345 lr 0.001 throughput 1234 samples/s\n"
nccl = open(sys.argv[1]).read()
err = ("vm:653:700 [0] transport/net_ib.cc:839 NCCL WARN NET/IB : Got completion from peer "
       "10.0.0.2<1> with error 12, opcode 1, len 0, vendor err 129\n")
dog = ("[rank0]:[E1202 02:25:56.829766856 ProcessGroupNCCL.cpp:689] [Rank 0] Watchdog caught "
       "collective operation timeout: WorkNCCL(SeqNum=8, OpType=ALLREDUCE, NumelIn=1048576, "
       "NumelOut=1048576, Timeout(ms)=5000) ran for 5026 milliseconds before timing out.\n")
pad = line * ((1 << 20) // len(line))
open("mid_nccl.log", "w").write(pad + nccl + err + pad * 4)
open("mid_watchdog.log", "w").write(pad + dog + pad)
open("prints_only.log", "w").write(pad * 3)
PY
    gzip -k mid_nccl.log
    for f in mid_nccl.log mid_nccl.log.gz; do
      run 1 diagnose "$f"; has "comm\.ib_error"
      run 1 logs "$f"; has "comm\.ib_error"
    done
    run 1 diagnose mid_watchdog.log; has "hang\.watchdog_timeout"
    run 3 diagnose prints_only.log; has "prints_only.log: error: not a format commdx reads" ;;
  unlistable_folder)  # a folder that cannot be listed is named with the OS reason
    command -v setpriv >/dev/null || exit 77
    job; chmod 755 "$tmp"; chmod -R a+rX job; chmod 311 job
    timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups "$commdx" diagnose job >"$out" 2>"$err"
    rc=$?; [ $rc -eq 3 ] || fail "exit $rc"; has "job: error: cannot list folder: Permission denied"
    grep -q "none of the" "$out" "$err" && fail "'none of the 0 files'"; true ;;
  long_path)  # a file whose path is over 4096 bytes: named with the OS reason
    python3 -c '
import os
os.mkdir("deep"); os.chdir("deep")
for _ in range(25): os.mkdir("d" * 200); os.chdir("d" * 200)
open("nccl.log", "w").write("x\n")'
    run 3 diagnose deep; has "File name too long"
    grep -q "none of the" "$out" "$err" && fail "'none of the 0 files'"; true ;;
  empty_folder)  # an empty folder is said to be empty
    mkdir empty; run 3 diagnose empty; has "empty: error: no file in it"
    run 3 logs empty; has "no file in it" ;;
  compare_bad_findings)  # a damaged findings list is an error, not "every finding gone"
    job; "$commdx" logs job --format json -o a.json >/dev/null 2>&1
    python3 -c '
import json
d = json.load(open("a.json"))
for name, f in [("object", {"id": "x"}), ("no_id", [{"severity": "error"}]), ("none", None)]:
    b = dict(d)
    if f is None: del b["findings"]
    else: b["findings"] = f
    json.dump(b, open(name + ".json", "w"))'
    run 3 compare a.json object.json; has "object\.json: error: \"findings\" is not an array"
    run 3 compare a.json no_id.json; has "no_id\.json: error: findings\[0\] is not a finding"
    run 3 compare none.json a.json; has "none\.json: error: a .logs. result without \"findings\""
    run 0,1 compare a.json a.json ;;
  *) echo "unknown case $case_name"; exit 1 ;;
esac
echo "ok $case_name"
