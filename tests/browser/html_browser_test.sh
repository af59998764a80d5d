#!/usr/bin/env bash
# Renders an HTML report in a real headless browser (Debian's chromium): the page loads, the
# findings and charts are in the DOM, a screenshot is produced, and hostile strings from the input
# (<script>, onerror=) stay inert. Exit 77 (skipped) when no chromium is installed.
set -euo pipefail
commdx=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then echo "SKIP: chromium not installed"; exit 77; fi

"$commdx" logs "$src/tests/browser/hostile-nccl.log" --format html -o "$work/report.html" || [ $? -eq 1 ]
flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run
       --user-data-dir="$work/profile" --virtual-time-budget=2000)
timeout 60 "$browser" "${flags[@]}" --dump-dom "file://$work/report.html" > "$work/dom.html" 2>/dev/null
timeout 60 "$browser" "${flags[@]}" --window-size=1200,900 --screenshot="$work/shot.png" \
  "file://$work/report.html" >/dev/null 2>&1

fail() { echo "FAIL: $*"; exit 1; }
grep -q '<title>commdx logs</title>' "$work/dom.html" || fail "title changed or page did not load"
grep -q 'pwned' "$work/dom.html" && ! grep -q '&lt;script&gt;document.title=.pwned' "$work/dom.html" \
  && fail "hostile string not escaped"
grep -q '<script' "$work/dom.html" && fail "a <script> element exists in the DOM"
grep -q '<img' "$work/dom.html" && fail "an <img> element exists in the DOM"
grep -q 'class="finding ' "$work/dom.html" || fail "no finding in the DOM"
grep -q 'id="findings"' "$work/dom.html" || fail "no findings section"
[ -s "$work/shot.png" ] || fail "no screenshot"
size=$(stat -c %s "$work/shot.png")
[ "$size" -gt 5000 ] || fail "screenshot suspiciously small ($size bytes)"
if [ -n "${COMMDX_KEEP_SCREENSHOT:-}" ]; then cp "$work/shot.png" "$COMMDX_KEEP_SCREENSHOT"; fi
echo "OK: DOM has findings, hostile strings inert, screenshot $size bytes"
