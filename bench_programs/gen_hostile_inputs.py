#!/usr/bin/env python3
"""Writes the large hostile inputs of issue 16 into a folder, for timing `commdx` on them:

    python3 bench_programs/gen_hostile_inputs.py OUTDIR

  env_80k.json, env_200k.json  an environment dump with 80,000 / 200,000 variables
  env_80k_nccl.json            80,000 variables named like NCCL's (each checked for a typo)
  comms_40k.log                an NCCL log with 40,000 communicator inits (~6.6 MB)
  ranks_80k.log                80,000 ranks of one communicator, one process each (~26 MB)
  trace_pg100k.json            a real trace whose distributedInfo configures 100,000 groups
  trace_pg_used_40k.json,      40,000 / 100,000 all-reduces, each in a group of its own (a
  trace_pg_used_100k.json      record_param_comms op, its launch and its NCCL kernel apiece)

Line shapes are those of the 2xH200 reference log (captures/ddp_healthy/nccl.vm.654.log, NCCL
2.28); only the counts are hostile. bench_programs/hostile_inputs_bench.sh times them.
"""
import gzip
import json
import os
import sys


def env_dump(n, prefix="VAR_"):
    environ = {"NCCL_DEBUG": "INFO"}
    for i in range(n):
        environ["%s%06d" % (prefix, i)] = "value_%d" % i
    return json.dumps({"hostname": "vm", "pid": 653, "rank": 0, "environ": environ}, indent=1)


def comms_log(n):
    out = ["vm:654:654 [1] NCCL INFO NCCL version 2.28.9+cuda13.0"]
    for i in range(n):
        ptr = "0x%x" % (0x1f36fcd0 + 0x100 * i)
        out.append("vm:654:654 [1] NCCL INFO ncclCommInitRankConfig comm %s rank 1 nranks 2 "
                   "cudaDev 1 nvmlDev 1 busId 70 commId 0x%016x - Init START" % (ptr, i + 1))
    return "\n".join(out) + "\n"


def ranks_log(n):
    out = []
    comm_id = 0xbb4fa72d159634ea
    for r in range(n):
        host = "node%05d" % (r // 8)
        pid = 1000 + r
        dev = r % 8
        pre = "%s:%d:%d [%d] NCCL INFO " % (host, pid, pid, dev)
        ptr = "0x%x" % (0x1f36fcd0 + 0x100 * r)
        out.append(pre + "ncclCommInitRankConfig comm %s rank %d nranks %d cudaDev %d nvmlDev %d "
                   "busId %d0 commId 0x%x - Init START" % (ptr, r, n, dev, dev, dev + 1, comm_id))
        out.append(pre + "comm %s rank %d nRanks %d nNodes %d localRanks 8 localRank %d MNNVL 0"
                   % (ptr, r, n, (n + 7) // 8, dev))
    return "\n".join(out) + "\n"


def trace_groups(n):
    """A real trace (examples/ddp_healthy rank 0) whose distributedInfo configures n more groups."""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples",
                       "ddp_healthy", "trace_rank0.json.gz")
    with gzip.open(src, "rt") as f:
        doc = json.load(f)
    info = doc["distributedInfo"]
    first = info["pg_config"][0]
    for i in range(n):
        info["pg_config"].append(dict(first, pg_name=str(1000 + i)))
    info["pg_count"] = len(info["pg_config"])
    return json.dumps(doc)


def trace_groups_used(n):
    """n all-reduces on rank 0 of 2, each naming a process group no other names."""
    events, t = [], 1_000_000.0
    for i in range(n):
        pg = str(i)
        events.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1,
                       "tid": 1, "ts": t, "dur": 1,
                       "args": {"Process Group Name": pg, "Process Group Description": "pg_" + pg,
                                "Process Group Ranks": "[0, 1]", "Group size": 2,
                                "Collective name": "allreduce", "In msg nelems": 1024,
                                "Out msg nelems": 1024, "dtype": "Float", "Rank": 0}})
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                       "tid": 1, "ts": t + 1, "dur": 1, "args": {"correlation": i + 1}})
        events.append({"ph": "X", "cat": "kernel", "pid": 0, "tid": 20, "ts": t + 2, "dur": 5,
                       "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage"
                               "<4096ul>)",
                       "args": {"device": 0, "stream": 20, "correlation": i + 1}})
        t += 10
    return json.dumps({"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0,
                                                               "world_size": 2},
                       "traceEvents": events})


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "hostile_inputs"
    os.makedirs(out, exist_ok=True)
    files = {
        "env_80k.json": lambda: env_dump(80_000),
        "env_200k.json": lambda: env_dump(200_000),
        "env_80k_nccl.json": lambda: env_dump(80_000, "NCCL_VAR_"),
        "comms_40k.log": lambda: comms_log(40_000),
        "ranks_80k.log": lambda: ranks_log(80_000),
        "trace_pg100k.json": lambda: trace_groups(100_000),
        "trace_pg_used_40k.json": lambda: trace_groups_used(40_000),
        "trace_pg_used_100k.json": lambda: trace_groups_used(100_000),
    }
    for name, make in files.items():
        with open(os.path.join(out, name), "w") as f:
            f.write(make())
        print("%s %d bytes" % (name, os.path.getsize(os.path.join(out, name))))


if __name__ == "__main__":
    main()
