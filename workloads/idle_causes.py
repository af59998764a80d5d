"""Why the GPU idles on one GPU: four loops, each recorded three ways (issue 38's cases).

    python3 workloads/idle_causes.py --case NAME --record sched|plain|nsys --out DIR

Cases (CASES below): boolean-mask indexing on a launch-bound small-kernel model, allocator churn
(a new tensor size and torch.cuda.empty_cache() every step), host work between steps outside any
profiled op, a CUDA graph captured inside the profiled window and then replayed, and a GPU-bound
loop sharing its GPU with a second process (shared_gpu; gpu_bound_alone is its twin alone).
Recording styles:
  sched  profiler schedule (wait=1, warmup=1, active=N) and prof.step(): ProfilerStep#N marks
  plain  `with profile():` around the loop, the user's own record_function("iteration_N") marks
  nsys   no torch.profiler: emit_nvtx() ranges between cudaProfilerStart/Stop, for
         `nsys profile -t cuda,nvtx --capture-range=cudaProfilerApi` (the same iteration marks,
         now NVTX ranges)
Writes into DIR: trace_rank0.json.gz (not for nsys) and meta.json, written before the profiled
steps run (nsys ends the process at cudaProfilerStop), with the finding commdx is expected to
name and three step times measured without a profiler: each step synchronised (`timed_step_ms`),
ten steps back to back with one synchronisation (`free_running_step_ms`, what the profiled loop
does), and the same loop without the cause (`without_cause`), the ground truth of what fixing
the cause saves.
"""

import argparse
import atexit
import contextlib
import gzip
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time

os.environ["NCCL_NVLS_ENABLE"] = "0"  # mandatory on the shared GPU machines

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.profiler import ProfilerActivity, profile, record_function, schedule  # noqa: E402

CASES = {
    "mask_index_small": dict(
        model=("mlp", 256, 24, 32), opt="sgd", finding="trace.launch_bound", steps=6,
        note="small deep MLP (width 256, 24 layers, batch 32): microsecond kernels, the GPU waits "
             "for the CPU to launch them; after every second layer a boolean-mask index "
             "h[h > t] (aten::nonzero: a device-to-host read of the count, a sync) - 12 in "
             "forward and 12 more in their backward (index_put_ with the mask), 24 syncs per "
             "step. The syncs are cheap: the host is behind the GPU with or without them",
        without="no mask indexing"),
    "alloc_churn": dict(
        model=("mlp", 4096, 12, None), opt="sgd", finding="trace.allocator_churn", steps=8,
        note="MLP (width 4096, 12 layers, bf16 autocast) fed a batch of a new row count every "
             "step (4096 + 128*i: dynamic shapes) and torch.cuda.empty_cache() at the end of "
             "every step: every activation and gradient is a fresh cudaMalloc, the cache is "
             "handed back with cudaFree (which waits for the device) - the host sits in the "
             "allocator while the GPU idles",
        without="no torch.cuda.empty_cache() in the loop (same changing shapes)"),
    "host_gap": dict(
        model=("mlp", 4096, 8, 4096), opt="adamw", finding="trace.host_gap", steps=8,
        note="MLP (width 4096, 8 layers, batch 4096, bf16 autocast, fused AdamW), GPU-bound "
             "on its own; between iterations 12 ms of host work outside any profiled op and "
             "without a sync (6 ms of Python computing metrics, then a 6 ms time.sleep as for "
             "writing a log line or a checkpoint shard): the host falls behind the GPU",
        without="no host work between iterations"),
    "cuda_graph_capture": dict(
        model=("mlp", 4096, 8, 4096), opt="adamw_capturable", finding=None, steps=8,
        note="healthy: forward, backward and AdamW (capturable) captured as one CUDA graph "
             "(torch.cuda.graph) INSIDE the profiled window - in its first profiled step - "
             "then replayed every step. The captured kernels are recorded but not run during "
             "the capture; the replays keep the GPU busy. Not launch-bound",
        without="the same step run eagerly, no graph"),
    "shared_gpu": dict(
        model=("mlp", 4096, 8, 4096), opt="adamw", finding="trace.shared_gpu", steps=8,
        note="MLP (width 4096, 8 layers, batch 4096, bf16 autocast, fused AdamW), GPU-bound on "
             "its own, while a second process (gpu_hog.py --mode big, started by this script, "
             "not profiled) runs 8192x8192 bf16 matmuls back to back on the same GPU: the GPU is time-sliced "
             "between the two, so this process's queued kernels wait for work its trace does "
             "not record",
        without="the GPU to itself (no second process)"),
    "gpu_bound_alone": dict(
        model=("mlp", 4096, 8, 4096), opt="adamw", finding=None, steps=8,
        note="healthy twin of shared_gpu: the same GPU-bound MLP with the GPU to itself",
        without="the same loop (nothing injected)"),
}

class DeepMLP(nn.Module):
    def __init__(self, width, layers):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(layers))
        self.out = nn.Linear(width, 16)

    def forward(self, x, mid=None):
        for k, lin in enumerate(self.layers):
            x = F.relu(lin(x))
            if mid is not None:
                x = mid(k, x)
        return self.out(x)


def spin(ms):
    t_end = time.perf_counter() + ms / 1000.0
    acc = 0.0
    while time.perf_counter() < t_end:
        acc += 1.0
    return acc


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--case", required=True, choices=sorted(CASES))
    p.add_argument("--record", required=True, choices=("sched", "plain", "nsys"))
    p.add_argument("--out", required=True)
    p.add_argument("--steps", type=int, default=None, help="profiled iterations")
    p.add_argument("--device", default="cuda",
                   help="cpu: a smoke test of the loops and files where no GPU is (the numbers "
                        "mean nothing; not for the CUDA graph case, nor for --record nsys)")
    a = p.parse_args()
    c = CASES[a.case]
    steps = a.steps or c["steps"]
    os.makedirs(a.out, exist_ok=True)
    on_gpu = a.device == "cuda"
    dev = torch.device("cuda", 0) if on_gpu else torch.device("cpu")
    if on_gpu:
        torch.cuda.set_device(dev)
    elif a.case == "cuda_graph_capture" or a.record == "nsys":
        p.error("--device cpu: not for the CUDA graph case nor for --record nsys")

    def sync():
        if on_gpu:
            torch.cuda.synchronize()
    torch.manual_seed(0)
    _, width, layers, batch = c["model"]
    if not on_gpu:  # a smoke test: small enough for a laptop's cores
        width, batch = min(width, 128), batch and min(batch, 64)
    model = DeepMLP(width, layers).to(dev)
    graph_case = a.case == "cuda_graph_capture"
    if c["opt"] == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=not graph_case,
                                capturable=graph_case)

    # What the cause does to one iteration; `cause` False gives the loop without it.
    state = {"i": 0, "cause": True}

    def mask_mid(k, h):
        if k % 2 == 1:  # 12 of the 24 layers
            sel = h[h > 0.05]  # aten::nonzero: the count is read back by the host
            h = h + sel.sum() * 1e-9
        return h

    mid = mask_mid if a.case == "mask_index_small" else None

    def make_batch():
        n = batch
        if a.case == "alloc_churn":
            n = (4096 + 128 * state["i"]) if on_gpu else 64 + state["i"]  # never seen before
        x = torch.randn(n, width, device=dev)
        y = torch.randint(0, 16, (n,), device=dev)
        return x, y

    def loss_of(x, y):
        with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=width >= 1024):
            logits = model(x, mid if state["cause"] else None)
        return F.cross_entropy(logits.float(), y)

    def eager_step():
        x, y = make_batch()
        loss = loss_of(x, y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if a.case == "alloc_churn" and state["cause"] and on_gpu:
            torch.cuda.empty_cache()
        state["i"] += 1

    # CUDA graph case: static inputs, warm-up on a side stream (as the PyTorch docs do), then the
    # capture happens where the profiled loop calls capture().
    g = {"graph": None}
    sx = torch.randn(batch or 1, width, device=dev)
    sy = torch.randint(0, 16, (batch or 1,), device=dev)

    def graph_warmup():
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                opt.zero_grad(set_to_none=True)
                loss_of(sx, sy).backward()
                opt.step()
        torch.cuda.current_stream().wait_stream(s)

    def capture():
        gr = torch.cuda.CUDAGraph()
        opt.zero_grad(set_to_none=True)
        with torch.cuda.graph(gr):
            static_loss = loss_of(sx, sy)
            static_loss.backward()
            opt.step()
        g["graph"] = gr

    def graph_step():
        x, y = make_batch()
        sx.copy_(x)
        sy.copy_(y)
        if g["graph"] is None:
            capture()
        g["graph"].replay()
        state["i"] += 1

    hog = {"proc": None}

    def set_hog(on):
        if a.case != "shared_gpu" or not on_gpu:
            return
        if on and hog["proc"] is None:
            hog_py = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpu_hog.py")
            hog["proc"] = subprocess.Popen([sys.executable, hog_py, "--mode", "big"],
                                           stdout=subprocess.PIPE, text=True)
            atexit.register(hog["proc"].kill)
            assert hog["proc"].stdout.readline().strip() == "ready"
        elif not on and hog["proc"] is not None:
            hog["proc"].kill()
            hog["proc"].wait()
            hog["proc"] = None

    def host_work():
        if a.case == "host_gap" and state["cause"]:
            spin(6.0)          # metrics, formatting a log line
            time.sleep(0.006)  # writing it, or a checkpoint shard

    def one_step(i):
        if graph_case and state["cause"]:
            graph_step()
        else:
            eager_step()

    def iteration(i):
        with record_function(f"iteration_{i}"):
            one_step(i)

    # --- ground truth, no profiler: warm-up, synchronised steps, free-running steps, both with
    # and without the cause (the CUDA graph case: graph replay vs the eager step)
    def measure(with_cause):
        state["cause"] = with_cause
        set_hog(with_cause)
        for i in range(3):
            one_step(i)
            host_work()
        sync()
        timed = []
        for i in range(10):
            sync()
            t0 = time.perf_counter()
            one_step(i)
            host_work()
            sync()
            timed.append((time.perf_counter() - t0) * 1e3)
        sync()
        t0 = time.perf_counter()
        for i in range(10):
            one_step(i)
            host_work()
        sync()
        free = (time.perf_counter() - t0) * 1e3 / 10
        return timed, free

    if graph_case:
        graph_warmup()
        eager_timed, eager_free = measure(False)
        opt.zero_grad(set_to_none=True)
        timed, free = measure(True)
        g["graph"] = None  # captured again inside the profiled window
        sync()
        without = dict(timed_step_ms=eager_timed, median_step_ms=statistics.median(eager_timed),
                       free_running_step_ms=eager_free)
    else:
        w_timed, w_free = measure(False)
        without = dict(timed_step_ms=w_timed, median_step_ms=statistics.median(w_timed),
                       free_running_step_ms=w_free)
        timed, free = measure(True)
    without["what"] = c["without"]
    state["cause"] = True

    recorded = {"profiler": "nsys" if a.record == "nsys" else "kineto",
                "marks": "sched" if a.record == "sched" else "iter",
                "nvtx": "emit_nvtx" if a.record == "nsys" else None}
    meta = {"scenario": f"{a.case}_{a.record}", "workload": "idle_causes.py", "case": a.case,
            "style": a.record, "injected": c["note"], "expected_finding": c["finding"],
            "expected_rank": None, "recorded_with": recorded, "world_size": 1,
            "profiled_steps": steps, "timed_step_ms": timed,
            "median_step_ms": statistics.median(timed), "free_running_step_ms": free,
            "without_cause": without, "torch_version": torch.__version__,
            "device": torch.cuda.get_device_name(dev) if on_gpu else "cpu",
            "host": socket.gethostname(),
            "model": dict(kind="mlp", width=width, layers=layers, batch=batch,
                          optimizer=c["opt"])}
    meta_path = os.path.join(a.out, "meta.json")

    def write_meta():
        with open(meta_path, "w") as f:
            json.dump(meta, f, indent=1)
            f.write("\n")

    write_meta()
    print(f"{a.case} ({a.record}): median step {meta['median_step_ms']:.2f} ms, free-running "
          f"{free:.2f} ms; without the cause ({c['without']}): median "
          f"{without['median_step_ms']:.2f} ms, free-running "
          f"{without['free_running_step_ms']:.2f} ms", flush=True)

    trace = os.path.join(a.out, "trace_rank0.json")
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if on_gpu else [])
    t0 = time.perf_counter()
    if a.record == "nsys":
        torch.cuda.profiler.start()
        with torch.autograd.profiler.emit_nvtx():
            for i in range(steps):
                iteration(i)
                host_work()
        sync()
        torch.cuda.profiler.stop()
        trace = None
    elif a.record == "sched":
        # ProfilerStep#0 waits, #1 warms up, #2.. are recorded; the graph is captured in #2.
        with profile(activities=acts, schedule=schedule(wait=1, warmup=1, active=steps),
                     on_trace_ready=lambda pr: pr.export_chrome_trace(trace)) as prof:
            for i in range(steps + 2):
                if graph_case and i < 2:
                    state["cause"] = False  # eager until the first recorded step
                    one_step(i)
                    state["cause"] = True
                else:
                    one_step(i)
                host_work()
                prof.step()
    else:
        with profile(activities=acts) as prof:
            for i in range(steps):
                iteration(i)
                host_work()
        prof.export_chrome_trace(trace)
    sync()
    meta["profiled_total_ms"] = (time.perf_counter() - t0) * 1e3
    set_hog(False)
    if trace is not None:
        with open(trace, "rb") as src, gzip.open(trace + ".gz", "wb", 9) as dst:
            shutil.copyfileobj(src, dst)
        os.remove(trace)
    write_meta()


if __name__ == "__main__":
    main()
