"""Held-out capture styles: a different model, loop and idioms from styles.py (one GPU).

    python3 workloads/heldout.py --case NAME --out DIR

Recorded to check that commdx's answers hold on runs its analyses were not developed against: a
convolutional image model (torchvision ResNet-18) or a deep MLP instead of a transformer, other
ways of synchronising (print(loss), .cpu(), .tolist(), stream synchronize), data loading named by
the user, host work outside any annotation. Writes trace_rank0.json.gz and meta.json (expected
finding, written before commdx sees the trace) into DIR.
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
import torchvision  # noqa: E402
from torch.profiler import ProfilerActivity, profile, record_function, schedule  # noqa: E402

CASES = {
    "conv_healthy_print": dict(
        model="conv", end="print", finding=None, marks="none",
        note="healthy ResNet-18, batch 128x3x128x128, GPU-bound; print(loss) every iteration "
             "(a sync), plain profile() without marks"),
    "conv_loader_workers": dict(
        model="conv", end="cpu", loader_ms=60.0, workers=1, finding="trace.data_stall",
        marks="sched",
        note="ResNet-18 fed by a DataLoader with 1 worker whose CPU transform takes ~60 ms per "
             "batch; loss.cpu() every iteration; profiler schedule"),
    "mlp_user_data_region": dict(
        model="mlp", end="tolist", data_region="data", loader_ms=30.0,
        finding="trace.data_stall", marks="step_n",
        note="deep MLP; each iteration record_function('step_N') holds a record_function('data') "
             "region of ~30 ms CPU work, then forward/backward; logits.argmax().tolist() at the "
             "end"),
    "mlp_tolist_mid": dict(
        model="mlp", mid_sync="tolist", finding="trace.host_sync", marks="step_n",
        note="deep MLP; after every layer in forward, h.norm().tolist() (a D2H read) — "
             "accidental synchronisation 24 times per step"),
    "mlp_launch_bound_stream_sync": dict(
        model="mlp_small", end="stream_sync", finding="trace.launch_bound", marks="none",
        note="small deep MLP (width 128, 24 layers, batch 8): microsecond kernels, the GPU waits "
             "for the CPU; torch.cuda.current_stream().synchronize() at the end of each iteration"),
    "conv_host_gap": dict(
        model="conv", host_ms=40.0, finding="trace.launch_bound", marks="sched",
        note="ResNet-18; ~40 ms of Python work (metrics, logging) between iterations outside any "
             "annotation and without a sync: the GPU idles waiting for the host"),
}


class DeepMLP(nn.Module):
    def __init__(self, width, layers):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(layers))
        self.out = nn.Linear(width, 10)

    def forward(self, x, mid=None):
        for lin in self.layers:
            x = F.relu(lin(x))
            if mid is not None:
                mid(x)
        return self.out(x)


class SlowImages(torch.utils.data.Dataset):
    def __init__(self, n, ms_per_sample):
        self.n, self.ms = n, ms_per_sample

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        t_end = time.perf_counter() + self.ms / 1000.0
        img = torch.rand(3, 128, 128)
        while time.perf_counter() < t_end:
            pass
        return img, i % 100


def spin(ms):
    t_end = time.perf_counter() + ms / 1000.0
    while time.perf_counter() < t_end:
        pass


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--case", required=True, choices=sorted(CASES))
    p.add_argument("--out", required=True)
    p.add_argument("--steps", type=int, default=10)
    a = p.parse_args()
    c = CASES[a.case]
    os.makedirs(a.out, exist_ok=True)
    dev = torch.device("cuda", 0)
    torch.manual_seed(1)
    kind = c["model"]
    if kind == "conv":
        model, batch = torchvision.models.resnet18(num_classes=100), 128
    elif kind == "mlp":
        model, batch = DeepMLP(2048, 24), 512
    else:
        model, batch = DeepMLP(128, 24), 8
    model = model.to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    loader = None
    if c.get("workers"):
        ds = SlowImages(100_000, c["loader_ms"] / batch)
        loader = iter(torch.utils.data.DataLoader(ds, batch_size=batch, num_workers=c["workers"],
                                                  pin_memory=True, persistent_workers=True))

    def get_batch():
        if loader is not None:
            x, y = next(loader)
            return x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
        if c.get("data_region"):
            with record_function(c["data_region"]):
                spin(c["loader_ms"])
        if kind == "conv":
            return (torch.rand(batch, 3, 128, 128, device=dev),
                    torch.randint(0, 100, (batch,), device=dev))
        width = 2048 if kind == "mlp" else 128
        return torch.randn(batch, width, device=dev), torch.randint(0, 10, (batch,), device=dev)

    reads = []
    mid = None
    if c.get("mid_sync") == "tolist":
        mid = lambda h: reads.append(h.norm().tolist())  # noqa: E731

    def one(i):
        x, y = get_batch()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(x, mid) if kind != "conv" else model(x)
        loss = F.cross_entropy(logits.float(), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        end = c.get("end")
        if end == "print":
            print(f"step {i} loss {loss}", flush=True)
        elif end == "cpu":
            reads.append(float(loss.detach().cpu()))
        elif end == "tolist":
            reads.append(logits.argmax(-1)[:4].tolist())
        elif end == "stream_sync":
            torch.cuda.current_stream().synchronize()
        if c.get("host_ms"):
            spin(c["host_ms"])

    def step(i):
        if c["marks"] == "step_n":
            with record_function(f"step_{i}"):
                one(i)
        else:
            one(i)

    for i in range(3):
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
    with open(trace, "rb") as src, gzip.open(trace + ".gz", "wb", 6) as dst:
        shutil.copyfileobj(src, dst)
    os.remove(trace)
    meta = {"scenario": "heldout_" + a.case, "workload": "heldout.py", "case": a.case,
            "injected": c["note"], "expected_finding": c["finding"], "expected_rank": None,
            "world_size": 1, "profiled_steps": a.steps, "timed_step_ms": timed,
            "median_step_ms": statistics.median(timed), "torch_version": torch.__version__,
            "device": torch.cuda.get_device_name(dev)}
    with open(os.path.join(a.out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(f"{a.case}: median step {meta['median_step_ms']:.2f} ms", flush=True)


if __name__ == "__main__":
    main()
