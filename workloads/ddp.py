"""DDP workload: gradient all-reduce heavy (commdx seed step 1: 'all-reduce heavy').

    torchrun --nproc_per_node=2 workloads/ddp.py --cause none --out OUT

Causes handled here (see common.CAUSES): none, small_buckets, item_sync, cuda_sync, no_overlap,
straggler, data_stall, find_unused, accum_no_nosync (with --accum N), and every env-only cause.
"""

import contextlib

import common
from common import TinyLM, lm_loss, torch, dist


def flat_bucketed_all_reduce(params, world, cap_bytes):
    """The no-overlap cause: after backward, all-reduce the gradients in flattened buckets of
    about `cap_bytes`, in reverse parameter order as DDP would, with nothing left to overlap."""
    from torch._utils import _flatten_dense_tensors, _unflatten_dense_tensors
    grads = [p.grad for p in reversed(params) if p.grad is not None]
    bucket, size = [], 0
    buckets = []
    for g in grads:
        bucket.append(g)
        size += g.numel() * g.element_size()
        if size >= cap_bytes:
            buckets.append(bucket)
            bucket, size = [], 0
    if bucket:
        buckets.append(bucket)
    for b in buckets:
        flat = _flatten_dense_tensors(b)
        dist.all_reduce(flat)
        flat.div_(world)
        for g, r in zip(b, _unflatten_dense_tensors(flat, b)):
            g.copy_(r)
    return len(buckets)


def build(run):
    a = run.args
    run.seed_model()
    model = TinyLM(a.vocab, a.dim, a.heads, a.layers).to(run.device)
    n_params = run.count_params(model)
    bucket_mb = a.bucket_mb if a.bucket_mb is not None else (
        0.5 if run.cause == "small_buckets" else 25.0)
    info = {"params": n_params, "grad_bytes_fp32": n_params * 4, "accum": a.accum}

    if run.cause == "no_overlap":
        # same initial weights on every rank (seeded), gradients reduced by hand
        for p in model.parameters():
            dist.broadcast(p.data, src=0)
        ddp = None
        net = model
        info["ddp"] = None
        info["manual_bucket_mb"] = 25.0
    else:
        kw = {"device_ids": [run.local_rank]} if run.cuda else {}
        ddp = torch.nn.parallel.DistributedDataParallel(
            model, bucket_cap_mb=bucket_mb,
            find_unused_parameters=(run.cause == "find_unused"), **kw)
        net = ddp
        info["ddp"] = {"bucket_cap_mb": bucket_mb,
                       "find_unused_parameters": run.cause == "find_unused"}

    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=run.cuda)
    hook = run.layer_hook()
    params = list(model.parameters())
    micro = max(1, a.batch // a.accum)
    use_no_sync = ddp is not None and a.accum > 1 and run.cause != "accum_no_nosync"
    info["micro_batch"] = micro
    info["no_sync_used"] = use_no_sync

    def step(i):
        for m in range(a.accum):
            x, y = run.load_batch(micro, a.seq, a.vocab)
            last = m == a.accum - 1
            ctx = ddp.no_sync() if (use_no_sync and not last) else contextlib.nullcontext()
            with ctx:
                with run.autocast():
                    logits = net(x, layer_hook=hook)
                loss = lm_loss(logits, y) / a.accum
                loss.backward()
        if ddp is None:
            info["manual_buckets"] = flat_bucketed_all_reduce(
                params, run.world, int(info["manual_bucket_mb"] * 2**20))
        opt.step()
        opt.zero_grad(set_to_none=True)

    return step, info


if __name__ == "__main__":
    common.main(build)
