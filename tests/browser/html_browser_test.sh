#!/usr/bin/env bash
# Renders HTML reports in a real headless browser (Debian's chromium): the page loads, the
# findings and charts are in the DOM, a screenshot is produced, and hostile strings from the input
# (<script>, onerror=) stay inert. Three reports:
#   logs      an NCCL log with <script> and <img onerror> in host names and a warning
#   diagnose  a real 2xH200 capture (examples/ddp_straggler: traces, NCCL logs, environment):
#             step timeline lanes per rank, size histogram bars, bandwidth against the link
#   diagnose  two traces with <script> in every kernel/operator name and <img onerror> in the
#             process group description (made from tests/data/traces by make_hostile_traces.py)
# Exit 77 (skipped) when no chromium is installed. COMMDX_KEEP_SCREENSHOT=FILE.png keeps the logs
# screenshot there and the others beside it (FILE-diagnose.png, FILE-hostile-trace.png).
set -euo pipefail
commdx=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then echo "SKIP: chromium not installed"; exit 77; fi
check="python3 $src/tests/browser/check_dom.py"

flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run
       --user-data-dir="$work/profile" --virtual-time-budget=2000)
fail() { echo "FAIL: $*"; exit 1; }

# render NAME HEIGHT: NAME.html -> NAME.dom.html and NAME.png (1200 px wide)
render() {
  timeout 60 "$browser" "${flags[@]}" --dump-dom "file://$work/$1.html" > "$work/$1.dom.html" 2>/dev/null
  timeout 60 "$browser" "${flags[@]}" --window-size=1200,"$2" --screenshot="$work/$1.png" \
    "file://$work/$1.html" >/dev/null 2>&1
  [ -s "$work/$1.png" ] || fail "$1: no screenshot"
  local size
  size=$(stat -c %s "$work/$1.png")
  [ "$size" -gt 5000 ] || fail "$1: screenshot suspiciously small ($size bytes)"
  echo "$1: screenshot $size bytes"
}

# inert NAME TITLE: the page loaded with its own title and nothing from the input became markup.
inert() {
  grep -q "<title>$2</title>" "$work/$1.dom.html" || fail "$1: title changed or page did not load"
  $check "$work/$1.dom.html" safe || fail "$1: active content in the DOM"
  grep -q 'class="finding ' "$work/$1.dom.html" || fail "$1: no finding in the DOM"
  grep -q 'id="findings"' "$work/$1.dom.html" || fail "$1: no findings section"
}

# 1. NCCL log with hostile host names and warning text.
"$commdx" logs "$src/tests/browser/hostile-nccl.log" --format html -o "$work/logs.html" || [ $? -eq 1 ]
render logs 900
inert logs "commdx logs"
grep -q 'pwned' "$work/logs.dom.html" && ! grep -q '&lt;script&gt;document.title=.pwned' "$work/logs.dom.html" \
  && fail "logs: hostile string not escaped"
$check "$work/logs.dom.html" text "evil<script>document.title='pwned'</script>" \
  || fail "logs: the hostile host name is not shown as text"

# 2. A real capture: the charts are drawn for both ranks.
example="$src/examples/ddp_straggler"
if [ -e "$example/trace_rank0.json.gz" ]; then
  "$commdx" diagnose "$example" --format html -o "$work/diagnose.html" || [ $? -eq 1 ]
  render diagnose 2400
  inert diagnose "commdx diagnose"
  grep -q 'id="root-cause"' "$work/diagnose.dom.html" || fail "diagnose: no root cause section"
  $check "$work/diagnose.dom.html" charts 2 || fail "diagnose: charts missing from the DOM"
else
  echo "note: $example has no traces; the chart check did not run"
fi

# 3. Hostile strings in kernel names and a process group description.
python3 "$src/tests/browser/make_hostile_traces.py" "$src" "$work"
"$commdx" diagnose "$work/hostile_rank0.json" "$work/hostile_rank1.json" --format html \
  -o "$work/hostile-trace.html" || [ $? -eq 1 ]
render hostile-trace 1600
inert hostile-trace "commdx diagnose"
# (one GPU per trace and two ranks: the link is unknown, so there is no expected line)
$check "$work/hostile-trace.dom.html" charts 2 any || fail "hostile-trace: charts missing"
$check "$work/hostile-trace.dom.html" text "elementwise_kernel<128, 2>(int)<script>document.title='pwned'</script>" \
  || fail "hostile-trace: the hostile kernel name is not shown as text"
$check "$work/hostile-trace.dom.html" text "pg<img src=x onerror=\"document.title='pwned'\">" \
  || fail "hostile-trace: the hostile group description is not shown as text"

if [ -n "${COMMDX_KEEP_SCREENSHOT:-}" ]; then
  cp "$work/logs.png" "$COMMDX_KEEP_SCREENSHOT"
  for n in diagnose hostile-trace; do
    [ -e "$work/$n.png" ] && cp "$work/$n.png" "${COMMDX_KEEP_SCREENSHOT%.png}-$n.png"
  done
fi
echo "OK: findings and charts in the DOM, hostile strings inert, screenshots made"
