#!/usr/bin/env python3
"""Cuts a small seed for the kineto fuzz target out of a real Kineto trace: the header keys are
kept as they are, and of traceEvents only the metadata events plus every event that starts in a
time window inside one profiler step. The window starts at a ProfilerStep# annotation (or the
first NCCL kernel's launch with --at nccl) and is halved until the output fits --max-bytes.
One event per line, like Kineto writes them, so libFuzzer's mutations stay local.

    python3 tests/fuzz/trim_trace.py captures/ddp_healthy/trace_rank0.json.gz \
        tests/fuzz/corpus/kineto/ddp_healthy_rank0.json --max-bytes 60000
"""
import argparse
import gzip
import json


def window_start(events, at):
    if at == "nccl":
        for e in events:
            if e.get("ph") == "X" and "nccl" in str(e.get("name", "")).lower() \
                    and e.get("cat") in ("kernel", "Kernel"):
                corr = e.get("args", {}).get("correlation")
                launch = [x["ts"] for x in events if x.get("cat") == "cuda_runtime"
                          and x.get("args", {}).get("correlation") == corr]
                return min(launch + [e["ts"]]) - 50.0
    steps = sorted(e["ts"] for e in events if e.get("ph") == "X"
                   and str(e.get("name", "")).startswith("ProfilerStep#"))
    if len(steps) > 1:
        return steps[1]
    return min(e["ts"] for e in events if "ts" in e and isinstance(e["ts"], (int, float)))


def render(doc, events):
    head = {k: v for k, v in doc.items() if k != "traceEvents"}
    body = ",\n".join(json.dumps(e, separators=(", ", ": ")) for e in events)
    out = json.dumps(head, indent=1)[:-2]
    return out + ',\n "traceEvents": [\n' + body + "\n ]\n}\n"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("--max-bytes", type=int, default=60000)
    p.add_argument("--at", choices=["step", "nccl"], default="step")
    a = p.parse_args()
    opener = gzip.open if a.src.endswith(".gz") else open
    with opener(a.src, "rt") as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    meta = [e for e in events if e.get("ph") == "M"]
    timed = [e for e in events if e.get("ph") != "M" and isinstance(e.get("ts"), (int, float))]
    t0 = window_start(timed, a.at)
    width = 1e9
    while True:
        kept = [e for e in timed if t0 <= e["ts"] < t0 + width]
        text = render(doc, meta + kept)
        if len(text) <= a.max_bytes or width < 1.0:
            break
        width /= 2 if width < 1e6 else 1000
    with open(a.dst, "w") as f:
        f.write(text)
    print(f"{a.dst}: {len(kept)} events in {width:.0f} us, {len(text)} bytes")


if __name__ == "__main__":
    main()
