#!/usr/bin/env bash
# On the GPU machine: records workloads/nccl_nvtx_probe.py with Nsight Systems, exports it to
# SQLite with the default options and with both payload options (--include-json,
# --include-blobs), and prints which NVTX_EVENTS columns of NCCL's domain hold data; keeps the
# export with payloads (payloads.sqlite.gz). Results under $OUT.
#   NSYS=... QI=... PYTHON=... workloads/nccl_nvtx_probe.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/nccl_nvtx_probe}
mkdir -p "$out"
PYTHON=${PYTHON:-python3}
{
  echo "== nsys version"; "$NSYS" --version
  echo "== profile options naming payload/nvtx"
  "$NSYS" profile --help 2>&1 | grep -i -A3 -E "payload|nvtx-domain|nvtx-capture" | head -60
  echo "== export options"
  "$NSYS" export --help 2>&1 | head -80
} >"$out/nsys_help.txt" 2>&1
NCCL_NVLS_ENABLE=0 "$NSYS" profile -t cuda,nvtx --sample=none --cpuctxsw=none \
  --force-overwrite true -o /tmp/probe "$PYTHON" "$here/nccl_nvtx_probe.py" >"$out/profile.log" 2>&1
LD_LIBRARY_PATH=$here/../devbin/nsys-libs "$QI" -i /tmp/probe.qdstrm >>"$out/profile.log" 2>&1
export LD_LIBRARY_PATH=$here/../devbin/nsys-libs
"$NSYS" export --type sqlite --force-overwrite true -o "$out/default.sqlite" /tmp/probe.nsys-rep \
  >>"$out/profile.log" 2>&1
# Both payload forms in one export: JSON text (--include-json) and the raw bytes (--include-blobs).
"$NSYS" export --type sqlite --force-overwrite true --include-json true --include-blobs true \
  -o "$out/payloads.sqlite" /tmp/probe.nsys-rep >>"$out/profile.log" 2>&1
for db in "$out"/*.sqlite; do
  "$PYTHON" - "$db" <<'PY' >>"$out/columns.txt" 2>&1
import sqlite3, sys
db = sys.argv[1]
c = sqlite3.connect(db)
print("==", db)
cols = [r[1] for r in c.execute("PRAGMA table_info(NVTX_EVENTS)")]
print("columns:", cols)
for dom, n in c.execute("SELECT coalesce(domainId,0), count(*) FROM NVTX_EVENTS GROUP BY 1"):
    print("domain", dom, "rows", n)
for col in cols:
    n = c.execute(f"SELECT count(*) FROM NVTX_EVENTS WHERE coalesce(domainId,0) != 0 AND {col} IS NOT NULL").fetchone()[0]
    print(f"  non-null in library domains: {col} {n}")
tabs = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")]
print("tables:", tabs)
for t in tabs:
    if "PAYLOAD" in t or "NVTX" in t:
        print("--", t, c.execute(f"SELECT count(*) FROM {t}").fetchone()[0])
        for row in c.execute(f"SELECT * FROM {t} LIMIT 12"):
            print("   ", row)
print("-- sample NCCL rows")
for row in c.execute("SELECT e.*, s.value FROM NVTX_EVENTS e LEFT JOIN StringIds s ON s.id = e.textId WHERE coalesce(e.domainId,0) != 0 LIMIT 8"):
    print("   ", row)
PY
done
gzip -6 "$out/payloads.sqlite"
rm -f "$out"/*.sqlite
