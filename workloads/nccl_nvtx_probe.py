"""NCCL's NVTX ranges under Nsight Systems: which export columns carry their payloads.

Run under `nsys profile -t cuda,nvtx` (workloads/nccl_nvtx_probe.sh does, and exports the
report): a one-rank NCCL process group that makes its communicator inside the capture and then
runs all_reduce, all_gather and broadcast of known sizes, so NCCL's payload schemas
(CommInitRankConfig, AllReduce, AllGather, Broadcast) each have events with known values.
"""
import os

import torch
import torch.distributed as dist


def main():
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    torch.cuda.set_device(0)
    dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda", 0))
    x = torch.ones(1 << 20, device="cuda")  # 4 MiB of float32
    y = torch.empty(1 << 20, device="cuda")
    for _ in range(5):
        dist.all_reduce(x)
        dist.all_gather_into_tensor(y, x)
        dist.broadcast(x, src=0)
    torch.cuda.synchronize()
    dist.destroy_process_group()
    print("probe done: 5 x (all_reduce, all_gather, broadcast) of 4194304 bytes")


if __name__ == "__main__":
    main()
