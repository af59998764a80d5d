"""Gradient all-reduce through PyTorch symmetric memory instead of NCCL kernels (two ranks).

    torchrun --nproc_per_node=2 --no-python workloads/as_node.sh \
        python3 workloads/symm_mem_allreduce.py --record sched|plain --out DIR

torch.distributed._symmetric_memory: every rank allocates the same buffer (symm_mem.empty), the
ranks exchange handles (rendezvous), and the all-reduce is a PyTorch CUDA kernel reading and
writing the peers' buffers directly (two_shot_all_reduce_ for the gradients, one_shot_all_reduce
for the logged loss), not an NCCL kernel. NVLink multicast stays off
(TORCH_SYMM_MEM_DISABLE_MULTICAST=1), so the multimem kernels are not used. Symmetric memory
needs peer access between the ranks' GPUs; here both ranks share GPU 0 (as_node.sh), which
TORCH_SYMM_MEM_ALLOW_OVERLAPPING_DEVICES=1 is meant to allow. Writes trace_rank{r}.json.gz,
meta.json (rank 0), and prints the error if symmetric memory cannot be set up.
"""

import argparse
import datetime
import gzip
import json
import os
import shutil
import socket
import statistics
import sys
import time

os.environ["NCCL_NVLS_ENABLE"] = "0"
os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
os.environ["NVSHMEM_DISABLE_NVLS"] = "1"
os.environ.setdefault("TORCH_SYMM_MEM_ALLOW_OVERLAPPING_DEVICES", "1")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.profiler import ProfilerActivity, profile, record_function, schedule  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--record", choices=("sched", "plain"), default="sched")
    p.add_argument("--out", required=True)
    p.add_argument("--steps", type=int, default=4)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    dev = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", device_id=dev, timeout=datetime.timedelta(seconds=90))
    rank, world = dist.get_rank(), dist.get_world_size()
    import torch.distributed._symmetric_memory as symm_mem
    group_name = dist.group.WORLD.group_name

    torch.manual_seed(0)
    width, layers, batch = 2048, 4, 2048
    model = nn.Sequential(*[m for _ in range(layers) for m in (nn.Linear(width, width), nn.ReLU())],
                          nn.Linear(width, 16)).to(dev)
    params = list(model.parameters())
    n = sum(q.numel() for q in params)
    pad = 4096 * world
    n_pad = (n + pad - 1) // pad * pad
    opt = torch.optim.AdamW(params, lr=1e-4, fused=True)
    backend = os.environ.get("SYMM_MEM_BACKEND", "CUDA")  # NVSHMEM needs distinct GPUs
    try:
        if hasattr(symm_mem, "set_backend"):
            symm_mem.set_backend(backend)
        enable = getattr(symm_mem, "enable_symm_mem_for_group", None)
        if enable is not None:
            enable(group_name)
        grads = symm_mem.empty(n_pad, device=dev, dtype=torch.float32)
        symm_mem.rendezvous(grads, group_name)
        small = symm_mem.empty(1024, device=dev, dtype=torch.float32)
        symm_mem.rendezvous(small, group_name)
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001
        print(f"[rank{rank}] symmetric memory could not be set up: {type(e).__name__}: {e}",
              flush=True)
        sys.exit(3)

    def step(i):
        x = torch.randn(batch, width, device=dev)
        y = torch.randint(0, 16, (batch,), device=dev)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x).float(), y)
        loss.backward()
        off = 0
        for q in params:  # the gradient bucket lives in symmetric memory
            k = q.numel()
            grads[off:off + k].copy_(q.grad.reshape(-1))
            off += k
        torch.ops.symm_mem.two_shot_all_reduce_(grads, "sum", group_name)
        grads.div_(world)
        off = 0
        for q in params:
            k = q.numel()
            q.grad.copy_(grads[off:off + k].view_as(q.grad))
            off += k
        opt.step()
        opt.zero_grad(set_to_none=False)
        small[:1].copy_(loss.detach().reshape(1))
        return torch.ops.symm_mem.one_shot_all_reduce(small, "sum", group_name)

    for i in range(3):
        step(i)
    torch.cuda.synchronize()
    dist.barrier()
    timed = []
    for i in range(8):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        step(i)
        torch.cuda.synchronize()
        timed.append((time.perf_counter() - t0) * 1e3)
    medians = [None] * world
    dist.all_gather_object(medians, statistics.median(timed))
    if rank == 0:
        meta = {"scenario": f"nodes2_symm_mem_allreduce_{a.record}",
                "workload": "symm_mem_allreduce.py", "style": a.record,
                "injected": "healthy: gradients (16.8 M fp32) all-reduced with symmetric memory "
                            "(torch.ops.symm_mem.two_shot_all_reduce_), the loss with "
                            "one_shot_all_reduce; no NCCL kernel in the step. Two ranks share "
                            "GPU 0 and take turns on it",
                "expected_finding": None, "expected_rank": None,
                "symm_mem_backend": backend,
                "recorded_with": {"profiler": "kineto",
                                  "marks": "sched" if a.record == "sched" else "iter"},
                "world_size": world, "profiled_steps": a.steps, "timed_step_ms": timed,
                "median_step_ms_per_rank": medians, "torch_version": torch.__version__,
                "nccl_version": ".".join(map(str, torch.cuda.nccl.version())),
                "device": torch.cuda.get_device_name(dev), "host": socket.gethostname(),
                "two_ranks_one_gpu": "workloads/as_node.sh: each rank on GPU 0 with its own "
                                     "NCCL_HOSTID; symmetric memory between two processes of "
                                     "one GPU",
                "model": dict(kind="mlp", width=width, layers=layers, batch=batch,
                              params=n)}
        with open(os.path.join(a.out, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
            f.write("\n")
        print(f"symm_mem_allreduce ({a.record}): median step ms per rank {medians}", flush=True)

    trace = os.path.join(a.out, f"trace_rank{rank}.json")
    acts = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
    dist.barrier()
    if a.record == "sched":
        with profile(activities=acts, schedule=schedule(wait=1, warmup=1, active=a.steps),
                     on_trace_ready=lambda pr: pr.export_chrome_trace(trace)) as prof:
            for i in range(a.steps + 2):
                step(i)
                prof.step()
    else:
        with profile(activities=acts) as prof:
            for i in range(a.steps):
                with record_function(f"iteration_{i}"):
                    step(i)
        prof.export_chrome_trace(trace)
    torch.cuda.synchronize()
    with open(trace, "rb") as src, gzip.open(trace + ".gz", "wb", 9) as dst:
        shutil.copyfileobj(src, dst)
    os.remove(trace)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
