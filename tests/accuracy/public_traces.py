#!/usr/bin/env python3
"""Sanity of commdx's analysis on public Kineto traces it was not built on (CTest
`public_traces`, label `accuracy`). Each folder of tests/data/public_traces/ (see its README) is
one trace set; `commdx diagnose FOLDER --format json` must pass these checks:

  exit     exit code 0 or 1 (3 is a bad input: allowed only where the known list says why)
  steps    every rank with GPU work has steps found from its trace (not "whole trace"), or the
           report carries a note (input quality / not checked) about steps
  cost     no finding costs more per step than its rank's step (common.costs_over_step)
  dropped  every complete ('X') event category in the file that commdx neither uses nor lists as
           skipped in docs/trace-metrics.md is named in an input-quality note
  ranks    when distributedInfo.world_size says more ranks than the files hold, an input-quality
           note says ranks are missing, and no trace finding is raised at error level (what the
           missing ranks did is not known)
  hta      where HTA's own tests state numbers for the trace (hta_expected.json), `commdx trace`'s
           hta_compat numbers match them within 0.1 percentage points
  cause    where a public source says what slows the trace down (labels.json, with the source),
           the root cause is that finding (`root`) and the findings it rules out are not raised
           (`absent`)

Checks that fail today are listed in public_known.txt as `TRACE:CHECK reason`; the test fails when
one of them passes (remove it then) or when any other check fails.

  public_traces.py COMMDX DATA_DIR [--write-doc docs/accuracy.md]
"""
import argparse
import collections
import glob
import gzip
import json
import os
import re
import sys

import common

# Categories commdx reads (docs/trace-metrics.md "Events kept") or skips as documented there.
USED = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset", "cuda_sync",
        "cuda_runtime", "cuda_driver", "Runtime", "cpu_op", "Operator", "user_annotation",
        "gpu_user_annotation"}
DOCUMENTED_SKIP = {"python_function", "Trace", "overhead"}
HTA_TOLERANCE_PCT = 0.1
_EVENT = re.compile(rb'"ph"\s*:\s*"(\w)"[^{}]*?"cat"\s*:\s*"([^"]*)"'
                    rb'|"cat"\s*:\s*"([^"]*)"[^{}]*?"ph"\s*:\s*"(\w)"')
_WORLD = re.compile(rb'"world_size"\s*:\s*(\d+)')


def raw_facts(files):
    """Complete-event counts per category and the largest world_size, read from the raw text (a
    regex walk: json.load of the 87 MB MTIA trace takes 15 s and 500 MB)."""
    cats, world = collections.Counter(), 0
    for path in files:
        with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
            text = f.read()
        for m in _EVENT.finditer(text):
            ph = m.group(1) or m.group(4)
            if ph == b"X":
                cats[(m.group(2) or m.group(3)).decode()] += 1
        for m in _WORLD.finditer(text[:4096] + text[-65536:]):
            world = max(world, int(m.group(1)))
    return cats, world


def undocumented(cat):
    return not (cat in USED or cat in DOCUMENTED_SKIP or cat.endswith("_runtime")
                or cat.endswith("_driver") or cat.startswith("hip_"))


def notes(report):
    texts = [q.get("id", "") + " " + q.get("message", "") for q in report.get("input_quality", [])]
    return texts, [n.get("what", "") + " " + n.get("how", "") for n in report.get("not_checked", [])]


def check_steps(report):
    ranks = [r for r in report["data"].get("trace_ranks", []) if r.get("gpu_ops")]
    bad = [r for r in ranks if not r.get("steps") or r.get("step_source") == "whole trace"]
    if ranks and not bad:
        return None
    quality, unchecked = notes(report)
    if any("step" in t.lower() for t in quality + unchecked):
        return None
    if not ranks and any(w in t.lower() for t in quality for w in ("gpu", "device")):
        return None  # no GPU work at all: an input-quality note saying so is enough
    if not ranks:
        return "no rank with GPU work, and no note about steps or the missing GPU work"
    return "; ".join(f"rank {r['rank']}: {r.get('steps')} step(s) from {r.get('step_source')}"
                     for r in bad) + ", no note about steps"


def check_dropped(report, cats):
    quality, _ = notes(report)
    problems = [f"{n} '{c}' events dropped without a note" for c, n in sorted(cats.items())
                if undocumented(c) and not any(c in t for t in quality)]
    return "; ".join(problems) or None


def check_ranks(report, world):
    nranks = len(report["data"].get("trace_ranks", []))
    if world <= nranks:
        return None
    quality, _ = notes(report)
    problems = []
    if not any(re.search(r"rank", t) and re.search(r"missing|absent|not present|only|world", t,
                                                   re.I) for t in quality):
        problems.append(f"{nranks} of world_size {world} ranks read, no note about missing ranks")
    errors = [f["id"] for f in report.get("findings", [])
              if f["severity"] == "error" and f.get("source") == "trace"]
    if errors:
        problems.append("error-level trace findings without all ranks: " + ", ".join(errors))
    return "; ".join(problems) or None


def check_hta(commdx, folder, want):
    rc, report, err = common.run_json(commdx, "trace", folder)
    if report is None:
        return f"commdx trace exited {rc}: {err[:200]}"
    got = {str(r["rank"]): r for r in report["data"].get("hta_compat", [])}
    problems = []
    for rank, metrics in want["ranks"].items():
        for key, exp in metrics.items():
            have = got.get(rank, {}).get(key)
            if have is None or abs(have - exp["value"]) > HTA_TOLERANCE_PCT:
                problems.append(f"rank {rank} {key} {have} vs HTA {exp['value']}")
    return "; ".join(problems) or None


def check_cause(report, label):
    root = (report.get("root_cause") or {}).get("id")
    raised = {f["id"] for f in report.get("findings", [])}
    problems = []
    if "root" in label and root != label["root"]:
        problems.append(f"root cause {root}, the source says {label['root']}")
    problems += [f"{fid} raised, the source rules it out" for fid in label.get("absent", [])
                 if fid in raised]
    return "; ".join(problems) or None


def check_trace(commdx, folder, expected, label=None):
    """Runs every check on one trace set; returns (row facts, {check: problem or None})."""
    files = sorted(glob.glob(os.path.join(folder, "*.json*")))
    rc, report, err = common.run_json(commdx, "diagnose", folder)
    results = {"exit": None if rc in (0, 1) else f"exit {rc}: {err[:200]}"}
    if report is None:
        return {"exit": rc}, results
    cats, world = raw_facts(files)
    results["steps"] = check_steps(report)
    checked, over = common.costs_over_step(report)
    results["cost"] = "; ".join(over) or None
    results["dropped"] = check_dropped(report, cats)
    results["ranks"] = check_ranks(report, world)
    if expected:
        results["hta"] = check_hta(commdx, folder, expected)
    if label:
        results["cause"] = check_cause(report, label)
    ranks = report["data"].get("trace_ranks", [])
    facts = {
        "exit": rc,
        "ranks": f"{len(ranks)}" + (f" of {world}" if world > len(ranks) else ""),
        "gpu": ", ".join(sorted({r.get("gpu", "-") for r in ranks})) or "-",
        "steps": ", ".join(f"{r.get('steps')} ({r.get('step_source')})" for r in ranks) or "-",
        "said": common.said(report),
        "findings": ", ".join(
            f"{f['severity']} {f['id']}" + (f" {f['saving_per_step_ns'] / 1e6:.1f} ms"
                                            if f.get("saving_per_step_ns") is not None else "")
            for f in report.get("findings", [])) or "none",
        "notes": ", ".join(q["id"] for q in report.get("input_quality", [])) or "none",
    }
    return facts, results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("commdx")
    ap.add_argument("data")
    ap.add_argument("--write-doc")
    a = ap.parse_args()
    known = common.read_known("public_known.txt")
    hta = json.load(open(os.path.join(a.data, "hta_expected.json")))["traces"]
    labels = json.load(open(os.path.join(a.data, "labels.json")))["traces"]
    folders = sorted(d for d in os.listdir(a.data) if os.path.isdir(os.path.join(a.data, d)))
    if not folders:
        print("no trace folders found", file=sys.stderr)
        return 1
    failures, rows, seen = 0, [], set()
    for name in folders:
        facts, results = check_trace(a.commdx, os.path.join(a.data, name), hta.get(name),
                                     labels.get(name))
        failing = []
        for check, problem in results.items():
            key = f"{name}:{check}"
            seen.add(key)
            if key in known:
                failing.append(f"{check} (known)")
                if problem is None:
                    print(f"{key} passes now but is listed in public_known.txt — remove it")
                    failures += 1
                else:
                    print(f"{key}: known: {problem}")
            elif problem is not None:
                failing.append(check)
                print(f"{key}: FAILED: {problem}")
                failures += 1
        print(f"{name:28} exit {facts.get('exit')} said {facts.get('said', '-'):36} "
              f"checks failing: {', '.join(failing) or 'none'}")
        rows.append((name, facts.get("ranks", "-"), facts.get("gpu", "-"), facts.get("steps", "-"),
                     facts.get("said", "-"), facts.get("findings", "-"), facts.get("notes", "-"),
                     ", ".join(failing) or "none"))
    for key in sorted(set(known) - seen):
        print(f"{key} is listed in public_known.txt but no such check ran — remove it")
        failures += 1
    if a.write_doc:
        write_doc(a.write_doc, rows, known)
    return 1 if failures else 0


def write_doc(path, rows, known):
    text = ("## Public traces\n\n"
            "Generated by `tests/accuracy/public_traces.py build/commdx tests/data/public_traces "
            "--write-doc docs/accuracy.md`: `commdx diagnose` on each folder of "
            "tests/data/public_traces/ (HolisticTraceAnalysis' test traces and two kineto tb_plugin samples; what each is: its "
            "README). Checks (the script's docstring): exit, steps, cost (no finding over its "
            "step), dropped (nothing dropped without a note), ranks (missing ranks noted, no error-level trace finding without them), hta (HTA's stated numbers), cause (the root cause a public source names, labels.json).\n\n"
            + common.table(["trace", "ranks read", "device", "steps (source)", "commdx said",
                            "findings (cost/step)", "input-quality notes", "checks failing"], rows)
            + "\nWhy the known failures fail (public_known.txt):\n\n"
            + "".join(f"* `{k}`: {v}\n" for k, v in sorted(known.items())))
    common.write_doc_section(path, "public_traces", text)


if __name__ == "__main__":
    sys.exit(main())
