#!/usr/bin/env python3
"""Makes a large Kineto trace from a real one for the trace benchmark (the output is not
committed): the events are repeated N times, each copy shifted in time by the span of the
original, with correlation ids, External ids, flow ids and ProfilerStep numbers renumbered so
that every copy links up on its own — like a longer profile of the same job.

    python3 bench_programs/make_large_trace.py captures/ddp_healthy/trace_rank0.json.gz \
        /tmp/commdx-large-trace.json --gb 1.0

Works on the text (no JSON round trip), so the output keeps Kineto's exact layout.
"""
import argparse
import gzip
import re

NUM = re.compile(rb'("ts": |"correlation": |"External id": |"id": |ProfilerStep#)(-?[0-9.]+)')


def main():
    p = argparse.ArgumentParser()
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("--gb", type=float, default=1.0, help="size of the output in GB (1e9 bytes)")
    a = p.parse_args()
    opener = gzip.open if a.src.endswith(".gz") else open
    with opener(a.src, "rb") as f:
        text = f.read()
    start = text.index(b'"traceEvents": [') + len(b'"traceEvents": [')
    end = text.rindex(b"]")
    head, body, tail = text[:start], text[start:end].rstrip(), text[end:]
    body = body.rstrip().rstrip(b",")
    ts = [float(m) for m in re.findall(rb'"ts": (-?[0-9.]+)', body)]
    span = max(ts) - min(ts) + 1000.0
    ids = [int(m) for m in re.findall(rb'"(?:correlation|External id|id)": (-?[0-9]+)', body)]
    id_step = max(ids) + 1 if ids else 1
    steps = [int(m) for m in re.findall(rb"ProfilerStep#([0-9]+)", body)]
    step_step = max(steps) + 1 if steps else 1
    copies = max(1, int(a.gb * 1e9 / len(body)))

    def shifted(k):
        def sub(m):
            key, val = m.group(1), m.group(2)
            if key == b'"ts": ':
                return key + (b"%.3f" % (float(val) + k * span))
            if key == b"ProfilerStep#":
                return key + str(int(val) + k * step_step).encode()
            v = int(val)
            return key + (str(v + k * id_step).encode() if v >= 0 else val)
        return NUM.sub(sub, body)

    with open(a.dst, "wb") as out:
        out.write(head)
        out.write(b"\n")
        for k in range(copies):
            if k:
                out.write(b",\n")
            out.write(shifted(k) if k else body)
        out.write(b"\n  ")
        out.write(tail)
    print("%s: %d copies of %d bytes of events, %.2f GB" % (a.dst, copies, len(body),
                                                             (len(head) + copies * len(body)) / 1e9))


if __name__ == "__main__":
    main()
