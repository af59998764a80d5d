"""Rank 1 runs out of GPU memory inside NCCL; rank 0 then loses its peer (two nodes, one GPU).

    # one launcher per "node", as on two machines (node 0 hosts the rendezvous):
    torchrun --nnodes=2 --nproc_per_node=1 --node_rank=K --master_addr=127.0.0.1 \
        --master_port=P --no-python workloads/as_node.sh \
        python3 workloads/oom_peer_exit.py --out DIR

Both ranks all-reduce a 4 MiB gradient bucket a few times (NCCL sockets, as_node.sh). Then rank 1
fills the GPU's free memory with tensors (as a model that grew too large would) and creates a
sub-communicator (dist.new_group([1]), e.g. for an expert- or tensor-parallel group): NCCL's own
device allocations for it fail ('Cuda failure ... out of memory' in rank 1's NCCL log) and rank 1
exits with the error. Rank 0, already inside the next all-reduce, sees its peer's sockets close
(the fallout: 'Connection closed by remote peer' / a remote error, or the watchdog timeout).
Each node's launcher has its own stdout. meta.json (written by rank 0 before the failure) names
the expected finding: the local CUDA error on rank 1, not rank 0's fallout.
"""

import argparse
import datetime
import json
import os
import socket
import sys
import time

os.environ["NCCL_NVLS_ENABLE"] = "0"
os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
os.environ["NVSHMEM_DISABLE_NVLS"] = "1"

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402


def log(rank, msg):
    print(f"[{time.strftime('%H:%M:%S')} rank{rank}] {msg}", flush=True)


def wait_count(store, key, n, timeout_s=60.0):
    t_end = time.time() + timeout_s
    while store.add(key, 0) < n:
        if time.time() > t_end:
            raise TimeoutError(f"store key {key} never reached {n}")
        time.sleep(0.05)


def fill_gpu(dev):
    """Take every free byte of the GPU through PyTorch's allocator, largest pieces first."""
    held = []
    for chunk in (8 << 30, 1 << 30, 128 << 20, 16 << 20, 512 << 10):
        while True:
            try:
                held.append(torch.empty(chunk, dtype=torch.uint8, device=dev))
            except torch.OutOfMemoryError:
                break
    return held


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    dev = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", device_id=dev, timeout=datetime.timedelta(seconds=60))
    rank, world = dist.get_rank(), dist.get_world_size()
    if rank == 0:
        meta = {"scenario": "nodes2_oom_then_remote_exit", "workload": "oom_peer_exit.py",
                "injected": "rank 1 fills the GPU's free memory, then creates a "
                            "sub-communicator: NCCL's device allocations fail with CUDA out of "
                            "memory on rank 1, which exits; rank 0, inside the next all-reduce, "
                            "loses its peer. Two launchers (two 'nodes'), one stdout each",
                "expected_finding": "comm.cuda_error", "expected_rank": 1,
                "world_size": world, "torch_version": torch.__version__,
                "nccl_version": ".".join(map(str, torch.cuda.nccl.version())),
                "device": torch.cuda.get_device_name(dev), "host": socket.gethostname(),
                "two_ranks_one_gpu": "workloads/as_node.sh: each rank on GPU 0 with its own "
                                     "NCCL_HOSTID, joined by NCCL sockets; each rank started "
                                     "by its own torchrun (--nnodes=2)"}
        with open(os.path.join(a.out, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
            f.write("\n")
    bucket = torch.ones(1 << 20, device=dev)
    probe = torch.ones(1024, device=dev)
    for i in range(3):
        dist.all_reduce(bucket)
    torch.cuda.synchronize()
    log(rank, "3 all-reduces of a 4 MiB bucket done")
    store = dist.distributed_c10d._get_default_store()
    store.add("warm", 1)
    wait_count(store, "warm", world)
    if rank == 1:
        held = fill_gpu(dev)
        free, total = torch.cuda.mem_get_info(dev)
        log(rank, f"holding {sum(t.numel() for t in held) / 2**30:.1f} GiB in {len(held)} "
                  f"tensors; free {free / 2**20:.0f} MiB of {total / 2**30:.0f} GiB")
    store.add("filled", 1)
    wait_count(store, "filled", world)
    sub = dist.new_group([1])
    if rank == 1:
        log(rank, "first collective on the new group [1]")
        dist.all_reduce(probe, group=sub)
        torch.cuda.synchronize()
        log(rank, "the new group's all-reduce completed (no out-of-memory)")
    log(rank, "next gradient all-reduce")
    dist.all_reduce(bucket)
    torch.cuda.synchronize()
    log(rank, "gradient all-reduce completed")
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
