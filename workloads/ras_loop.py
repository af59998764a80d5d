"""A long-running NCCL job for RAS captures: all-reduces in a loop until told to stop.

    torchrun --nproc_per_node=2 --no-python workloads/as_node.sh \
        python3 workloads/ras_loop.py --ready-dir D --stop-file F [--max-s 300]

Used by run_nccl_data.sh, which queries the job with NCCL's `ncclras` client while it runs
(healthy, then with one rank stopped by SIGSTOP). Each rank:

* gets its own RAS client socket, NCCL_RAS_ADDR=127.0.0.1:(PORT_BASE + RANK), set before NCCL
  is loaded (two processes on one host would otherwise share localhost:28028 through
  SO_REUSEPORT, and a client could land on the stopped one);
* runs all-reduces on two communicators (the default group and a second group of the same ranks),
  so RAS lists more than one communicator;
* writes READY_DIR/rank{r}.json (pid, RAS address, NCCL version) once its communicators work;
* stops when every rank has seen the stop file (decided collectively, so no rank is left in a
  collective alone) or after --max-s seconds.
"""

import argparse
import json
import os
import sys
import time

p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
p.add_argument("--ready-dir", required=True)
p.add_argument("--stop-file", required=True)
p.add_argument("--max-s", type=float, default=300.0, help="stop after this many seconds")
p.add_argument("--port-base", type=int, default=28100, help="RAS client port of rank 0")
p.add_argument("--size-mb", type=float, default=4.0, help="all-reduce size")
p.add_argument("--pause-s", type=float, default=0.02, help="sleep between iterations")
args = p.parse_args()

RANK = int(os.environ.get("RANK", "0"))
# NVLink multicast off, always (see common.py); a RAS client socket per rank.
os.environ["NCCL_NVLS_ENABLE"] = "0"
os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
os.environ["NVSHMEM_DISABLE_NVLS"] = "1"
os.environ.setdefault("NCCL_RAS_ENABLE", "1")
if os.environ.get("RAS_PER_RANK_PORT", "1") == "1":
    os.environ["NCCL_RAS_ADDR"] = f"127.0.0.1:{args.port_base + RANK}"

import datetime  # noqa: E402

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402


def log(msg):
    print(f"[ras_loop rank{RANK} {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def main():
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=dev, timeout=datetime.timedelta(seconds=900))
    rank, world = dist.get_rank(), dist.get_world_size()
    second = dist.new_group(list(range(world)))
    n = int(args.size_mb * 2**20 / 4)
    x = torch.zeros(n, device=dev)  # zeros: sums stay finite
    flag = torch.zeros(1, device=dev)
    dist.all_reduce(x)
    dist.all_reduce(x, group=second)
    torch.cuda.synchronize()
    ver = ".".join(str(v) for v in torch.cuda.nccl.version())
    info = {"rank": rank, "world": world, "pid": os.getpid(), "nccl_version": ver,
            "ras_addr": os.environ.get("NCCL_RAS_ADDR", "localhost:28028 (default)"),
            "hostid": os.environ.get("NCCL_HOSTID"), "t_ready": time.time()}
    tmp = os.path.join(args.ready_dir, f".rank{rank}.json")
    with open(tmp, "w") as f:
        json.dump(info, f)
    os.replace(tmp, os.path.join(args.ready_dir, f"rank{rank}.json"))
    log(f"ready: {info}")

    t0 = time.time()
    it, last = 0, t0
    while True:
        flag.zero_()
        if os.path.exists(args.stop_file) or time.time() - t0 > args.max_s:
            flag.fill_(1.0)
        dist.all_reduce(flag, op=dist.ReduceOp.MAX)
        dist.all_reduce(x, group=second if it % 2 else None)
        torch.cuda.synchronize()
        it += 1
        now = time.time()
        if now - last > 5.0:  # a gap shows up here too, e.g. after a peer was stopped
            log(f"iteration {it}, {now - t0:.1f} s")
            last = now
        if flag.item() > 0:
            break
        time.sleep(args.pause_s)
    log(f"stopping after {it} iterations, {time.time() - t0:.1f} s")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # noqa: BLE001
        log(f"error: {e!r}")
        sys.exit(1)
