#!/usr/bin/env python3
"""Writes the bad summary cases of tests/badinput/cases/ (summary_*) from a real summary: the one
`commdx summarize` makes of a small trace of tests/data/traces. Rerun after the summary format
changes (docs/summary-format.md), with the commdx to use:

    python3 tests/badinput/make_summary_cases.py build/commdx
"""
import gzip
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "badinput", "cases")


def put(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def main():
    commdx = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([commdx, "summarize", "tests/data/traces/skew_rank0.json", "-o", tmp,
                        "--name", "s", "--plain", "-q"], cwd=ROOT, check=True)
        good = open(os.path.join(tmp, "s.commdx-summary.json"), "rb").read()
    def replaced(old, new):
        assert old in good, old
        return good.replace(old, new, 1)
    # A summary of the version before this one (the cut, bad row and bad index cases are of
    # this commdx's own version).
    put("summary_v2.commdx-summary.json", replaced(b'"version":3', b'"version":2'))
    put("summary_cut.commdx-summary.json.gz", gzip.compress(good[: len(good) // 2], mtime=0))
    put("summary_bad_row.commdx-summary.json",
        replaced(b'"collectives":{"start_ns":[', b'"collectives":{"start_ns":[0,'))
    put("summary_bad_index.commdx-summary.json",
        replaced(b'"main_thread":', b'"main_thread":9999,"was":'))
    put("summary_bad_digest.commdx-summary.json",
        replaced(b'"compute":[', b'"compute":[5,'))


if __name__ == "__main__":
    main()
