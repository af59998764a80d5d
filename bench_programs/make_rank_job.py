#!/usr/bin/env python3
"""Makes an N-rank job from a real one, for scale benchmarks and the one-finding-per-cause check.

  make_rank_job.py SOURCE_DIR N OUT_DIR

SOURCE_DIR holds a real job's profiler traces, one per rank (trace_rank<R>.json or .json.gz, as
workloads/ writes them; examples/ddp_data_stall is a 2-rank DDP run whose rank 1 stalls on data).
Rank r of the new job is a copy of source rank r % S (S = the number of source ranks) with its
rank facts rewritten: distributedInfo.rank = r and world_size = N, so commdx sees N ranks of one
job. Events, timestamps and process-group arguments are kept as recorded (a group's "Process Group
Ranks" still names the source ranks): the copies are one job for the per-rank analyses and the
report, not a faithful N-rank collective schedule. Written gzipped (level 1).
"""
import argparse
import glob
import gzip
import json
import os
import re
import sys

MARK = "\x00COMMDX_DISTRIBUTED_INFO\x00"


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source")
    ap.add_argument("n", type=int)
    ap.add_argument("out")
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(a.source, "trace_rank*.json*")),
                   key=lambda p: int(re.search(r"trace_rank(\d+)", p).group(1)))
    if not files:
        sys.exit(f"make_rank_job: no trace_rank*.json[.gz] in {a.source}")
    if a.n < 1:
        sys.exit("make_rank_job: N must be at least 1")
    os.makedirs(a.out, exist_ok=True)
    # Each source rank serialised once, with a marker where distributedInfo goes.
    templates = []
    for path in files:
        doc = load(path)
        info = doc.get("distributedInfo")
        if not isinstance(info, dict):
            sys.exit(f"make_rank_job: {path} has no distributedInfo to rewrite")
        doc["distributedInfo"] = MARK
        text = json.dumps(doc, separators=(",", ":"))
        templates.append((text, info))
    for r in range(a.n):
        text, info = templates[r % len(templates)]
        info = dict(info, rank=r, world_size=a.n)
        body = text.replace(json.dumps(MARK), json.dumps(info, separators=(",", ":")), 1)
        with gzip.open(os.path.join(a.out, f"trace_rank{r}.json.gz"), "wt", encoding="utf-8",
                       compresslevel=1) as f:
            f.write(body)
    print(f"make_rank_job: {a.n} ranks from {len(files)} source rank(s) in {a.out}")


if __name__ == "__main__":
    main()
