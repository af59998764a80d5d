#!/usr/bin/env python3
"""Writes the bad-input cases of issue 16 part B (text as other tools write it) into
tests/badinput/cases/, from the same small real inputs as make_cases.py. Rerun after a change:

    python3 tests/badinput/make_parse_cases.py
"""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "badinput", "cases")
BOM = b"\xef\xbb\xbf"


def read(*parts):
    with open(os.path.join(ROOT, *parts), "rb") as f:
        return f.read()


def put(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def with_event(trace, edit):
    """The trace with a copy of its first kernel event, changed by edit(event), appended."""
    doc = json.loads(trace)
    first = next(e for e in doc["traceEvents"] if e.get("cat") == "kernel")
    extra = dict(first, args=dict(first["args"]))
    edit(extra)
    doc["traceEvents"].append(extra)
    return json.dumps(doc).encode()


def splice_logs(a, b, lag=3):
    """Two processes' logs as one shared stdout: a line of a, then a line of b, b `lag` lines
    behind; b's NCCL_P2P_DISABLE line is written into the middle of a's line (the rest of a's
    line follows on the next line), and text without a newline is glued before b's next line."""
    out, la, lb = [], a.splitlines(), b.splitlines()
    target = next(i for i, l in enumerate(lb) if b"NCCL_P2P_DISABLE" in l)
    for i in range(max(len(la), len(lb) + lag)):
        j = i - lag
        line_a = la[i] if i < len(la) else b""
        if j == target:
            cut = len(line_a) // 2
            out += [line_a[:cut] + lb[j], line_a[cut:]]
            continue
        if line_a:
            out.append(line_a)
        if 0 <= j < len(lb):
            out.append((b"step 3 loss 0.53" if j == target + 1 else b"") + lb[j])
    return b"\n".join(out) + b"\n"


def main():
    trace = read("tests", "fuzz", "corpus", "kineto", "ddp_healthy_rank0.json")
    log = read("captures", "ddp_healthy", "nccl.vm.654.log")
    env = read("captures", "ddp_healthy", "env_rank0.json")
    topo = read("tests", "data", "smi", "h200x2-topo-m.txt")
    # A byte-order mark (Windows editors, PowerShell `>`) before each format.
    put("bom_trace.json", BOM + trace)
    put("bom_env.json", BOM + env)
    put("bom_nccl.log", BOM + log)
    put("bom_topo.txt", BOM + topo)
    # Classic-Mac line ends: a lone CR ends every line.
    put("cr_only_nccl.log", log.replace(b"\n", b"\r"))
    # Saved results compare refuses: another schema version, and two different commands.
    result = {"schema_version": 2, "command": "diagnose", "tool_version": "0", "findings": []}
    put("result_diagnose.json", json.dumps(result).encode())
    put("result_schema_999.json", json.dumps(dict(result, schema_version=999)).encode())
    put("result_bench.json", json.dumps(dict(result, command="bench")).encode())
    # Events far outside the trace's span: a kernel at ts=0 among the trace's clock times (a
    # 5,160,728,092 ms step before), a kernel lasting 104 days.
    put("trace_kernel_at_zero.json", with_event(trace, lambda e: e.update(ts=0)))
    put("trace_kernel_104_days.json", with_event(trace, lambda e: e.update(dur=104 * 86400e6)))
    # Two processes writing one stdout, spliced mid-line (the 2xH200 capture run with
    # NCCL_P2P_DISABLE=1: p2p_disabled became shm_transport).
    put("spliced_p2p_disable.log",
        splice_logs(read("examples", "ddp_p2p_disable", "nccl.vm.974.log"),
                    read("examples", "ddp_p2p_disable", "nccl.vm.975.log")))


if __name__ == "__main__":
    main()
