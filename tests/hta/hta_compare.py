#!/usr/bin/env python3
"""Runs Holistic Trace Analysis (PyPI holistictraceanalysis) and `commdx trace` on the same traces
and checks commdx's `hta_compat` numbers against HTA's own: idle, compute and non-compute time
(HTA get_temporal_breakdown) and the communication/computation overlap (get_comm_comp_overlap),
per rank, within 0.1 percentage points.

    hta_compare.py COMMDX_BINARY SOURCE_DIR

Traces: every captures/<scenario>/trace_rank*.json.gz and the hand-made multi-step trace in
tests/data/traces. Exit 0 when all agree, 1 otherwise, 77 (skipped) when HTA is not installed.
"""
import glob
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile

TOLERANCE_PCT = 0.1  # both round to 2 decimals; measured: identical

try:
    logging.disable(logging.WARNING)
    from hta.trace_analysis import TraceAnalysis
except Exception as e:  # noqa: BLE001  (any import failure means: not installed here)
    print("SKIP: HTA (pip install holistictraceanalysis) is not importable: %s" % e)
    sys.exit(77)


def trace_sets(src):
    sets = []
    for d in sorted(glob.glob(os.path.join(src, "captures", "*"))):
        files = sorted(glob.glob(os.path.join(d, "trace_rank*.json.gz")))
        if files:
            sets.append((os.path.basename(d), files))
    sets.append(("handmade_2024", [os.path.join(src, "tests/data/traces/kineto_2024_rank0.json")]))
    sets.append(("handmade_skew", [os.path.join(src, "tests/data/traces/skew_rank0.json"),
                                   os.path.join(src, "tests/data/traces/skew_rank1.json")]))
    return sets


def hta_numbers(folder):
    ta = TraceAnalysis(trace_dir=folder)
    tb = ta.get_temporal_breakdown(visualize=False)
    ov = ta.get_comm_comp_overlap(visualize=False)
    out = {}
    for _, row in tb.iterrows():
        out[int(row["rank"])] = {"idle_pct": float(row["idle_time_pctg"]),
                                 "compute_pct": float(row["compute_time_pctg"]),
                                 "non_compute_pct": float(row["non_compute_time_pctg"])}
    for _, row in ov.iterrows():
        v = row["comp_comm_overlap_pctg"]
        out[int(row["rank"])]["comm_comp_overlap_pct"] = float(v) if v == v else 0.0  # NaN: no comm
    return out


def commdx_numbers(binary, folder):
    res = subprocess.run([binary, "trace", folder, "--format", "json"], capture_output=True, text=True)
    if res.returncode not in (0, 1):
        raise RuntimeError("commdx trace failed (%d): %s" % (res.returncode, res.stderr))
    rows = json.loads(res.stdout)["data"]["hta_compat"]
    return {int(r["rank"]): r for r in rows}


def main():
    binary, src = sys.argv[1], sys.argv[2]
    failures = 0
    compared = 0
    for name, files in trace_sets(src):
        with tempfile.TemporaryDirectory() as tmp:
            for f in files:  # HTA reads every file in the folder: only the traces go in
                shutil.copy(f, tmp)
            try:
                want = hta_numbers(tmp)
            except Exception as e:  # noqa: BLE001
                print("%-28s HTA could not read it: %s" % (name, e))
                failures += 1
                continue
            got = commdx_numbers(binary, tmp)
        for rank, w in sorted(want.items()):
            g = got.get(rank)
            if g is None:
                print("%-28s rank %d: missing in commdx's hta_compat" % (name, rank))
                failures += 1
                continue
            for key in ("idle_pct", "compute_pct", "non_compute_pct", "comm_comp_overlap_pct"):
                diff = abs(w[key] - g[key])
                compared += 1
                status = "ok" if diff <= TOLERANCE_PCT else "DIFF"
                if status != "ok":
                    failures += 1
                print("%-28s rank %d %-22s HTA %7.2f commdx %7.2f  %s" % (name, rank, key, w[key],
                                                                          g[key], status))
    print("%d numbers compared, %d differ by more than %.1f points" % (compared, failures,
                                                                      TOLERANCE_PCT))
    return 1 if failures or not compared else 0


if __name__ == "__main__":
    sys.exit(main())
