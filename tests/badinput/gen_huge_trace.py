#!/usr/bin/env python3
"""Writes a gzip'ed Kineto trace that inflates to more than 4 GiB (simdjson's limit for one
document), generated at test time and never committed. It is a real small trace (the seed named
on the command line) whose traceEvents array has a run of JSON whitespace of --gib GiB in the
middle, so the file stays a few MB on disk while the JSON is over the limit; after the gap come
the seed's events once more, shifted past the first copy, and one event with a negative duration
whose reported place must be a byte offset beyond 4 GiB (a 32-bit offset would wrap). The file is
a chain of gzip members (as `cat a.gz b.gz` makes, which gzip readers must accept); the gap is one
member compressed once and written many times, so generating takes seconds.

    python3 tests/badinput/gen_huge_trace.py tests/fuzz/corpus/kineto/ddp_healthy_rank0.json \
        /tmp/huge.json.gz --gib 4.25
"""
import argparse
import gzip
import json
import re


def main():
    p = argparse.ArgumentParser()
    p.add_argument("seed")
    p.add_argument("dst")
    p.add_argument("--gib", type=float, default=4.25)
    a = p.parse_args()
    text = open(a.seed, "rb").read()
    start = text.index(b'"traceEvents": [') + len(b'"traceEvents": [')
    end = text.rindex(b"]")
    head, body = text[:start], text[start:end].rstrip().rstrip(b",")
    tail = text[end:]
    ts = [float(m) for m in re.findall(rb'"ts": (-?[0-9.]+)', body)]
    span = max(ts) - min(ts) + 1000.0
    second = re.sub(rb'"ts": (-?[0-9.]+)',
                    lambda m: b'"ts": %.3f' % (float(m.group(1)) + span), body)
    bad = {"ph": "X", "cat": "cpu_op", "name": "after_the_gap", "pid": 1, "tid": 1,
           "ts": max(ts) + 2 * span, "dur": -1.0}
    gap = int(a.gib * (1 << 30))
    chunk_bytes = 64 << 20
    member = gzip.compress(b" " * chunk_bytes, compresslevel=9, mtime=0)
    with open(a.dst, "wb") as f:
        f.write(gzip.compress(head + body + b",\n", mtime=0))
        for _ in range(gap // chunk_bytes):
            f.write(member)
        f.write(gzip.compress(b" " * (gap % chunk_bytes), mtime=0))
        f.write(gzip.compress(second + b",\n" + json.dumps(bad).encode() + b"\n" + tail,
                              mtime=0))


if __name__ == "__main__":
    main()
