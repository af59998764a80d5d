"""Capture styles: one training loop recorded the ways users record theirs (one GPU).

    python3 workloads/styles.py --style NAME --out DIR            # single process, no torch.distributed
    torchrun --nproc_per_node=1 workloads/styles.py --style NAME --out DIR --ddp

The project's other workloads (common.py) all profile the same way: a profiler schedule with
ProfilerStep marks, a region named 'dataloader', every rank's file. Users record differently. Each
style here changes how the run is recorded or adds one real cause, and writes into DIR:
trace_rank0.json[.gz] and meta.json with the finding commdx is expected to name (written before
commdx has seen the trace). See workloads/run_styles.sh for the list that makes examples/styles_*.
"""

import argparse
import contextlib
import gzip
import json
import os
import shutil
import socket
import statistics
import sys
import time

os.environ["NCCL_NVLS_ENABLE"] = "0"  # mandatory on the shared GPU machines

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.profiler import ProfilerActivity, profile, record_function, schedule  # noqa: E402

# style -> how it is recorded, what is injected, what commdx should say.
#   marks:  "sched" = profiler schedule + prof.step() (ProfilerStep#N), "windows" = the same
#           schedule repeated twice with tensorboard_trace_handler (a gzip'd file per active
#           window, "<host>_<pid>.<ms>.pt.trace.json.gz"), "iter" = the user's own
#           record_function("iteration_N"), "train_step" = record_function("train_step"),
#           "none" = a plain `with profile():` around the loop and nothing else
#   sync:   what ends each iteration: None, "item" (loss.item() for logging), "sync"
#           (torch.cuda.synchronize() for timing)
#   loader: None (batches made on the GPU), "slow" (a real DataLoader whose dataset takes
#           loader_ms per batch), "slow_workers" (the same with 2 workers, still too slow),
#           "torchrec" (a '## load_batch ##' region that takes loader_ms)
STYLES = {
    "healthy_iter_marks": dict(
        marks="iter", finding=None,
        note="healthy, GPU-bound; plain profile() with record_function('iteration_N') per step"),
    "healthy_no_marks": dict(
        marks="none", finding=None,
        note="healthy, GPU-bound; plain profile() around the loop, no step marks at all "
             "(Optimizer.step#AdamW.step is the only repeating region)"),
    "healthy_item_end": dict(
        marks="train_step", sync="item", finding=None,
        note="healthy, GPU-bound; loss.item() at the end of every iteration (logging), "
             "record_function('train_step') per step"),
    "healthy_sync_end": dict(
        marks="sched", sync="sync", finding=None, memory=True,
        note="healthy, GPU-bound; torch.cuda.synchronize() at the end of every iteration "
             "(timing); profiler schedule; profile_memory=True (memory events)"),
    "slow_loader_item_end": dict(
        marks="none", sync="item", loader="slow", finding="trace.data_stall",
        note="a real torch DataLoader (num_workers=0) whose dataset takes ~40 ms per batch; "
             "loss.item() at the end of every iteration; plain profile(), no step marks"),
    "slow_loader_sched": dict(
        marks="sched", loader="slow", finding="trace.data_stall", shapes=True,
        note="a real torch DataLoader (num_workers=0) whose dataset takes ~40 ms per batch; "
             "profiler schedule; record_shapes=True"),
    "slow_loader_windows": dict(
        marks="windows", loader="slow", finding="trace.data_stall",
        note="a real torch DataLoader (num_workers=0) whose dataset takes ~40 ms per batch; "
             "profiler schedule with repeat=2 and tensorboard_trace_handler: two trace files "
             "of one process, half the profiled steps each; not distributed (no rank written)"),
    "slow_loader_workers": dict(
        marks="iter", sync="item", loader="slow_workers", finding="trace.data_stall",
        note="a real torch DataLoader with 2 worker processes, each batch ~160 ms of work "
             "(~80 ms per batch with both workers), loss.item() at the end of every iteration"),
    "torchrec_load_batch": dict(
        marks="sched", sync="item", loader="torchrec", finding="trace.data_stall",
        note="TorchRec-style '## load_batch ##' region taking ~40 ms per step on the CPU, "
             "loss.item() at the end of every iteration"),
    "item_mid_forward": dict(
        marks="iter", sync=None, item_every_block=True, finding="trace.host_sync",
        note=".item() of an activation statistic after every block in forward (real "
             "accidental synchronisation); no sync at the end of the iteration"),
    "cuda_graph": dict(
        marks="sched", graph=True, finding=None,
        note="healthy: forward, backward and the optimizer captured once as a CUDA graph and "
             "replayed each step (cudaGraphLaunch); the GPU is not waiting for the CPU"),
    "launch_bound_tiny": dict(
        marks="iter", tiny=True, finding="trace.launch_bound",
        note="a tiny model (dim 64, 16 blocks, batch 2 x 32 tokens): kernels of a few "
             "microseconds each, the GPU waits for the CPU to launch them"),
    "healthy_stack": dict(
        marks="train_step", finding=None, stack=True,
        note="healthy, GPU-bound; with_stack=True (python_function events), "
             "record_function('train_step')"),
}


class Net(nn.Module):
    """Embedding, `layers` pre-norm transformer encoder blocks, head."""

    def __init__(self, vocab, dim, heads, layers):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(
            nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0, batch_first=True,
                                       norm_first=True) for _ in range(layers))
        self.head = nn.Linear(dim, vocab)

    def forward(self, x, hook=None):
        h = self.emb(x)
        for blk in self.blocks:
            h = blk(h)
            if hook is not None:
                hook(h)
        return self.head(h)


class SlowTokens(torch.utils.data.Dataset):
    """Random token sequences; each sample costs `ms_per_sample` of CPU time (decoding,
    augmentation), spent in a busy loop so that it shows as CPU work, not sleep."""

    def __init__(self, n, seq, vocab, ms_per_sample):
        self.n, self.seq, self.vocab, self.ms = n, seq, vocab, ms_per_sample

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        t_end = time.perf_counter() + self.ms / 1000.0
        g = torch.Generator().manual_seed(i)
        x = torch.randint(0, self.vocab, (self.seq + 1,), generator=g)
        while time.perf_counter() < t_end:
            pass
        return x


def busy(ms):
    t_end = time.perf_counter() + ms / 1000.0
    while time.perf_counter() < t_end:
        pass


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--style", required=True, choices=sorted(STYLES))
    p.add_argument("--out", required=True)
    p.add_argument("--ddp", action="store_true", help="DDP (start under torchrun)")
    p.add_argument("--steps", type=int, default=8, help="profiled iterations")
    p.add_argument("--loader-ms", type=float, default=40.0)
    p.add_argument("--nsys", action="store_true",
                   help="no torch.profiler: NVTX ranges (emit_nvtx) between "
                        "cudaProfilerStart/Stop, for `nsys profile --capture-range=cudaProfilerApi`")
    p.add_argument("--no-emit-nvtx", action="store_true",
                   help="with --nsys: no emit_nvtx in the script (for `nsys profile "
                        "--pytorch=autograd-nvtx`, or a capture with no operator ranges)")
    a = p.parse_args()
    st = STYLES[a.style]
    os.makedirs(a.out, exist_ok=True)
    dev = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
    torch.cuda.set_device(dev)
    rank, world = 0, 1
    if a.ddp:
        dist.init_process_group("nccl", device_id=dev)
        rank, world = dist.get_rank(), dist.get_world_size()

    if st.get("tiny"):
        vocab, dim, heads, layers, batch, seq = 512, 64, 4, 16, 2, 32
    else:
        vocab, dim, heads, layers, batch, seq = 8192, 1024, 16, 6, 16, 512
    torch.manual_seed(0)
    model = Net(vocab, dim, heads, layers).to(dev)
    net = model
    if a.ddp:
        net = torch.nn.parallel.DistributedDataParallel(model, device_ids=[dev.index])
    graph = st.get("graph", False)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=not graph, capturable=graph)

    loader_kind = st.get("loader")
    batches = None
    if loader_kind in ("slow", "slow_workers"):
        workers = 2 if loader_kind == "slow_workers" else 0
        per_batch_ms = a.loader_ms * (4 if workers else 1)
        ds = SlowTokens(10_000, seq, vocab, per_batch_ms / batch)
        dl = torch.utils.data.DataLoader(ds, batch_size=batch, num_workers=workers,
                                         pin_memory=True, persistent_workers=workers > 0)
        batches = iter(dl)

    def next_batch(i):
        if batches is not None:
            t = next(batches).to(dev, non_blocking=True)
        elif loader_kind == "torchrec":
            with record_function("## load_batch ##"):
                busy(a.loader_ms)
                t = torch.randint(0, vocab, (batch, seq + 1)).pin_memory().to(dev, non_blocking=True)
        else:
            t = torch.randint(0, vocab, (batch, seq + 1), device=dev)
        return t[:, :-1], t[:, 1:]

    stats = []
    hook = None
    if st.get("item_every_block"):
        hook = lambda h: stats.append(h.detach().float().abs().mean().item())  # noqa: E731

    def loss_of(x, y):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = net(x, hook)
        return F.cross_entropy(logits.float().reshape(-1, vocab), y.reshape(-1))

    step_graph = None
    if graph:
        sx = torch.randint(0, vocab, (batch, seq), device=dev)
        sy = torch.randint(0, vocab, (batch, seq), device=dev)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                opt.zero_grad(set_to_none=True)
                loss_of(sx, sy).backward()
                opt.step()
        torch.cuda.current_stream().wait_stream(s)
        step_graph = torch.cuda.CUDAGraph()
        opt.zero_grad(set_to_none=True)
        with torch.cuda.graph(step_graph):
            static_loss = loss_of(sx, sy)
            static_loss.backward()
            opt.step()

    sync = st.get("sync")

    def one_step(i):
        x, y = next_batch(i)
        if step_graph is not None:
            sx.copy_(x)
            sy.copy_(y)
            step_graph.replay()
            loss = static_loss
        else:
            loss = loss_of(x, y)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        if sync == "item":
            stats.append(loss.item())
        elif sync == "sync":
            torch.cuda.synchronize()

    def marked_step(i):
        marks = st["marks"]
        if marks == "iter":
            with record_function(f"iteration_{i}"):
                one_step(i)
        elif marks == "train_step":
            with record_function("train_step"):
                one_step(i)
        else:
            one_step(i)

    # warm-up, then timed steps (synchronised, not profiled) for the ground truth
    for i in range(3):
        marked_step(i)
    torch.cuda.synchronize()
    timed = []
    for i in range(10):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        marked_step(i)
        torch.cuda.synchronize()
        timed.append((time.perf_counter() - t0) * 1e3)

    trace = os.path.join(a.out, f"trace_rank{rank}.json")
    kw = dict(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
              record_shapes=st.get("shapes", False), with_stack=st.get("stack", False),
              profile_memory=st.get("memory", False))
    t0 = time.perf_counter()
    if a.nsys:
        torch.cuda.profiler.start()
        with contextlib.nullcontext() if a.no_emit_nvtx else torch.autograd.profiler.emit_nvtx():
            for i in range(a.steps):
                marked_step(i)
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
        trace = None
    elif st["marks"] == "windows":
        half = max(1, a.steps // 2)
        with profile(schedule=schedule(wait=1, warmup=1, active=half, repeat=2),
                     on_trace_ready=torch.profiler.tensorboard_trace_handler(a.out,
                                                                             use_gzip=True),
                     **kw) as prof:
            for i in range(2 * (half + 2)):
                marked_step(i)
                prof.step()
        trace = None
    elif st["marks"] == "sched":
        with profile(schedule=schedule(wait=1, warmup=1, active=a.steps, repeat=1),
                     on_trace_ready=lambda pr: pr.export_chrome_trace(trace), **kw) as prof:
            for i in range(a.steps + 2):
                marked_step(i)
                prof.step()
    else:
        with profile(**kw) as prof:
            for i in range(a.steps):
                marked_step(i)
        prof.export_chrome_trace(trace)
    torch.cuda.synchronize()
    prof_ms = (time.perf_counter() - t0) * 1e3
    if trace is not None:
        with open(trace, "rb") as src, gzip.open(trace + ".gz", "wb", 6) as dst:
            shutil.copyfileobj(src, dst)
        os.remove(trace)

    if rank == 0:
        meta = {
            "scenario": "styles_" + a.style, "workload": "styles.py", "style": a.style,
            "injected": st["note"], "expected_finding": st["finding"], "expected_rank": None,
            "recorded_with": {k: st.get(k) for k in ("marks", "sync", "loader", "graph",
                                                     "shapes", "stack", "memory")},
            "ddp": a.ddp, "world_size": world, "profiled_steps": a.steps,
            "timed_step_ms": timed, "median_step_ms": statistics.median(timed),
            "profiled_total_ms": prof_ms, "torch_version": torch.__version__,
            "device": torch.cuda.get_device_name(dev), "host": socket.gethostname(),
            "model": dict(vocab=vocab, dim=dim, heads=heads, layers=layers, batch=batch, seq=seq),
        }
        with open(os.path.join(a.out, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
        print(f"{a.style}: median step {meta['median_step_ms']:.2f} ms", flush=True)
    if a.ddp:
        dist.destroy_process_group()
    if batches is not None:
        del batches
    sys.stdout.flush()


if __name__ == "__main__":
    main()
