"""Second round of held-out one-GPU captures: idioms none of the other workloads use.

    python3 workloads/heldout2.py --case NAME --out DIR

A transformer encoder (or a tiny MLP) trained with torch.compile, CUDA graphs made by
torch.compile's "reduce-overhead" mode, a checkpoint written every step, gradient clipping that
reads the norm back every step. Each case's expected finding is in CASES, written before commdx
read any of these traces; meta.json carries it with the trace (trace_rank0.json.gz) into DIR.
"""

import argparse
import gzip
import json
import os
import shutil
import statistics
import time

os.environ["NCCL_NVLS_ENABLE"] = "0"  # mandatory on the shared GPU machines

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.profiler import ProfilerActivity, profile, record_function, schedule  # noqa: E402

CASES = {
    "compile_healthy": dict(
        model="encoder", compile="default", marks="train_step", end="item", finding=None,
        note="transformer encoder (6 layers, d 1024, batch 32x256, bf16 autocast) compiled with "
             "torch.compile (default mode), fused AdamW, loss.item() at the end of every "
             "iteration for logging; GPU-bound; plain profile() with record_function"
             "('train_step')"),
    "compile_graphs_tiny": dict(
        model="tiny", compile="reduce-overhead", marks="sched", end=None,
        finding="trace.launch_bound",
        note="tiny MLP (width 128, 24 layers, batch 8) whose forward and backward torch.compile "
             "runs as CUDA graphs (mode='reduce-overhead'); the optimizer (foreach SGD) and the "
             "Python loop still launch from the host, and the graphs hold microseconds of GPU "
             "work: the GPU waits for the host between them"),
    "checkpoint_each_step": dict(
        model="encoder", compile=None, marks="sched", end=None, checkpoint=True,
        finding="trace.host_gap",
        note="transformer encoder, eager, GPU-bound on its own; torch.save(model.state_dict()) "
             "to a file after every iteration (~100 MB of parameters copied to the host and "
             "pickled to disk outside any profiled region): the GPU idles while the host writes"),
    "clip_norm_item": dict(
        model="encoder", compile=None, marks="sched", end=None, clip_item=True, finding=None,
        note="transformer encoder, eager, GPU-bound; clip_grad_norm_(1.0) and .item() of the "
             "returned norm every iteration (a sync between backward and the optimizer, as "
             "loggers do): cheap, the GPU stays busy"),
}


class TinyMLP(nn.Module):
    def __init__(self, width=128, layers=24):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(layers))
        self.out = nn.Linear(width, 10)

    def forward(self, x):
        for lin in self.layers:
            x = F.relu(lin(x))
        return self.out(x)


class Encoder(nn.Module):
    def __init__(self, d=1024, layers=6):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d, 16, 4 * d, batch_first=True, dropout=0.0)
        self.body = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(d, 1000)

    def forward(self, x):
        return self.head(self.body(x).mean(dim=1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--case", required=True, choices=sorted(CASES))
    p.add_argument("--out", required=True)
    p.add_argument("--steps", type=int, default=8)
    a = p.parse_args()
    c = CASES[a.case]
    os.makedirs(a.out, exist_ok=True)
    dev = torch.device("cuda", 0)
    torch.manual_seed(1)
    if c["model"] == "tiny":
        model, shape, classes = TinyMLP().to(dev), (8, 128), 10
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, foreach=True)
    else:
        model, shape, classes = Encoder().to(dev), (32, 256, 1024), 1000
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    fwd_bwd_model = model
    if c["compile"]:
        fwd_bwd_model = torch.compile(model, mode=c["compile"])
    x = torch.randn(*shape, device=dev)
    y = torch.randint(0, classes, (shape[0],), device=dev)
    ckpt = os.path.join(a.out, "ckpt.pt")
    logged = []

    def one(i):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = fwd_bwd_model(x)
        loss = F.cross_entropy(logits.float(), y)
        loss.backward()
        if c.get("clip_item"):
            logged.append(torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item())
        opt.step()
        opt.zero_grad(set_to_none=True)
        if c.get("end") == "item":
            logged.append(loss.item())
        if c.get("checkpoint"):
            torch.save(model.state_dict(), ckpt)

    def step(i):
        if c["marks"] == "train_step":
            with record_function("train_step"):
                one(i)
        else:
            one(i)

    for i in range(6):  # compiles (and records the graphs) before anything is timed
        step(i)
    torch.cuda.synchronize()
    timed = []
    for i in range(8):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        step(i)
        torch.cuda.synchronize()
        timed.append((time.perf_counter() - t0) * 1e3)

    trace = os.path.join(a.out, "trace_rank0.json")
    acts = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
    if c["marks"] == "sched":
        with profile(activities=acts, schedule=schedule(wait=0, warmup=1, active=a.steps),
                     on_trace_ready=lambda pr: pr.export_chrome_trace(trace)) as prof:
            for i in range(a.steps + 1):
                step(i)
                prof.step()
    else:
        with profile(activities=acts) as prof:
            for i in range(a.steps):
                step(i)
        prof.export_chrome_trace(trace)
    torch.cuda.synchronize()
    if os.path.exists(ckpt):
        os.remove(ckpt)
    with open(trace, "rb") as src, gzip.open(trace + ".gz", "wb", 6) as dst:
        shutil.copyfileobj(src, dst)
    os.remove(trace)
    meta = {"scenario": "heldout2_" + a.case, "workload": "heldout2.py", "case": a.case,
            "injected": c["note"], "expected_finding": c["finding"], "expected_rank": None,
            "world_size": 1, "profiled_steps": a.steps, "timed_step_ms": timed,
            "median_step_ms": statistics.median(timed), "torch_version": torch.__version__,
            "device": torch.cuda.get_device_name(dev)}
    with open(os.path.join(a.out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(f"{a.case}: median step {meta['median_step_ms']:.2f} ms", flush=True)


if __name__ == "__main__":
    main()
