#!/usr/bin/env python3
"""No sentinel value reaches a reader (CTest label accuracy).

Runs `commdx diagnose` in text and Markdown on every bundled example, every hang case and every
public trace, and fails on text a reader should never see: a "-1" standing for "unknown"
(`step -1`, `rank -1`, `Timeout -1 ms`, `-1 ms`), not-a-number or infinity, or an unsigned
integer's wrap-around (4294967295, 18446744073709551615). Where a value is unknown the output
says so in words.

  no_sentinels.py COMMDX REPO_DIR
"""
import glob
import os
import re
import subprocess
import sys

PATTERNS = [
    re.compile(r"\b(step|rank|timeout|seq|seqnum|sequence number|channels?)[ =:#]+-1\b", re.I),
    re.compile(r"(?<![\w.])-1(\.0+)? ?(ms|µs|us|ns|s|GB/s|B|bytes)\b"),
    re.compile(r"(?<![\w.-])-?(nan|inf)(?![\w.])", re.I),
    re.compile(r"\b(4294967295|18446744073709551615|9223372036854775807|2147483647)\b"),
    re.compile(r"(?<![\S])-1(?![\S])"),  # a table cell or word that is just -1
]


def main():
    commdx, repo = sys.argv[1], sys.argv[2]
    folders = sorted(glob.glob(os.path.join(repo, "examples", "*", "")) +
                     glob.glob(os.path.join(repo, "tests", "data", "hang", "*", "")) +
                     glob.glob(os.path.join(repo, "tests", "data", "public_traces", "*", "")))
    bad = []
    for d in folders:
        for fmt in ("text", "md"):
            p = subprocess.run([commdx, "diagnose", d, "--format", fmt], capture_output=True,
                               text=True, timeout=300)
            for n, line in enumerate(p.stdout.splitlines(), 1):
                # File names may hold anything ("sampled_rank-1.json.gz"): judge the words only.
                words = re.sub(r"\S+\.(json|gz|log|sqlite|txt|pkl|pickle)\S*", "FILE", line)
                for pat in PATTERNS:
                    m = pat.search(words)
                    if m:
                        bad.append(f"{os.path.relpath(d, repo)} ({fmt}) line {n}: "
                                   f"'{m.group(0)}' in: {line.strip()[:160]}")
    print(f"{len(folders)} folders checked in text and Markdown")
    for b in bad[:50]:
        print("FAIL " + b)
    if len(bad) > 50:
        print(f"... and {len(bad) - 50} more")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
