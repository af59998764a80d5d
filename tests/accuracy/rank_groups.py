#!/usr/bin/env python3
"""One finding per cause on a many-rank job (CTest label accuracy).

Builds a 256-rank job from the real 2-rank ddp_data_stall capture (bench_programs/make_rank_job.py:
rank r is source rank r % 2 with its rank facts rewritten, so the 128 odd ranks stall on data) in
a temporary folder and checks `commdx diagnose --format json`: every finding id appears once, the
data stall names all 128 stalling ranks in per_rank (worst first) and in its title, the root cause
is the data stall, and no saving is larger than its step.

  rank_groups.py COMMDX REPO_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter

N = 256


def main():
    commdx, repo = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        job = os.path.join(tmp, "job")
        subprocess.run([sys.executable, os.path.join(repo, "bench_programs", "make_rank_job.py"),
                        os.path.join(repo, "examples", "ddp_data_stall"), str(N), job],
                       check=True, capture_output=True)
        p = subprocess.run([commdx, "diagnose", job, "--format", "json"], capture_output=True,
                           text=True, timeout=600)
        if p.returncode not in (0, 1):
            sys.exit(f"commdx exited {p.returncode}: {p.stderr.strip()}")
        report = json.loads(p.stdout)
    problems = []
    ids = Counter(f["id"] for f in report["findings"])
    problems += [f"{i} raised {n} times" for i, n in ids.items() if n > 1]
    stall = [f for f in report["findings"] if f["id"] == "trace.data_stall"]
    if not stall:
        problems.append("no trace.data_stall")
    else:
        s = stall[0]
        ranks = sorted(r["rank"] for r in s.get("per_rank", []))
        if ranks != list(range(1, N, 2)):
            problems.append(f"data_stall per_rank names {len(ranks)} ranks, expected the "
                            f"{N // 2} odd ranks")
        savings = [r["saving_per_step_ns"] for r in s.get("per_rank", [])]
        if savings != sorted(savings, reverse=True):
            problems.append("per_rank is not worst first")
        if f"({N // 2} ranks:" not in s["title"]:
            problems.append(f"title does not count the ranks: {s['title']}")
    root = report.get("root_cause") or {}
    if root.get("id") != "trace.data_stall":
        problems.append(f"root cause {root.get('id')}, expected trace.data_stall")
    for f in report["findings"]:
        if f.get("saving_per_step_ns") and f.get("step_ns") and \
                f["saving_per_step_ns"] > f["step_ns"] * 1.001:
            problems.append(f"{f['id']} saves more than its step")
    print(f"{N} ranks: {len(report['findings'])} findings: " +
          ", ".join(f"{i} x{n}" for i, n in sorted(ids.items())))
    for p_ in problems:
        print("FAIL " + p_)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
