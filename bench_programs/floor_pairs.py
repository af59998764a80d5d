#!/usr/bin/env python3
"""Times `commdx trace` against simdjson_floor_bench (simdjson merely reading the event fields
commdx reads) on the same events, alternating in the same minutes on one core, and prints a
Markdown table: CPU seconds (min / median / max), events/s at the median, and per shape the
median over runs of commdx's CPU time divided by the floor's of the same run. On a shared
machine whose speed moves 1.3-1.8x between minutes, the ratio of a pair says more than either
absolute number (docs/measurements/trace-ingest.md, "The floor, side by side").

For each PREFIX it reads PREFIX.perline.json (from make_trace_layouts.py) and writes
PREFIX.ndjson beside it if missing (the floor reads NDJSON); with PREFIX.oneline.json.gz
present it also times ISA-L's `igzip -dc` of it (where igzip is installed) and commdx on it.

    python3 bench_programs/make_trace_layouts.py SRC.json.gz /tmp/s --mb 500 --layouts perline
    python3 bench_programs/floor_pairs.py --commdx build/commdx \\
        --floor build/bench_programs/simdjson_floor_bench --runs 7 --cpu 0 /tmp/s

CPU time is user + system of the commdx and igzip processes (wait4) and Google Benchmark's
process CPU time per iteration for the floor (the file already in memory, so the floor is
spared reading it).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys


def ensure_ndjson(prefix):
    path = prefix + ".ndjson"
    if not os.path.exists(path):
        with open(prefix + ".perline.json") as f:
            events = json.load(f)["traceEvents"]
        with open(path, "w") as out:
            for e in events:
                out.write(json.dumps(e))
                out.write("\n")
    with open(path, "rb") as f:
        return sum(block.count(b"\n") for block in iter(lambda: f.read(1 << 24), b""))


def process_cpu(cmd, cpu):
    """User + system seconds of one run of cmd pinned to one core."""
    with open(os.devnull, "w") as null:
        p = subprocess.Popen(["taskset", "-c", cpu] + cmd, stdout=null, stderr=null)
        _, status, usage = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit(f"floor_pairs: {' '.join(cmd)} failed (wait status {status})")
    return usage.ru_utime + usage.ru_stime


def floor_cpu(floor, ndjson, cpu):
    """The floor's process CPU seconds per iteration, and the simdjson kernel it runs."""
    env = dict(os.environ, COMMDX_FLOOR_NDJSON=ndjson)
    run = subprocess.run(["taskset", "-c", cpu, floor, "--benchmark_format=json"], env=env,
                         capture_output=True, text=True)
    try:
        bench = json.loads(run.stdout)["benchmarks"][0]
    except (ValueError, KeyError, IndexError):
        sys.exit(f"floor_pairs: {floor} exited {run.returncode} without a Google Benchmark "
                 f"JSON result: {run.stderr.strip()[-300:]}")
    if bench.get("error_occurred"):
        sys.exit(f"floor_pairs: {floor}: {bench.get('error_message')}")
    scale = {"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "s": 1.0}[bench["time_unit"]]
    return bench["cpu_time"] * scale, bench.get("label", "")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--commdx", required=True)
    p.add_argument("--floor", action="append", required=True,
                   help="simdjson_floor_bench; repeatable")
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--cpu", default="0")
    p.add_argument("prefix", nargs="+")
    a = p.parse_args()
    igzip = shutil.which("igzip")
    shapes = []
    for prefix in a.prefix:
        if not os.path.exists(prefix + ".perline.json"):
            sys.exit(f"floor_pairs: {prefix}.perline.json not found (make_trace_layouts.py "
                     "--layouts perline writes it)")
        events = ensure_ndjson(prefix)
        gz = prefix + ".oneline.json.gz"
        shapes.append((prefix, events, gz if os.path.exists(gz) else None))
    times = {}  # (shape, tool) -> [seconds per run]
    kernels = {}
    for _ in range(a.runs):
        for prefix, _, gz in shapes:
            for floor in a.floor:
                t, kernel = floor_cpu(floor, prefix + ".ndjson", a.cpu)
                kernels[floor] = kernel
                times.setdefault((prefix, "simdjson " + kernel), []).append(t)
            trace = [a.commdx, "trace", "--format", "json", "-o", os.devnull]
            times.setdefault((prefix, "commdx trace"), []).append(
                process_cpu(trace + [prefix + ".perline.json"], a.cpu))
            if gz:
                if igzip:
                    times.setdefault((prefix, "igzip -dc .gz"), []).append(
                        process_cpu([igzip, "-dc", gz], a.cpu))
                times.setdefault((prefix, "commdx trace .gz"), []).append(
                    process_cpu(trace + [gz], a.cpu))
    print(f"| shape | tool | CPU s min / median / max ({a.runs} runs, core {a.cpu}) "
          "| M events/s at the median | commdx / this, median of runs |")
    print("|---|---|---|---|---|")
    for prefix, events, _ in shapes:
        mine = times[(prefix, "commdx trace")]
        for (shape, tool), t in times.items():
            if shape != prefix:
                continue
            ratio = ""
            if tool.startswith("simdjson"):
                ratio = f"{statistics.median(m / f for m, f in zip(mine, t)):.2f}"
            med = statistics.median(t)
            print(f"| {os.path.basename(prefix)} ({events / 1e6:.2f} M events) | {tool} | "
                  f"{min(t):.3f} / {med:.3f} / {max(t):.3f} | {events / med / 1e6:.2f} | {ratio} |")
        print(f"| {os.path.basename(prefix)} | 4 M events/s budget | {events / 4e6:.3f} | 4.00 | |")


if __name__ == "__main__":
    main()
