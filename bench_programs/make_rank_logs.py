#!/usr/bin/env python3
"""Makes the NCCL logs, job logs and Flight Recorder dumps of an N-rank job from a real one.

  make_rank_logs.py N OUT_DIR [--kinds nccl,job,fr] [--nccl-from DIR] [--hang-from DIR]

The sibling of make_rank_job.py (which makes the traces), for the scale benchmarks of the text
and pickle importers (docs/measurements/performance.md, "Ranks at scale"). Each kind goes to its
own folder, OUT_DIR/nccl, OUT_DIR/job, OUT_DIR/fr, so that each can be diagnosed alone.

- nccl: one NCCL_DEBUG=INFO log per rank (nccl.<host>.<pid>.log) from the per-process logs of
  --nccl-from (default examples/nodes4_ddp_straggler, a real 4-rank, 4-node DDP job: init lines,
  ring/tree lines, channel connections, COLL lines). Rank r is source rank s = r % S, with every
  rank fact rewritten: the line prefix host:pid:tid becomes node<r // 8>:<100000 + r>:tid (eight
  ranks a node), NCCL_HOSTID the same node, "rank s nranks S" "rank r nranks N", "[nranks=S]"
  "[nranks=N]", and each peer rank x of a ring, tree or connection line (x - s + r) mod N, so the
  communicator (the same commId in every file) has N ranks that each print their own
  connections.
- job: one torchrun log per rank (job_rank<r>.log) from the combined job.log of --hang-from
  (default tests/data/hang/nodes4_skip, a real 4-rank hang): the lines of source rank s
  ("[rank<s>]:" prefix, "Rank <s>]", "Rank <s>:", and the stack lines under them) and the lines
  of no rank, with "rank s", "global rank: s" and "size: S" rewritten to r and N.
- fr: one Flight Recorder dump per rank (fr_dump_rank<r>, pickle) from the fr_dump_rank<s> of
  --hang-from, its process group listing ranks 0..N-1 as PyTorch writes it (so a dump grows with
  N, as real ones do).
"""
import argparse
import glob
import os
import pickle
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RANKS_PER_NODE = 8


def nccl_sources(folder):
    files = sorted(glob.glob(os.path.join(folder, "nccl*.log")))
    out = []
    for path in files:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
        m = re.search(r"\brank (\d+) nranks (\d+)", text)
        if not m:
            continue
        out.append((int(m.group(1)), int(m.group(2)), text))
    if not out:
        sys.exit(f"make_rank_logs: no NCCL log with an init line in {folder}")
    out.sort(key=lambda x: x[0])
    return out


def nccl_log(text, s, size, r, n):
    node = f"node{r // RANKS_PER_NODE}"
    pid = str(100000 + r)

    def peer(x):
        x = int(x)
        return str((x - s + r) % n) if x >= 0 else str(x)

    def arrow_ranks(body):
        return re.sub(r"-?\d+", lambda m: peer(m.group(0)), body)

    out = []
    for line in text.splitlines():
        m = re.match(r"([^:\s]+):(\d+):(\d+) (\[\d+\])(.*)$", line)
        if not m:
            out.append(line)
            continue
        host, opid, tid, dev, rest = m.groups()
        if tid == opid:
            tid = pid
        rest = re.sub(r"\brank (\d+) (nranks|nRanks) (\d+)",
                      lambda k: f"rank {peer(k.group(1))} {k.group(2)} {n}", rest)
        rest = re.sub(r"\[nranks=\d+\]", f"[nranks={n}]", rest)
        rest = re.sub(r"nNodes \d+ localRanks \d+ localRank \d+",
                      f"nNodes {(n + RANKS_PER_NODE - 1) // RANKS_PER_NODE} localRanks "
                      f"{min(n, RANKS_PER_NODE)} localRank {r % RANKS_PER_NODE}", rest)
        rest = re.sub(r"(NCCL_HOSTID set by environment to )\S+", r"\g<1>" + node, rest)
        # "Channel 00/0 : 0[0] -> 1[0] [receive] via ...": both ends.
        rest = re.sub(r"(Channel \d+/\d+ : )(\d+)(\[[^\]]*\] -> )(\d+)",
                      lambda k: k.group(1) + peer(k.group(2)) + k.group(3) + peer(k.group(4)),
                      rest)
        # "Ring 00 : 0 -> 1 -> 2", "Tree 1 : 3 -> 1 -> 2/0/-1"
        rest = re.sub(r"((?:Ring|Tree) \d+ : )(.*)$",
                      lambda k: k.group(1) + arrow_ranks(k.group(2)), rest)
        # "Trees [0] -1/-1/-1->1->2 [1] 2/0/-1->1->3": the numbers outside the brackets.
        rest = re.sub(r"(Trees )(.*)$",
                      lambda k: k.group(1) + re.sub(
                          r"(\[\d+\] )(\S+)",
                          lambda t: t.group(1) + arrow_ranks(t.group(2)), k.group(2)), rest)
        out.append(f"{node}:{pid}:{tid} {dev}{rest}")
    return "\n".join(out) + "\n"


def make_nccl(src, n, out):
    sources = nccl_sources(src)
    os.makedirs(out, exist_ok=True)
    for r in range(n):
        s, size, text = sources[r % len(sources)]
        name = f"nccl.node{r // RANKS_PER_NODE}.{100000 + r}.log"
        with open(os.path.join(out, name), "w", encoding="utf-8",
                  errors="surrogateescape") as f:
            f.write(nccl_log(text, s, size, r, n))
    return len(sources)


RANK_MARK = re.compile(r"^\[rank(\d+)\]:|Rank (\d+)[\]:]")


def job_lines(text):
    """(rank or None, line) for each line; stack lines ("#0 ...") and blank lines belong to the
    rank of the line above them."""
    owner = None
    out = []
    for line in text.splitlines():
        m = RANK_MARK.search(line)
        if m:
            owner = int(m.group(1) or m.group(2))
        elif not (line.startswith("#") or not line.strip()):
            owner = None
        out.append((owner, line))
    return out


def job_log(lines, s, size, r, n):
    out = []
    for owner, line in lines:
        if owner is not None and owner != s:
            continue
        if owner == s:
            line = re.sub(rf"\[rank{s}\]:", f"[rank{r}]:", line)
            line = re.sub(rf"Rank {s}([\]:])", rf"Rank {r}\g<1>", line)
            line = re.sub(rf"global rank: {s}\b", f"global rank: {r}", line)
            line = re.sub(rf"\bsize: {size}\b", f"size: {n}", line)
        out.append(line)
    return "\n".join(out) + "\n"


def make_job(src, n, out):
    path = os.path.join(src, "job.log")
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        lines = job_lines(f.read())
    ranks = sorted({o for o, _ in lines if o is not None})
    if not ranks:
        sys.exit(f"make_rank_logs: no rank lines in {path}")
    size = len(ranks)
    os.makedirs(out, exist_ok=True)
    for r in range(n):
        s = ranks[r % size]
        with open(os.path.join(out, f"job_rank{r}.log"), "w", encoding="utf-8",
                  errors="surrogateescape") as f:
            f.write(job_log(lines, s, size, r, n))
    return size


def make_fr(src, n, out):
    files = sorted(glob.glob(os.path.join(src, "fr_dump_rank*")),
                   key=lambda p: int(re.search(r"(\d+)$", p).group(1)))
    if not files:
        sys.exit(f"make_rank_logs: no fr_dump_rank* in {src}")
    dumps = []
    for path in files:
        with open(path, "rb") as f:
            dumps.append(pickle.load(f))
    ranks = "[" + ", ".join(str(i) for i in range(n)) + "]"
    os.makedirs(out, exist_ok=True)
    for r in range(n):
        d = dict(dumps[r % len(dumps)])
        d["pg_config"] = {k: dict(v, ranks=ranks) for k, v in d.get("pg_config", {}).items()}
        with open(os.path.join(out, f"fr_dump_rank{r}"), "wb") as f:
            pickle.dump(d, f)
    return len(dumps)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int)
    ap.add_argument("out")
    ap.add_argument("--kinds", default="nccl,job,fr")
    ap.add_argument("--nccl-from", default=os.path.join(ROOT, "examples/nodes4_ddp_straggler"))
    ap.add_argument("--hang-from", default=os.path.join(ROOT, "tests/data/hang/nodes4_skip"))
    a = ap.parse_args()
    if a.n < 1:
        sys.exit("make_rank_logs: N must be at least 1")
    makers = {"nccl": (make_nccl, a.nccl_from), "job": (make_job, a.hang_from),
              "fr": (make_fr, a.hang_from)}
    for kind in a.kinds.split(","):
        if kind not in makers:
            sys.exit(f"make_rank_logs: unknown kind {kind!r} (nccl, job, fr)")
        make, src = makers[kind]
        s = make(src, a.n, os.path.join(a.out, kind))
        print(f"make_rank_logs: {kind}: {a.n} ranks from {s} source rank(s) of {src}")


if __name__ == "__main__":
    main()
