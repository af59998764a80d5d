#!/usr/bin/env python3
"""Writes the small hand-made Kineto traces the unit tests read, one per format variant, with
timings chosen so that the right answers are known exactly (see the comments per file).

    python3 tests/data/traces/make_traces.py      # rewrites the files beside this script

Every file is written the way its PyTorch era writes it (key order, indentation, number format);
nothing here is copied from a real trace.
"""
import gzip
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def pretty(obj_header, events, tail=None, indent=True):
    """Kineto layout: header keys, then traceEvents one event per block, then tail keys."""
    if not indent:
        doc = dict(obj_header)
        doc["traceEvents"] = events
        doc.update(tail or {})
        return json.dumps(doc, separators=(",", ":"))
    out = ["{"]
    for k, v in obj_header.items():
        out.append('  "%s": %s,' % (k, json.dumps(v)))
    out.append('  "traceEvents": [')
    blocks = []
    for e in events:
        lines = ["  {"]
        items = list(e.items())
        for i, (k, v) in enumerate(items):
            comma = "," if i + 1 < len(items) else ""
            if k == "args":
                lines.append('    "args": {')
                a = list(v.items())
                for j, (ak, av) in enumerate(a):
                    c2 = "," if j + 1 < len(a) else ""
                    lines.append('      "%s": %s%s' % (ak, json.dumps(av), c2))
                lines.append("    }" + comma)
            else:
                lines.append('    "%s": %s%s' % (k, json.dumps(v), comma))
        lines.append("  }")
        blocks.append("\n".join(lines))
    out.append(",\n".join(blocks))
    tail_items = list((tail or {}).items())
    out.append("  ]" + ("," if tail_items else ""))
    for i, (k, v) in enumerate(tail_items):
        out.append('  "%s": %s%s' % (k, json.dumps(v), "," if i + 1 < len(tail_items) else ""))
    out.append("}")
    return "\n".join(out) + "\n"


def write(name, text, gz=False):
    path = os.path.join(HERE, name)
    if gz:
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        with open(path, "w") as f:
            f.write(text)


def us(x):
    """Fractional µs with three decimals, as newer Kineto writes them."""
    return round(x, 3)


class Rank:
    """Builds one rank's events. Times are µs relative to the trace base."""

    def __init__(self, pid=100, main_tid=100, stream=7, comm_stream=17, device=0, old=False):
        self.ev = []
        self.pid, self.main, self.stream, self.comm_stream, self.device = pid, main_tid, stream, comm_stream, device
        self.corr = 1000
        self.ext = 1
        self.old = old

    def cpu(self, name, ts, dur, cat="cpu_op", tid=None, args=None):
        a = {"External id": self.ext}
        self.ext += 1
        a.update(args or {})
        self.ev.append({"ph": "X", "cat": cat, "name": name, "pid": self.pid,
                        "tid": self.main if tid is None else tid, "ts": us(ts), "dur": us(dur), "args": a})
        return a["External id"]

    def kernel(self, name, launch_ts, start, dur, stream=None, args=None, tid=None, cat=None,
               launch_name="cudaLaunchKernel", ext=None, flows=True):
        self.corr += 1
        c = self.corr
        ext = ext if ext is not None else self.ext
        self.ev.append({"ph": "X", "cat": "cuda_runtime", "name": launch_name, "pid": self.pid,
                        "tid": self.main if tid is None else tid, "ts": us(launch_ts), "dur": 5.0,
                        "args": {"External id": ext, "cbid": 211, "correlation": c}})
        ka = {"External id": ext, "queued": 0, "device": self.device, "context": 1,
              "stream": stream or self.stream, "correlation": c, "grid": [132, 1, 1], "block": [256, 1, 1]}
        ka.update(args or {})
        self.ev.append({"ph": "X", "cat": cat or "kernel", "name": name, "pid": self.device,
                        "tid": stream or self.stream, "ts": us(start), "dur": us(dur), "args": ka})
        if flows:
            self.ev.append({"ph": "s", "id": c, "pid": self.pid, "tid": self.main if tid is None else tid,
                            "ts": us(launch_ts), "cat": "ac2g", "name": "ac2g"})
            self.ev.append({"ph": "f", "id": c, "pid": self.device, "tid": stream or self.stream,
                            "ts": us(start), "cat": "ac2g", "name": "ac2g", "bp": "e"})
        return c

    def runtime(self, name, ts, dur, tid=None):
        self.corr += 1
        self.ev.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": self.pid,
                        "tid": self.main if tid is None else tid, "ts": us(ts), "dur": us(dur),
                        "args": {"cbid": 131, "correlation": self.corr}})


def allreduce_args(nelems, seq=None, pg="0", ranks="[0, 1]"):
    a = {"Collective name": "allreduce", "In msg nelems": nelems, "Out msg nelems": nelems,
         "Group size": 2, "dtype": "Float", "In split size": "[]", "Out split size": "[]",
         "Process Group Name": pg, "Process Group Description": "default_pg",
         "Process Group Ranks": ranks}
    if seq is not None:
        a["Seq"] = seq
    return a


def header(rank, world=2, base=True):
    h = {"schemaVersion": 1,
         "deviceProperties": [{"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150109880320,
                               "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
         "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": world, "pg_count": 1,
                             "pg_config": [{"pg_name": "0", "pg_desc": "default_pg",
                                            "backend_config": "cuda:nccl", "pg_size": world,
                                            "ranks": list(range(world))}],
                             "nccl_version": "2.21.5"}}
    return h


def two_steps(r, late_ms=0.0, sync=False, loader_ms=0.0, stretch_ms=0.0, extra_ms=0.0):
    """Two ProfilerSteps of 10 ms each (+ late_ms of extra compute, + loader_ms of data loading,
    + extra_ms of idle at the end).

    Step layout (µs from the step start): a 1 ms data-loader annotation (CPU only, GPU idle),
    GPU work from 1100: four compute kernels of 1.5 ms, one 32 MiB all-reduce (1 ms, + stretch_ms
    of waiting) on the comm stream starting 0.5 ms before the last compute kernel ends, then an
    optimizer kernel of 1 ms after the all-reduce. Step 1 of rank 0 without options therefore is:
    compute 6.5 ms, comm overlapped 0.5, comm exposed 0.5, idle-data 1.0, idle-host 1.5.
    """
    t = 0.0
    for step in (1, 2):
        step_len = 10000 + (late_ms + loader_ms + extra_ms) * 1000
        r.cpu("ProfilerStep#%d" % step, t, step_len, cat="user_annotation")
        r.cpu("dataloader", t + 10, 1000 + loader_ms * 1000, cat="user_annotation")
        g = t + 1100 + loader_ms * 1000
        if late_ms:
            r.kernel("void straggler_matmul<bf16>(float*)", g - 50, g, late_ms * 1000)
            g += late_ms * 1000
        for k in range(4):
            r.kernel("void at::native::elementwise_kernel<128, 2>(int)", g - 40 + k * 10, g + k * 1500, 1500)
        if sync:
            # .item(): D2H copy then a blocking stream sync under aten::item
            r.cpu("aten::item", g + 100, 6000)
            r.cpu("aten::_local_scalar_dense", g + 110, 5980)
            r.kernel("Memcpy DtoH (Device -> Pinned)", g + 120, g + 6000, 5,
                     cat="gpu_memcpy", launch_name="cudaMemcpyAsync", args={"bytes": 4})
            r.runtime("cudaStreamSynchronize", g + 130, 5880)
        ar_start = g + 4 * 1500 - 500
        ar_dur = 1000 + stretch_ms * 1000
        ext = r.cpu("record_param_comms", g + 50, 20, args=allreduce_args(8388608, seq=step - 1))
        r.kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                 g + 60, ar_start, ar_dur, stream=r.comm_stream,
                 args=dict(allreduce_args(8388608, seq=step - 1), grid=[24, 1, 1]), ext=ext)
        r.kernel("void multi_tensor_apply_kernel<AdamFunctor>(int)", g + 70, ar_start + ar_dur, 1000)
        t += step_len


def new_format():
    """2024-era rank 0: header first, fractional µs after baseTimeNanoseconds, ints everywhere."""
    r = Rank()
    two_steps(r)
    r.ev.append({"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#1", "pid": 0, "tid": 7,
                 "ts": 1100.0, "dur": 9000.0, "args": {"External id": 1}})
    r.ev.append({"name": "thread_name", "ph": "M", "ts": 0, "pid": 100, "tid": 100,
                 "args": {"name": "thread 100 (python3)"}})
    r.ev.append({"ph": "X", "cat": "Trace", "ts": 0, "dur": 20000, "pid": "Spans",
                 "tid": "PyTorch Profiler", "name": "PyTorch Profiler (0)", "args": {"Op count": 0}})
    r.ev.append({"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 20010.5})
    h = header(0)
    h["displayTimeUnit"] = "ms"
    h["baseTimeNanoseconds"] = 1727000000000000000
    write("kineto_2024_rank0.json", pretty(h, r.ev, {"traceName": "rank0"}))


def old_format():
    """2021-era: integer µs since the epoch, "Kernel"/"Runtime"/"Memcpy", string tids,
    async_cpu_to_gpu flows and no correlation in the GPU events' args, no distributedInfo
    (the file name says rank 3), ncclKernel_ name (<= 2.18) without collective args, the
    record_param_comms op carrying them under the same External id."""
    epoch = 1630000000000000  # µs
    ev = []
    ev.append({"ph": "X", "cat": "Operator", "name": "ProfilerStep#7", "pid": 55, "tid": "55",
               "ts": epoch, "dur": 5000, "args": {"External id": 1}})
    ev.append({"ph": "X", "cat": "Operator", "name": "record_param_comms", "pid": 55, "tid": "55",
               "ts": epoch + 100, "dur": 50, "args": {"External id": 2, "Collective name": "allreduce",
                                                       "In msg nelems": 1024, "Out msg nelems": 1024,
                                                       "Group size": 4, "dtype": "Half",
                                                       "Process Group Name": "0",
                                                       "Process Group Ranks": "[0, 1, 2, 3]"}})
    ev.append({"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 55, "tid": "55",
               "ts": epoch + 110, "dur": 8, "args": {"External id": 2}})
    ev.append({"ph": "s", "id": 9001, "pid": 55, "tid": "55", "ts": epoch + 110,
               "cat": "async_cpu_to_gpu", "name": "async_gpu"})
    ev.append({"ph": "X", "cat": "Kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_half(ncclWorkElem)",
               "pid": 0, "tid": "stream 13", "ts": epoch + 200, "dur": 300,
               "args": {"External id": 2, "device": 0, "stream": 13, "grid": [8, 1, 1]}})
    ev.append({"ph": "f", "id": 9001, "pid": 0, "tid": "stream 13", "ts": epoch + 200,
               "cat": "async_cpu_to_gpu", "name": "async_gpu", "bp": "e"})
    ev.append({"ph": "X", "cat": "Runtime", "name": "cudaMemcpyAsync", "pid": 55, "tid": "55",
               "ts": epoch + 600, "dur": 10, "args": {"External id": 3, "correlation": 9002}})
    ev.append({"ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0,
               "tid": "stream 7", "ts": epoch + 700, "dur": 100,
               "args": {"device": 0, "stream": 7, "correlation": 9002, "bytes": 1048576}})
    h = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "Tesla V100-SXM2-32GB"}]}
    write("kineto_2021_trace_3.json", pretty(h, ev))


def display_ns():
    """displayTimeUnit "ns" with the base after traceEvents; ROCm names (hipLaunchKernel,
    RCCL); a category commdx does not know; pid/tid given as strings."""
    ev = []
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#0", "pid": "9", "tid": "9",
               "ts": 10.0, "dur": 2000.0, "args": {"External id": 1}})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": "9", "tid": "9",
               "ts": 20.0, "dur": 4.0, "args": {"External id": 1, "correlation": 5}})
    ev.append({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
               "pid": "0", "tid": "2", "ts": 30.0, "dur": 500.0,
               "args": {"device": 0, "stream": 2, "correlation": 5}})
    ev.append({"ph": "X", "cat": "mtia_mystery", "name": "something new", "pid": "9", "tid": "9",
               "ts": 40.0, "dur": 1.0})
    h = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X"}],
         "distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 2}}
    write("display_ns_rank1.json", pretty(h, ev, {"displayTimeUnit": "ns",
                                                  "baseTimeNanoseconds": 1727000000000000000}))


def cpu_only():
    """gloo on CPU: collectives exist only as record_param_comms; no GPU events at all."""
    ev = []
    for i in range(2):
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % i, "pid": 3,
                   "tid": 3, "ts": 1000.0 * i, "dur": 900.0, "args": {}})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 3, "tid": 3,
                   "ts": 1000.0 * i + 100, "dur": 300.0,
                   "args": {"Collective name": "broadcast", "In msg nelems": 10, "Out msg nelems": 10,
                            "Group size": 2, "dtype": "Long", "Process Group Name": "0",
                            "Process Group Ranks": "[0, 1]"}})
    h = {"schemaVersion": 1, "distributedInfo": {"backend": "gloo", "rank": 0, "world_size": 2}}
    write("cpu_only_rank0.json", pretty(h, ev))


def minified():
    """One line, no line breaks at all: one part for the whole traceEvents array."""
    r = Rank()
    two_steps(r)
    write("minified_rank0.json", pretty(header(0), r.ev, indent=False))


def nested_args():
    """An arg holding a list of objects written over several lines ("},\\n{" inside an event):
    a cut there is not between events and must be retried, not accepted."""
    r = Rank()
    two_steps(r)
    text = pretty(header(0), r.ev)
    inject = ('"args": {\n      "shapes": [\n  {\n    "a": 1\n  },\n  {\n    "b": 2\n  }\n      ],')
    text = text.replace('"args": {', inject)
    write("nested_args_rank0.json", text)


def sorted_keys():
    """kineto_2024_rank0.json re-saved with its keys sorted, one event per line (as
    json.dump(sort_keys=True) or `jq -S -c` would): "args" before "cat" and "name", "ts" last,
    metadata's "args" first too. The same model must come of it."""
    with open(os.path.join(HERE, "kineto_2024_rank0.json")) as f:
        doc = json.load(f)
    events = doc.pop("traceEvents")
    head = json.dumps(doc, sort_keys=True)[1:-1]
    body = ",\n".join(json.dumps(e, sort_keys=True) for e in events)
    write("sorted_keys_rank0.json", '{"traceEvents": [\n' + body + "\n], " + head + "}\n")


def bad_records():
    """Bad records that must be counted and skipped, never fatal: missing ts, missing dur,
    negative dur, NaN dur (a bare token), dur as text, an item that is not an object, an unknown
    category."""
    good = {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10.0, "dur": 5.0,
            "args": {"External id": 1}}
    ev = [good,
          {"ph": "X", "cat": "cpu_op", "name": "no_ts", "pid": 1, "tid": 1, "dur": 5.0},
          {"ph": "X", "cat": "cpu_op", "name": "no_dur", "pid": 1, "tid": 1, "ts": 20.0},
          {"ph": "X", "cat": "cpu_op", "name": "negative", "pid": 1, "tid": 1, "ts": 30.0, "dur": -4.0},
          {"ph": "X", "cat": "cpu_op", "name": "text_dur", "pid": 1, "tid": 1, "ts": 40.0, "dur": "soon"},
          {"ph": "X", "cat": "weird_cat", "name": "x", "pid": 1, "tid": 1, "ts": 50.0, "dur": 1.0}]
    text = pretty({"schemaVersion": 1}, ev)
    text = text.replace('"dur": "soon"', '"dur": NaN')  # what Python's json.dump writes for nan
    text = text.replace('  "traceEvents": [\n', '  "traceEvents": [\n  42,\n', 1)
    write("bad_records.json", text)


def broken():
    r = Rank()
    two_steps(r)
    full = pretty(header(0), r.ev)
    cut = full.index('"cat": "kernel"', len(full) // 2)
    write("truncated.json", full[:cut])
    write("not_json.txt", "this is not JSON\n")
    write("empty.json", "")


def skew():
    """Two ranks on two hosts whose clocks differ by exactly 1 s (rank 1's base is 1 s later, its
    event times are the same). Rank 1 runs 5 ms of extra GPU compute before its all-reduce in
    every step, so rank 0 waits 5 ms in each all-reduce and both end at the same instant. Rank 0
    also calls .item() once per step."""
    r0 = Rank(pid=100, main_tid=100)
    two_steps(r0, sync=True, stretch_ms=5.0, extra_ms=5.0)
    h0 = header(0)
    h0["baseTimeNanoseconds"] = 1727000000000000000
    write("skew_rank0.json", pretty(h0, r0.ev))
    r1 = Rank(pid=200, main_tid=200, device=1)
    two_steps(r1, late_ms=5.0)
    h1 = header(1)
    h1["baseTimeNanoseconds"] = 1727000001000000000
    write("skew_rank1.json", pretty(h1, r1.ev))


def serialized():
    """One hardware queue (CUDA_DEVICE_MAX_CONNECTIONS=1): in each of two 10 ms steps, two
    all-reduces of 2 ms on the comm stream; each time a compute kernel that was launched before
    the all-reduce, onto an idle compute stream, starts only when the all-reduce ends."""
    r = Rank()
    t = 0.0
    for step in (1, 2):
        r.cpu("ProfilerStep#%d" % step, t, 10000, cat="user_annotation")
        g = t + 500
        for k in range(2):
            base = g + k * 4000
            r.kernel("void at::native::elementwise_kernel<128, 2>(int)", base - 100, base, 400)
            # ready at base + 450 (launched before the all-reduce), held until it ends
            r.kernel("void gemm_kernel<bf16>(int)", base + 100, base + 2600, 1000)
            r.kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)", base + 200, base + 600, 2000,
                     stream=r.comm_stream, args=dict(allreduce_args(1048576), grid=[24, 1, 1]))
        t += 10000
    write("serialized_rank0.json", pretty(header(0, world=2), r.ev))


if __name__ == "__main__":
    new_format()
    old_format()
    display_ns()
    cpu_only()
    minified()
    nested_args()
    sorted_keys()
    bad_records()
    broken()
    skew()
    serialized()
