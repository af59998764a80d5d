"""Process groups smaller than the job, for `commdx bench replay` of sub-communicators.

    torchrun --nproc_per_node=4 --no-python workloads/as_node.sh \
        python3 workloads/subgroups.py --out OUT

An even number of ranks, grouped as tensor- and data-parallel jobs group them: pairs of
neighbours (0-1, 2-3, ...) and the ranks two apart (0, 2, ... and 1, 3, ...). Each step: a
matmul, an 8 MiB all-reduce in the pair, a matmul, a 16 MiB all-reduce among the ranks two
apart, a 4 KiB all-reduce over every rank, and (pipeline-style) a 2 MiB send to the next pair
with a receive from the one before. Profiled steps are exported as one Kineto trace per rank.
"""

import argparse
import os

import torch
import torch.distributed as dist
from torch.profiler import ProfilerActivity, profile, schedule


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--steps", type=int, default=3, help="profiled steps")
    a = p.parse_args()
    local = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=dev)
    rank, world = dist.get_rank(), dist.get_world_size()
    assert world % 2 == 0 and world >= 4, "an even number of ranks, 4 or more"
    pair = apart = None
    for start in range(0, world, 2):  # every rank takes part in every new_group call
        g = dist.new_group([start, start + 1])
        if rank in (start, start + 1):
            pair = g
    for first in range(2):
        g = dist.new_group(list(range(first, world, 2)))
        if rank % 2 == first:
            apart = g
    x = torch.randn(2 << 20, device=dev)  # 8 MiB of float
    y = torch.randn(4 << 20, device=dev)  # 16 MiB
    s = torch.randn(1024, device=dev)
    out_buf = torch.randn(512 << 10, device=dev)  # 2 MiB
    in_buf = torch.empty_like(out_buf)
    w = torch.randn(2048, 2048, device=dev)
    nxt, prv = (rank + 2) % world, (rank - 2) % world

    def step():
        z = w @ w
        dist.all_reduce(x, group=pair)
        z = z @ w
        dist.all_reduce(y, group=apart)
        dist.all_reduce(s)
        ops = [dist.P2POp(dist.isend, out_buf, nxt), dist.P2POp(dist.irecv, in_buf, prv)]
        for r in dist.batch_isend_irecv(ops):
            r.wait()
        return z

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    os.makedirs(a.out, exist_ok=True)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=1, warmup=1, active=a.steps)) as prof:
        for _ in range(2 + a.steps):
            step()
            torch.cuda.synchronize()
            prof.step()
    prof.export_chrome_trace(os.path.join(a.out, f"trace_rank{rank}.json.gz"))
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
