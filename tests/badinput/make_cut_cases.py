#!/usr/bin/env python3
"""Writes the bad-input cases of issue 39 items 1 and 2 into tests/badinput/cases/ from the same
small real traces as make_cases.py (the trimmed 2xH200 DDP traces of the fuzz corpus): valid JSON
in layouts the fast scanner once refused, one broken event among good ones, and traces cut short
the ways a killed job leaves them. Rerun after a change:

    python3 tests/badinput/make_cut_cases.py
"""
import gzip
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "badinput", "cases")
SEEDS = os.path.join(ROOT, "tests", "fuzz", "corpus", "kineto")


def put(name, data):
    path = os.path.join(OUT, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def cut_at_event(trace, k):
    """`trace` cut in the middle of its k-th event from the end (one event per line)."""
    lines = trace.split(b"\n")
    events = [i for i, line in enumerate(lines) if line.lstrip().startswith(b'{"ph"')]
    i = events[-k]
    return b"\n".join(lines[:i]) + b"\n" + lines[i][: len(lines[i]) // 2]


def main():
    r0 = open(os.path.join(SEEDS, "ddp_healthy_rank0.json"), "rb").read()
    r1 = open(os.path.join(SEEDS, "ddp_healthy_rank1.json"), "rb").read()
    # Valid JSON the fast scanner refused ("expected ':' after an object key", exit 3): values
    # aligned after the colon as ROCm's tracer writes them (`"grid":     [65536, 1, 1]`), and
    # every JSON blank in runs around the colons and commas.
    put("spaced_colons.json", r0.replace(b'": ', b'":     '))
    put("blank_runs.json", r0.replace(b'": ', b'" \t:\r\n\t ').replace(b', "', b' ,\n\t  "'))
    # One event that is not JSON (a literal cut by a blank) among good ones: skipped, counted.
    put("bad_event_mid.json", r0.replace(b'"dur": ', b'"dur": tru e, "x": ', 1))
    # A record broken mid-write among good ones (two writers on one file, a crash and a restart
    # appending): brackets of the wrong kind or one too many, a record cut off mid-string and
    # the next one glued on. Skipped up to the next event and counted; once the whole trace
    # (exit 3) or the rest of it called cut short.
    lines = r0.split(b"\n")
    ev = [i for i, line in enumerate(lines) if b'"args": {' in line]
    def broken(i, edit):
        out = list(lines)
        out[ev[i]] = edit(out[ev[i]])
        return b"\n".join(out)
    put("broken_bracket.json", broken(30, lambda l: l.replace(b'"args": {', b'"args": {"x": [1, 2}, ', 1)))
    put("broken_extra_close.json", broken(30, lambda l: l.rstrip(b",") + b"},"))
    put("broken_spliced.json", broken(30, lambda l: l[: l.index(b'"name"') + 4] + lines[ev[30] + 1]))
    # Cut short while the profiler wrote: plain JSON inside an event, a gzip stream cut short,
    # before the first event, inside the header; every rank of a job cut.
    put("cut_mid_event.json", cut_at_event(r0, 40))
    put("cut_stream.json.gz", gzip.compress(r0, mtime=0)[: len(gzip.compress(r0, mtime=0)) * 3 // 4])
    events_at = r0.index(b'"traceEvents"')
    put("cut_before_events.json", r0[: events_at + len(b'"traceEvents": [') + 1])
    put("cut_in_header.json", r0[:120])
    put("all_cut/trace_rank0.json", cut_at_event(r0, 30))
    put("all_cut/trace_rank1.json", cut_at_event(r1, 50))


if __name__ == "__main__":
    main()
