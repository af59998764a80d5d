#!/usr/bin/env python3
"""Diagnosis accuracy on the bundled examples (CTest label `accuracy`).

Every folder under examples/ that holds a meta.json (written by workloads/common.py) is one real
2xH200 run with one injected cause. `commdx diagnose FOLDER --format json` must name that cause as
the root cause or as the top finding, with the right rank where a rank is involved; healthy runs
must raise nothing at error level.

Scenarios commdx is known to get wrong today are listed in tests/accuracy/known_wrong.txt with the
reason; they are reported, not hidden, and the test fails if one of them starts passing (so the
list shrinks) or if any other scenario is wrong.

Every scenario is also checked for a finding that costs more per step than the step itself (the
step of the finding's rank from the report's trace step breakdown; for runs whose trace was not
committed, the measured median step in meta.json). Known cases are listed in known_wrong.txt as
`SCENARIO:cost reason`, with the same ratchet.

  check_accuracy.py COMMDX EXAMPLES_DIR [--write-doc docs/accuracy.md]
"""
import argparse
import json
import os
import subprocess
import sys

import common


def diagnose(commdx, folder):
    p = subprocess.run([commdx, "diagnose", folder, "--format", "json"], capture_output=True,
                       text=True, timeout=300)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"commdx exited {p.returncode} on {folder}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def judge(meta, report):
    """Returns (right, what_commdx_said)."""
    findings = report.get("findings", [])
    root = report.get("root_cause")
    said = root["id"] if root else (findings[0]["id"] if findings else "nothing")
    top = findings[0] if findings else None
    if top and top.get("rank") is not None:
        said_rank = top["rank"]
    else:
        said_rank = None
    said_text = said + (f" (rank {said_rank})" if said_rank is not None else "")
    expected = meta.get("expected_finding")
    if expected is None:
        errors = [f["id"] for f in findings if f["severity"] == "error"]
        return (not errors), (said_text if not errors else "error: " + ", ".join(errors))
    candidates = [f for f in findings[:1] if f["id"] == expected]
    if root and root["id"] == expected:
        candidates += [f for f in findings if f["id"] == expected][:1]
    if not candidates:
        return False, said_text
    want_rank = meta.get("expected_rank")
    if want_rank is None:
        return True, said_text
    ok = any(f.get("rank") == want_rank for f in candidates)
    return ok, said_text + ("" if ok else f" — wrong rank, expected {want_rank}")


def step_ms(meta):
    vals = [m for m in (meta.get("median_step_ms_per_rank") or []) if m is not None]
    return max(vals) if vals else None


def cost_check(meta, report):
    """(checked, problems): findings costing more per step than the step (common.costs_over_step);
    without trace step times, the measured median step of meta.json is the step."""
    checked, problems = common.costs_over_step(report)
    if checked:
        return checked, problems
    step = step_ms(meta)
    if step is None:
        return False, []
    problems = [f"{f['id']} costs {f['saving_per_step_ns'] / 1e6:.1f} ms/step, step {step:.1f} ms"
                for f in report.get("findings", [])
                if f.get("saving_per_step_ns") is not None and f["saving_per_step_ns"] / 1e6 > step * 1.001]
    return True, problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("commdx")
    ap.add_argument("examples")
    ap.add_argument("--write-doc")
    ap.add_argument("--skip-profiler", action="append", default=[],
                    help="leave out examples recorded with this profiler (e.g. nsys, for a "
                         "commdx built without SQLite)")
    a = ap.parse_args()
    known = common.read_known("known_wrong.txt")
    # Labels written before commdx had a finding that names the injected cause more exactly:
    # `SCENARIO FINDING_ID why`; the meta.json files stay as the workload wrote them.
    relabels = {k: v.partition(" ") for k, v in common.read_known("relabels.txt").items()}
    rows, metas = [], {}
    for name in sorted(os.listdir(a.examples)):
        folder = os.path.join(a.examples, name)
        mp = os.path.join(folder, "meta.json")
        if os.path.isfile(mp):
            meta = json.load(open(mp))
            if (meta.get("recorded_with") or {}).get("profiler") in a.skip_profiler:
                print(f"{name}: left out (recorded with {meta['recorded_with']['profiler']})")
                continue
            if name in relabels:
                meta["expected_finding"] = relabels[name][0]
                meta["injected"] = (meta.get("injected") or "") + " [relabelled: " + \
                    relabels[name][2] + "]"
            metas[name] = meta
    if not metas:
        print("no examples with meta.json found", file=sys.stderr)
        return 1
    # The healthy run of the same workload on the same setup (two ranks on one GPU is another).
    def setup(m):
        return (m.get("workload"), bool(m.get("two_ranks_one_gpu")))
    baseline = {setup(m): step_ms(m) for m in metas.values()
                if m.get("cause") == "none" and step_ms(m)}
    failures = 0
    cost_checked = 0
    for name, meta in metas.items():
        report = diagnose(a.commdx, os.path.join(a.examples, name))
        right, said = judge(meta, report)
        checked, over = cost_check(meta, report)
        cost_checked += checked
        if name + ":cost" in known:
            if not over:
                print(f"{name}: no finding costs more than its step now, but {name}:cost is listed "
                      "in known_wrong.txt — remove it from the list")
                failures += 1
            else:
                print(f"{name}: known over-step cost: {'; '.join(over)}")
        elif over:
            print(f"{name}: a finding costs more than its step: {'; '.join(over)}")
            failures += 1
        ms = step_ms(meta)
        base = baseline.get(setup(meta))
        cost = f"{ms - base:+.1f} ms ({(ms - base) / base * 100:+.0f}%)" if ms and base else "-"
        expected = meta.get("expected_finding") or "nothing at error level"
        if meta.get("expected_rank") is not None:
            expected += f" (rank {meta['expected_rank']})"
        verdict = "right" if right else "wrong"
        if name in known:
            if right:
                print(f"{name}: now RIGHT but listed in known_wrong.txt — remove it from the list")
                failures += 1
            verdict = "wrong (known: " + known[name] + ")"
        elif not right:
            failures += 1
        print(f"{name:32} expected {expected:40} commdx said {said:45} {verdict}")
        rows.append((name, meta.get("injected", ""), f"{ms:.1f}" if ms else "-", cost, expected,
                     said, verdict))
    print(f"cost per step <= step time checked on {cost_checked} of {len(metas)} scenarios")
    if a.write_doc:
        right = sum(1 for r in rows if r[-1] == "right")
        text = ("# Diagnosis accuracy on real runs\n\n"
                "Generated by `tests/accuracy/check_accuracy.py build/commdx examples "
                "--write-doc docs/accuracy.md` from the bundled examples (real 2×H200 runs, "
                "see docs/measurements/workloads.md). Step time: median over the timed steps, "
                "slowest rank; cost against the healthy run of the same workload and setup.\n\n"
                + common.table(["scenario", "injected", "step (ms)", "cost vs healthy", "expected",
                                "commdx said", "verdict"], rows)
                + f"\n{right} of {len(rows)} right. No finding costs more per step than the step "
                f"(checked on {cost_checked} of {len(rows)}).\n")
        common.write_doc_section(a.write_doc, "examples", text)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
