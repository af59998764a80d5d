#!/usr/bin/env python3
"""Metamorphic tests on the real captures in examples/ (CTest `metamorphic`, label `accuracy`).

Each variant rewrites a capture the way another user's capture of the same run would look, in a
temporary folder (never committed), and checks that `commdx diagnose` still names the same cause
as on the original (the root cause, else the top finding; rank included where one is named):

  strip_steps   every ProfilerStep#N event removed (CPU and GPU annotations): a plain profile()
  dl_name       the `dataloader` region renamed the way PyTorch's DataLoader names it,
                `enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__` (ddp_data_stall)
  drop_rank1    rank 1's trace file left out: the same cause, or no root cause at all with an
                input-quality note naming rank 1 as missing; never a different confident cause
  one_line      every trace re-serialised with json.dump on one line (plain .json): same findings
  indented      every trace pretty-printed with indent=1 (gzip): same findings
  far_out       rank 0's trace gets a copy of its first kernel at ts=0 and a copy of its first
                NCCL kernel lasting 104 days (a broken clock or writer): same findings
  clock_skew    rank 1's clock 30 ms ahead of rank 0's (its baseTimeNanoseconds, or every ts,
                moved), as on two hosts whose clocks are not synchronised: the same cause
  windows       an earlier profiling window beside each rank's trace (its copy 60 s earlier;
                both named as tensorboard_trace_handler names files), as a repeating profiler
                schedule leaves them: the same findings, the earlier window set aside
  copies        an uncompressed copy beside each trace (trace_rank0.json next to
                trace_rank0.json.gz, as `gzip -k` leaves them): the same findings, each trace
                read once
  epoch_us      absolute epoch microseconds in `ts` with no baseTimeNanoseconds, as Kineto
                wrote before 2023 (to json's float precision): the same cause

A sync added at the end of each iteration is not emulated: a physically consistent edit would
have to re-time every later CPU event and re-schedule every GPU stream (and the other rank's
collectives) around the drained queue. The real captures styles_healthy_item_end,
styles_healthy_sync_end and ddp_cuda_sync cover end-of-iteration syncs instead.

Variants that fail today are listed in metamorphic_known.txt as `CAPTURE:VARIANT reason`; the
test fails when one of them passes (remove it then) or when any other variant fails.

  metamorphic.py COMMDX EXAMPLES_DIR [--write-doc docs/accuracy.md]
"""
import argparse
import glob
import gzip
import json
import os
import shutil
import sys
import tempfile

import common

TWO_RANK = ["ddp_healthy", "ddp_data_stall", "ddp_straggler", "ddp_cuda_sync", "ddp_item_sync",
            "ddp_small_buckets"]
# 1-rank captures: the four with ProfilerStep marks, and two without (layouts only).
ONE_RANK = ["styles_slow_loader_sched", "styles_healthy_item_end", "styles_healthy_sync_end",
            "styles_cuda_graph", "styles_torchrec_load_batch"]
PYTORCH_DATALOADER = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"


def load(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        return json.load(f)


def save_gz(doc, path, **kw):
    with gzip.open(path, "wt", compresslevel=1) as f:
        json.dump(doc, f, **kw)


def copy_capture(src, dst, keep=lambda name: True):
    os.makedirs(dst)
    for p in glob.glob(os.path.join(src, "*")):
        if os.path.isfile(p) and keep(os.path.basename(p)):
            shutil.copy(p, dst)


def rewrite_traces(dst, edit, out_name=lambda n: n, **kw):
    """Loads each trace_rank*.json.gz of dst, applies edit(doc) and writes it back."""
    for p in sorted(glob.glob(os.path.join(dst, "trace_rank*.json.gz"))):
        doc = load(p)
        edit(doc)
        os.remove(p)
        target = os.path.join(dst, out_name(os.path.basename(p)))
        if target.endswith(".gz"):
            save_gz(doc, target, **kw)
        else:
            with open(target, "w") as f:
                json.dump(doc, f, **kw)


def strip_steps(doc):
    doc["traceEvents"] = [e for e in doc["traceEvents"]
                          if not str(e.get("name", "")).startswith("ProfilerStep#")]


def rename_dataloader(doc):
    for e in doc["traceEvents"]:
        if e.get("name") == "dataloader":
            e["name"] = PYTORCH_DATALOADER


def add_far_out(doc):
    events = doc["traceEvents"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    nccl = [e for e in kernels if "nccl" in e.get("name", "").lower()]
    events.append(dict(kernels[0], ts=0))
    if nccl:
        events.append(dict(nccl[0], dur=104 * 86400e6))


def shift_clock(doc, us):
    if "baseTimeNanoseconds" in doc:
        doc["baseTimeNanoseconds"] += int(us * 1000)
        return
    for e in doc["traceEvents"]:
        if isinstance(e.get("ts"), (int, float)):
            e["ts"] += us


def to_epoch_us(doc):
    base = doc.pop("baseTimeNanoseconds", None)
    if base is None:
        return
    for e in doc["traceEvents"]:
        if isinstance(e.get("ts"), (int, float)):
            e["ts"] = e["ts"] + base / 1000


def make_variant(kind, src, dst):
    """Writes variant `kind` of capture src into dst; returns False where it does not apply."""
    traces = glob.glob(os.path.join(src, "trace_rank*.json.gz"))
    if kind == "drop_rank1":
        if len(traces) < 2:
            return False
        copy_capture(src, dst, keep=lambda n: not n.startswith("trace_rank1."))
        return True
    copy_capture(src, dst)
    if kind == "strip_steps":
        rewrite_traces(dst, strip_steps)
    elif kind == "dl_name":
        rewrite_traces(dst, rename_dataloader)
    elif kind == "one_line":
        rewrite_traces(dst, lambda d: None, out_name=lambda n: n[:-3])
    elif kind == "indented":
        rewrite_traces(dst, lambda d: None, indent=1)
    elif kind == "clock_skew":
        rank1 = os.path.join(dst, "trace_rank1.json.gz")
        doc = load(rank1)
        shift_clock(doc, 30_000)
        save_gz(doc, rank1)
    elif kind == "windows":
        # Named as tensorboard_trace_handler names them: "<host>_<pid>.<ms>.pt.trace.json.gz".
        for p in sorted(glob.glob(os.path.join(dst, "trace_rank*.json.gz"))):
            worker = f"node1_{4100 + int(os.path.basename(p)[len('trace_rank'):].split('.')[0])}"
            doc = load(p)
            os.rename(p, os.path.join(dst, f"{worker}.1790857086000.pt.trace.json.gz"))
            shift_clock(doc, -60_000_000)
            save_gz(doc, os.path.join(dst, f"{worker}.1790857026000.pt.trace.json.gz"))
    elif kind == "copies":
        for p in sorted(glob.glob(os.path.join(dst, "trace_rank*.json.gz"))):
            with gzip.open(p, "rb") as src, open(p[:-3], "wb") as out:
                shutil.copyfileobj(src, out)
    elif kind == "epoch_us":
        rewrite_traces(dst, to_epoch_us)
    elif kind == "far_out":
        rank0 = os.path.join(dst, "trace_rank0.json.gz")
        doc = load(rank0)
        add_far_out(doc)
        save_gz(doc, rank0)
    return True


def findings_key(report):
    return [(f["id"], f["severity"], f.get("rank"), f.get("saving_per_step_ns"))
            for f in report.get("findings", [])]


def cause_id(report):
    return common.said(report).split(" (rank")[0]


def judge(kind, base, variant):
    """Returns None when the variant keeps the answer, else what changed."""
    before, after = common.said(base), common.said(variant)
    expected_note = {"windows": "kineto.profiling_windows", "copies": "kineto.same_trace_twice"}
    if kind in expected_note:
        ids = {q.get("id") for q in variant.get("input_quality", [])}
        if expected_note[kind] not in ids or ids & {"kineto.duplicate_rank", "kineto.mixed_jobs"}:
            return f"read as more ranks than the job has: input quality {sorted(ids)}"
    if kind in ("one_line", "indented", "far_out", "windows", "copies"):
        a, b = findings_key(base), findings_key(variant)
        return None if a == b else f"findings changed: {a} -> {b}"
    if before == after:
        return None
    if kind == "drop_rank1" and before.endswith("(rank 1)") and cause_id(base) == cause_id(variant):
        return None  # the same cause, on the rank that is left
    if kind == "drop_rank1" and variant.get("root_cause") is None:
        notes = [q.get("message", "") for q in variant.get("input_quality", [])]
        if any("rank 1" in n or "rank(s) 1" in n or "ranks 1" in n for n in notes):
            return None
        return f"{before} -> {after}, and no input-quality note names rank 1 as missing"
    return f"{before} -> {after}"


def plan(examples):
    """(capture, variant) pairs: every 2-rank capture gets strip_steps, drop_rank1 and
    clock_skew, the 1-rank ones strip_steps where they have ProfilerStep marks; layouts and epoch
    timestamps on two of each kind."""
    pairs = []
    for name in TWO_RANK + ONE_RANK:
        src = os.path.join(examples, name)
        if not glob.glob(os.path.join(src, "trace_rank*.json.gz")):
            continue
        kinds = ["strip_steps"] if has_profiler_steps(src) else []
        if name in TWO_RANK:
            kinds += ["drop_rank1", "clock_skew"]
        if name == "ddp_data_stall":
            kinds.append("dl_name")
        if name in TWO_RANK[:2] + ONE_RANK[:2]:
            kinds += ["one_line", "indented", "epoch_us", "windows", "copies"]
        if name in TWO_RANK + ONE_RANK[:2]:
            kinds.append("far_out")
        pairs += [(name, k) for k in kinds]
    return pairs


def has_profiler_steps(src):
    p = sorted(glob.glob(os.path.join(src, "trace_rank*.json.gz")))[0]
    with gzip.open(p, "rb") as f:
        return b'"ProfilerStep#' in f.read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("commdx")
    ap.add_argument("examples")
    ap.add_argument("--write-doc")
    a = ap.parse_args()
    known = common.read_known("metamorphic_known.txt")
    failures, rows, seen, base = 0, [], set(), {}
    with tempfile.TemporaryDirectory(prefix="commdx_metamorphic_") as tmp:
        for name, kind in plan(a.examples):
            src = os.path.join(a.examples, name)
            if name not in base:
                base[name] = common.run_json(a.commdx, "diagnose", src)[1]
            dst = os.path.join(tmp, f"{name}.{kind}")
            make_variant(kind, src, dst)
            rc, report, err = common.run_json(a.commdx, "diagnose", dst)
            problem = (f"exit {rc}: {err[:200]}" if report is None or rc not in (0, 1)
                       else judge(kind, base[name], report))
            key = f"{name}:{kind}"
            seen.add(key)
            if key in known:
                verdict = "changes (known)"
                if problem is None:
                    print(f"{key} holds now but is listed in metamorphic_known.txt — remove it")
                    failures += 1
            elif problem is not None:
                verdict = "CHANGES"
                failures += 1
            else:
                verdict = "same"
            print(f"{key:40} {common.said(base[name]):34} -> "
                  f"{common.said(report) if report else '-':34} {verdict}"
                  + (f": {problem}" if problem else ""))
            rows.append((name, kind, common.said(base[name]), common.said(report) if report else "-",
                         verdict + (f": {known.get(key) or problem}" if problem else "")))
            shutil.rmtree(dst)
    for key in sorted(set(known) - seen):
        print(f"{key} is listed in metamorphic_known.txt but no such variant ran — remove it")
        failures += 1
    if a.write_doc:
        text = ("## Metamorphic variants of the real captures\n\n"
                "Generated by `tests/accuracy/metamorphic.py build/commdx examples --write-doc "
                "docs/accuracy.md`: each real capture rewritten as another user's capture of the "
                "same run would look (variants: the script's docstring; a sync added at the end of "
                "each iteration is not emulated, the real styles_*_sync_end/_item_end captures "
                "cover it). The cause must not change.\n\n"
                + common.table(["capture", "variant", "commdx on the original",
                                "commdx on the variant", "verdict"], rows))
        common.write_doc_section(a.write_doc, "metamorphic", text)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
