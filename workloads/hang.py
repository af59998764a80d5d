"""Real job-log, NCCL COLL and Flight Recorder output for the hang/desync importers (issue 18).

Started under torchrun (any world size; one GPU per rank). Two modes:
  --mode healthy   DDP steps and a mix of collectives, then the Flight Recorder buffer dumped
                   by hand in both forms PyTorch offers (pickle and JSON); exits 0.
  --mode timeout   a few collectives, then one all_reduce queued behind a GPU kernel that spins
                   far longer than the process group's timeout: the NCCL watchdog reports the
                   timeout, dumps the Flight Recorder buffer (TORCH_NCCL_DUMP_ON_TIMEOUT) and
                   tears the process down. The expected culprit is written before the run.
  --mode skip      (2+ ranks) the last rank skips the 8th collective (an all_reduce) and then
                   idles on the CPU: the other ranks wait in it until the watchdog fires.
  --mode mismatch  (2+ ranks) the last rank skips that all_reduce and calls the next collective
                   (an all_gather) instead: the ranks disagree on what the 8th collective is.
Environment the runner sets: NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,ENV,COLL,TUNING,
TORCH_NCCL_TRACE_BUFFER_SIZE, TORCH_FR_DUMP_TEMP_FILE, TORCH_DISTRIBUTED_DEBUG=DETAIL,
TORCH_CPP_LOG_LEVEL=INFO.
"""
import argparse
import datetime
import json
import os
import socket
import time

import torch
import torch.distributed as dist


def collectives(dev, rank, world):
    for n in (1, 1024, 256 * 1024, 4 * 1024 * 1024):
        t = torch.ones(n, device=dev)
        dist.all_reduce(t)
    big = torch.ones(1 << 20, device=dev, dtype=torch.bfloat16)
    out = torch.empty(world * big.numel(), device=dev, dtype=big.dtype)
    dist.all_gather_into_tensor(out, big)
    rs = torch.empty(big.numel() // world, device=dev, dtype=big.dtype)
    dist.reduce_scatter_tensor(rs, big)
    dist.broadcast(big, src=0)
    torch.cuda.synchronize()


def ddp_steps(dev):
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(),
                                torch.nn.Linear(4096, 1024)).to(dev)
    ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[dev.index],
                                                    bucket_cap_mb=4)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    for _ in range(3):
        opt.zero_grad()
        ddp(torch.randn(64, 1024, device=dev)).sum().backward()
        opt.step()
    torch.cuda.synchronize()


def dump_by_hand(out, rank):
    c10d = torch._C._distributed_c10d
    with open(os.path.join(out, f"fr_manual_rank{rank}.pickle"), "wb") as f:
        f.write(c10d._dump_nccl_trace(includeCollectives=True, includeStackTraces=True,
                                      onlyActive=False))
    text = c10d._dump_nccl_trace_json(includeCollectives=True, onlyActive=False)
    with open(os.path.join(out, f"fr_manual_rank{rank}.json"), "wb") as f:
        f.write(text if isinstance(text, bytes) else text.encode())  # bytes in PyTorch 2.11


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=("healthy", "timeout", "skip", "mismatch"), required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--timeout-s", type=float, default=5.0)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    dev = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", device_id=dev,
                            timeout=datetime.timedelta(seconds=a.timeout_s))
    rank, world = dist.get_rank(), dist.get_world_size()
    meta = {"workload": "hang.py", "mode": a.mode, "world_size": world,
            "torch_version": torch.__version__, "nccl_version": list(torch.cuda.nccl.version()),
            "device": torch.cuda.get_device_name(dev), "host": socket.gethostname(),
            "pg_timeout_s": a.timeout_s}
    if a.mode == "healthy":
        meta["expected"] = "no hang: every collective completes; dumps taken by hand"
    elif a.mode == "skip":
        meta["expected"] = (f"hang.rank_behind: rank {world - 1} never called the 8th collective "
                            "of the default group (an all_reduce of 1,048,576 float32); the other "
                            "ranks wait in it until the watchdog fires")
    elif a.mode == "mismatch":
        meta["expected"] = (f"hang.desync: rank {world - 1} called an all_gather as the 8th "
                            "collective of the default group where the others called an "
                            "all_reduce of 1,048,576 float32")
    else:
        meta["expected"] = ("hang.watchdog_timeout: rank 0, the 8th collective of the default "
                            "group (an all_reduce of 1,048,576 float32) did not finish within "
                            f"{a.timeout_s:g} s because a kernel queued before it spins ~60 s")
    if rank == 0:
        with open(os.path.join(a.out, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
    collectives(dev, rank, world)
    if a.mode == "healthy":
        ddp_steps(dev)
        collectives(dev, rank, world)
        dump_by_hand(a.out, rank)
        dist.destroy_process_group()
        print("healthy: done", flush=True)
        return
    if a.mode in ("skip", "mismatch"):
        t = torch.ones(1 << 20, device=dev)
        if rank != world - 1:
            dist.all_reduce(t)
        elif a.mode == "mismatch":
            out = torch.empty(world * t.numel(), device=dev)
            dist.all_gather_into_tensor(out, t)
        else:
            print(f"{a.mode}: rank {rank} skips the all_reduce and idles", flush=True)
            time.sleep(45)
            return
        print(f"{a.mode}: rank {rank} waiting", flush=True)
        torch.cuda.synchronize()  # blocks; the watchdog tears the process down first
        print(f"{a.mode}: rank {rank} unexpectedly finished", flush=True)
        return
    # ~60 s of spinning on the current stream; the all_reduce waits for it on NCCL's stream.
    torch.cuda._sleep(int(60 * 1.98e9))
    t = torch.ones(1 << 20, device=dev)
    dist.all_reduce(t)
    print("timeout: all_reduce queued behind a 60 s kernel; waiting", flush=True)
    t.cpu()  # blocks; the watchdog tears the process down first
    print("timeout: unexpectedly finished", flush=True)


if __name__ == "__main__":
    main()
