#!/usr/bin/env python3
"""Writes the committed bad-input corpus (tests/badinput/cases/) from small real inputs: the
trimmed 2xH200 traces of the fuzz corpus and a real 2xH200 NCCL log. Rerun after changing a case:

    python3 tests/badinput/make_cases.py

Cases too large to commit (10 MB lines, a trace over 4 GiB) are made at test time by
gen_long_lines.py and gen_huge_trace.py.
"""
import gzip
import io
import os
import random
import re
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "badinput", "cases")
SEEDS = os.path.join(ROOT, "tests", "fuzz", "corpus", "kineto")
LOG = os.path.join(ROOT, "captures", "ddp_healthy", "nccl.vm.654.log")


def put(name, data):
    path = os.path.join(OUT, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def mutate_events(text, pattern, repl, count=5):
    """Rewrites `pattern` in the first `count` complete ("X") events only."""
    lines = text.split(b"\n")
    done = 0
    for i, line in enumerate(lines):
        if done < count and b'"ph": "X"' in line:
            lines[i], n = re.subn(pattern, repl, line, count=1)
            done += n
    assert done == count, pattern
    return b"\n".join(lines)


def main():
    trace = open(os.path.join(SEEDS, "ddp_healthy_rank0.json"), "rb").read()
    fsdp = open(os.path.join(SEEDS, "fsdp_healthy_rank0.json"), "rb").read()
    log = open(LOG, "rb").read()
    put("empty.json", b"")
    put("empty.log", b"")
    put("junk.bin", random.Random(8).randbytes(4096))
    put("truncated.json.gz", gzip.compress(trace, mtime=0)[:3000])
    put("truncated.json", trace[: len(trace) // 2])
    put("other_schema.json", b'{"name": "left-pad", "version": "1.3.0", "traceEvents2": [],\n'
        b' "dependencies": {}, "scripts": {"test": "node test.js"}}\n')
    num = rb'"ts": [0-9.]+'
    dur = rb'"dur": [0-9.]+'
    put("trace_ts_nan.json", mutate_events(trace, num, b'"ts": NaN'))
    put("trace_ts_text.json", mutate_events(trace, num, b'"ts": "soon"'))
    put("trace_ts_overflow.json", mutate_events(trace, num, b'"ts": 1e300'))
    put("trace_ts_bigint.json",
        mutate_events(trace, num, b'"ts": 123456789012345678901234567890'))
    put("trace_ts_17digits.json", mutate_events(trace, num, b'"ts": 99999999999999999'))
    put("trace_dur_negative.json", mutate_events(trace, dur, b'"dur": -12.5'))
    put("trace_dur_overflow.json", mutate_events(trace, dur, b'"dur": 9.3e15'))
    put("trace_dur_huge.json", mutate_events(trace, dur, b'"dur": 1e300'))
    # A start and a duration that each parse (under 2^63 ns) but whose sum does not fit int64
    # (UBSan: signed overflow in ts + dur).
    put("trace_dur_centuries.json",
        mutate_events(mutate_events(trace, dur, b'"dur": 9100000000000000'), num,
                      b'"ts": 9100000000000000'))
    # Found by fuzzing: a base time beyond int64 nanoseconds (UBSan: float to int64 overflow).
    put("trace_base_time_huge.json",
        re.sub(rb'"baseTimeNanoseconds": [0-9]+', b'"baseTimeNanoseconds": 1.79e19', trace, count=1))
    # Found by fuzzing: a world size far past int64 (UBSan: float to int64 overflow).
    put("trace_world_size_huge.json",
        re.sub(rb'"world_size": [0-9]+', b'"world_size": 288888888888888888888888', trace, count=1))
    # Same rank twice at the same time (two different traces claim rank 0: a kernel left out of
    # the second), one trace copied (read once), and ranks of two different jobs in one folder.
    put("dup_ranks/trace_a.json", trace)
    put("dup_ranks/trace_b.json", re.sub(rb'\{"ph": "X", "cat": "kernel"[^\n]*\n', b"", trace,
                                         count=1))
    put("copied_trace/trace_rank0.json", trace)
    put("copied_trace/copy/trace_rank0.json", trace)
    put("mixed_jobs/ddp_rank0.json", trace)
    put("mixed_jobs/fsdp_rank1.json", fsdp.replace(b'"rank": 0', b'"rank": 1', 1))
    # Traces handed over packed: a .tar.gz of the rank files (as downloaded from a cluster) and
    # a zstd-compressed trace (magic bytes and a frame start: enough to be recognised).
    tar = io.BytesIO()
    with tarfile.open(fileobj=tar, mode="w", format=tarfile.USTAR_FORMAT) as t:
        info = tarfile.TarInfo("trace_rank0.json")
        info.size, info.mtime = len(trace), 0
        t.addfile(info, io.BytesIO(trace))
    put("archive.tar.gz", gzip.compress(tar.getvalue(), mtime=0))
    put("trace.json.zst", b"\x28\xb5\x2f\xfd\x04\x58" + random.Random(9).randbytes(256))
    # A future NCCL: unknown version and line kinds commdx has never seen.
    future = re.sub(rb"NCCL version 2\.[0-9.]+", b"NCCL version 3.7.1", log)
    future += (b"vm:654:654 [1] NCCL INFO Quantum channel 00/24 : 0[0] => 1[1] via QLINK/ent\n"
               b"vm:654:654 [1] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via HYPER/NVL9/x\n")
    put("nccl_future.log", future)
    # Bytes that are not UTF-8 in host and kernel names.
    put("nonutf8.log", log.replace(b"vm:654:", b"v\xffm\xc3:654:"))
    put("nonutf8_trace.json", trace.replace(b'"name": "aten::div"', b'"name": "aten::d\xff\xfeiv\xc3"', 1))
    # Fuzz finds (minimized), kept as regression cases through the real binary:
    # a snapshot that says "in a container" without a sign (segfaulted in env.container), and a
    # broken traceEvents structure that made the Kineto reader read out of bounds (ASan SEGV).
    snap = open(os.path.join(ROOT, "tests", "fuzz", "corpus", "snapshot", "env_devbox.json"),
                "rb").read()
    put("snapshot_container_no_signs.json",
        re.sub(rb'"container_signs": \[.*?\]', b'"container_signs": []', snap, flags=re.S))
    put("trace_bad_structure.json", b'{"":[{}],"":{""[{""[]}]},"traceEvents":["":""{}},')
    # Nsight Systems exports cut short (a copy that stopped) and with junk pages after the schema:
    # SQLite reports a malformed image; commdx must say so and exit 3.
    nsys = gzip.open(os.path.join(ROOT, "tests", "data", "nsys",
                                  "styles_healthy_iter_marks.sqlite.gz")).read()
    put("nsys_truncated.sqlite", nsys[:65536])
    put("nsys_junk_pages.sqlite", nsys[:8192] + random.Random(17).randbytes(8192))


if __name__ == "__main__":
    main()
