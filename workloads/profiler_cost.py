"""What the PyTorch profiler costs the CPU, measured with it on and off (one GPU).

    python3 workloads/profiler_cost.py --out DIR [--quick]

A profiled step is slower on the CPU than the same step unprofiled: every op is recorded, every
CUDA runtime call goes through CUPTI. When that makes the profiled steps launch-bound, a cause
the job really has (a sync, small buckets) costs nothing in the profiled timeline. This script
records the numbers needed to price findings in unprofiled terms, and to test any model of that:

* micro: CPU time per call of a launching op (x.add_(1): one aten op, one launch), a
  non-launching op (x.view(-1)) and an empty Python loop, unprofiled and under each profiler
  option set (OPTIONS), with a small exported trace per option set to count events per call;
* pairs: small training loops (WORKLOADS) run unprofiled (mean step over steps with no sync
  between them, and the median of steps synchronised at both ends) and then profiled with each
  option set (the step time under the profiler and the exported trace).

Writes DIR/cost.json (every number, the options, torch and device) and DIR/<workload>_<opts>
.json.gz traces. Nothing here changes a GPU setting.
"""

import argparse
import contextlib
import gzip
import json
import os
import shutil
import statistics
import time

os.environ["NCCL_NVLS_ENABLE"] = "0"  # mandatory on the shared GPU machines

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.profiler import ProfilerActivity, profile, schedule  # noqa: E402

from heldout import DeepMLP  # noqa: E402  (the deep MLP of the held-out runs)

OPTIONS = {
    "plain": {},
    "shapes": {"record_shapes": True},
    "stack": {"with_stack": True},
    "memory": {"profile_memory": True},
    "all": {"record_shapes": True, "with_stack": True, "profile_memory": True},
}

# name: (width, layers, batch, syncs) — syncs: "none", "tolist" (after every layer), "item"
# (loss.item() at the end of the step)
WORKLOADS = {
    "mlp_small": (128, 24, 8, "none"),
    "mlp_small_tolist": (128, 24, 8, "tolist"),
    "mlp_wide": (2048, 24, 512, "none"),
    "mlp_wide_tolist": (2048, 24, 512, "tolist"),
    "mlp_wide_item": (2048, 24, 512, "item"),
    "mlp_mid": (1024, 24, 256, "none"),
    "mlp_mid_tolist": (1024, 24, 256, "tolist"),
}


def gz(path):
    with open(path, "rb") as src, gzip.open(path + ".gz", "wb", 6) as dst:
        shutil.copyfileobj(src, dst)
    os.remove(path)


def loops(n, around=contextlib.nullcontext):
    """CPU time per call of each loop, each loop inside `around()` (a profiler, or nothing: then
    whatever records the process from outside, as nsys does)."""
    dev = torch.device("cuda", 0)
    x = torch.zeros(16, device=dev)
    res = {}
    for name, fn in (("add_", lambda: x.add_(1)), ("view", lambda: x.view(-1)),
                     ("python", lambda: None)):
        with around():
            for _ in range(200):
                fn()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            res[name] = (time.perf_counter() - t0) / n * 1e6
            torch.cuda.synchronize()
    return {"n": n, "per_call_us": res}


def micro(out, n, quick):
    dev = torch.device("cuda", 0)
    x = torch.zeros(16, device=dev)
    res = {"n": n, "unprofiled_us": loops(n)["per_call_us"], "profiled_us": {}}
    acts = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
    for oname, opts in OPTIONS.items():
        if quick and oname not in ("plain", "all"):
            continue
        res["profiled_us"][oname] = loops(
            n, lambda: profile(activities=acts, **opts))["per_call_us"]
        # A small trace per option set: how many events one call of each op leaves.
        path = os.path.join(out, f"micro_{oname}.json")
        with profile(activities=acts, **opts) as prof:
            for _ in range(100):
                x.add_(1)
            for _ in range(100):
                x.view(-1)
            torch.cuda.synchronize()
        prof.export_chrome_trace(path)
        gz(path)
    return res


def pair(out, name, width, layers, batch, syncs, steps, quick):
    dev = torch.device("cuda", 0)
    torch.manual_seed(1)
    model = DeepMLP(width, layers).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(batch, width, device=dev)
    y = torch.randint(0, 10, (batch,), device=dev)
    reads = []
    mid = (lambda h: reads.append(h.norm().tolist())) if syncs == "tolist" else None

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(x, mid)
        loss = F.cross_entropy(logits.float(), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if syncs == "item":
            reads.append(loss.item())
        del reads[:]

    for _ in range(5):
        step()
    torch.cuda.synchronize()
    # Unprofiled: steps back to back (as a job runs), and steps synchronised at both ends.
    runs = 30
    t0 = time.perf_counter()
    for _ in range(runs):
        step()
    torch.cuda.synchronize()
    free_ms = (time.perf_counter() - t0) / runs * 1e3
    synced = []
    for _ in range(10):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        synced.append((time.perf_counter() - t0) * 1e3)
    # The CPU alone: the time to issue one step with the GPU far ahead is not measurable when
    # the step syncs; for the sync-free workloads, the issue time of a step is the wall time of
    # the step's Python with nothing blocking (the queue is deep enough at these sizes).
    res = {"width": width, "layers": layers, "batch": batch, "syncs": syncs,
           "unprofiled_free_step_ms": free_ms, "unprofiled_synced_step_ms": statistics.median(synced),
           "profiled": {}}
    acts = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
    for oname, opts in OPTIONS.items():
        if quick and oname not in ("plain", "all"):
            continue
        path = os.path.join(out, f"{name}_{oname}.json")
        walls = []
        with profile(activities=acts, schedule=schedule(wait=1, warmup=2, active=steps),
                     on_trace_ready=lambda pr: pr.export_chrome_trace(path), **opts) as prof:
            for i in range(steps + 3):
                t0 = time.perf_counter()
                step()
                prof.step()
                walls.append((time.perf_counter() - t0) * 1e3)
        torch.cuda.synchronize()
        gz(path)
        active = walls[3:]
        res["profiled"][oname] = {"options": opts, "step_wall_ms": active,
                                  "mean_step_wall_ms": statistics.mean(active),
                                  "trace": os.path.basename(path) + ".gz"}
    return res


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--steps", type=int, default=5, help="profiled (active) steps")
    p.add_argument("--quick", action="store_true", help="option sets plain and all only")
    p.add_argument("--loops-only", action="store_true",
                   help="only the per-call loops, without the PyTorch profiler: for a run under "
                        "Nsight Systems (`nsys profile -t cuda,nvtx python3 profiler_cost.py "
                        "--loops-only`), whose cost is what the loops then measure")
    p.add_argument("--nvtx", action="store_true",
                   help="with --loops-only: inside torch.autograd.profiler.emit_nvtx() (an NVTX "
                        "range per op, as Nsight Systems captures of PyTorch are made)")
    a = p.parse_args()
    if a.loops_only:
        os.makedirs(a.out, exist_ok=True)
        with (torch.autograd.profiler.emit_nvtx() if a.nvtx else contextlib.nullcontext()):
            res = loops(20000)
        res.update({"nvtx": a.nvtx, "torch": torch.__version__})
        print(json.dumps(res), flush=True)
        with open(os.path.join(a.out, "loops%s.json" % ("_nvtx" if a.nvtx else "")), "w") as f:
            json.dump(res, f)
        return
    os.makedirs(a.out, exist_ok=True)
    dev = torch.device("cuda", 0)
    result = {"torch": torch.__version__, "device": torch.cuda.get_device_name(dev),
              "cpu": open("/proc/cpuinfo").read().split("model name")[1].split("\n")[0].strip(": "),
              "options": OPTIONS, "micro": micro(a.out, 20000, a.quick), "pairs": {}}
    print(json.dumps(result["micro"], indent=1), flush=True)
    for name, (w, layers, b, s) in WORKLOADS.items():
        t0 = time.perf_counter()
        result["pairs"][name] = pair(a.out, name, w, layers, b, s, a.steps, a.quick)
        r = result["pairs"][name]
        print(f"{name}: unprofiled free {r['unprofiled_free_step_ms']:.2f} ms, synced "
              f"{r['unprofiled_synced_step_ms']:.2f} ms; profiled " +
              ", ".join(f"{k} {v['mean_step_wall_ms']:.2f}" for k, v in r["profiled"].items()) +
              f" ({time.perf_counter() - t0:.0f} s)", flush=True)
    with open(os.path.join(a.out, "cost.json"), "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
