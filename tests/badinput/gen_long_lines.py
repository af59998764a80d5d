#!/usr/bin/env python3
"""Makes the 10 MB-line cases at test time (too big to commit) into the folder given:
  longline.log         a real NCCL log with one 10 MB NCCL INFO line inserted as line 6
  longline_text.log    10 MB of text on one line without a newline, no NCCL line at all
  longline_trace.json  a real trimmed trace whose first aten::div event has a 10 MB name
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEN_MB = 10 << 20


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    log = open(os.path.join(ROOT, "captures", "ddp_healthy", "nccl.vm.654.log"), "rb").read()
    lines = log.split(b"\n")
    lines.insert(5, b"vm:654:654 [1] NCCL INFO " + b"A" * TEN_MB)
    with open(os.path.join(out, "longline.log"), "wb") as f:
        f.write(b"\n".join(lines))
    with open(os.path.join(out, "longline_text.log"), "wb") as f:
        f.write(b"loss=0.25 " * (TEN_MB // 10))
    trace = open(os.path.join(ROOT, "tests", "fuzz", "corpus", "kineto",
                              "ddp_healthy_rank0.json"), "rb").read()
    with open(os.path.join(out, "longline_trace.json"), "wb") as f:
        f.write(trace.replace(b'"name": "aten::div"', b'"name": "' + b"x" * TEN_MB + b'"', 1))


if __name__ == "__main__":
    main()
