"""MoE-like workload: tokens are dispatched to experts on other ranks with all_to_all_single and
combined back the same way (commdx seed step 1: 'all-to-all').

    torchrun --nproc_per_node=2 workloads/alltoall.py --cause none --out OUT

One expert MLP per rank in every MoE layer, top-1 routing with a fixed capacity per expert (so the
split sizes are equal and known without a host sync, as capacity-based MoE implementations do).
The dense parameters (embedding, attention, router, head) are data-parallel under DDP; the expert
parameters are kept out of DDP, as expert parallelism requires.
"""

import torch.nn as nn
import torch.nn.functional as F

import common
from common import Block, lm_loss, torch, dist

CAPACITY_FACTOR = 1.25


class MoE(nn.Module):
    def __init__(self, dim, world, capacity):
        super().__init__()
        self.world = world
        self.capacity = capacity
        self.ln = nn.LayerNorm(dim)
        self.router = nn.Linear(dim, world, bias=False)
        self.fc1 = nn.Linear(dim, 4 * dim)  # this rank's expert
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x):
        from torch.distributed.nn.functional import all_to_all_single
        b, t, d = x.shape
        e, c = self.world, self.capacity
        h = self.ln(x).reshape(b * t, d)
        probs = F.softmax(self.router(h).float(), dim=-1)
        gate, eid = probs.max(dim=-1)
        onehot = F.one_hot(eid, e)
        pos = ((onehot.cumsum(0) - 1) * onehot).sum(-1)  # position of a token in its expert
        keep = pos < c
        slot = torch.where(keep, eid * c + pos, torch.full_like(pos, e * c))  # overflow -> dummy
        buf = h.new_zeros(e * c + 1, d, dtype=torch.bfloat16)
        buf = buf.index_add(0, slot, h.to(torch.bfloat16))[: e * c].contiguous()
        recv = all_to_all_single(torch.empty_like(buf), buf)          # tokens for my expert
        y = self.fc2(F.gelu(self.fc1(recv))).to(torch.bfloat16)
        back = all_to_all_single(torch.empty_like(y), y.contiguous())  # my tokens, processed
        back = torch.cat([back, back.new_zeros(1, d)], dim=0)[slot]
        out = back.float() * (gate * keep).unsqueeze(-1)
        return x + out.reshape(b, t, d)


class MoELM(nn.Module):
    def __init__(self, a, world, capacity):
        super().__init__()
        self.emb = nn.Embedding(a.vocab, a.dim)
        self.attn = nn.ModuleList(Block(a.dim, a.heads, with_mlp=False) for _ in range(a.layers))
        self.moe = nn.ModuleList(MoE(a.dim, world, capacity) for _ in range(a.layers))
        self.ln_f = nn.LayerNorm(a.dim)
        self.head = nn.Linear(a.dim, a.vocab)

    def forward(self, tokens, layer_hook=None):
        x = self.emb(tokens)
        for i in range(len(self.attn)):
            x = self.moe[i](self.attn[i](x))
            if layer_hook is not None:
                layer_hook(i, x)
        return self.head(self.ln_f(x))


def build(run):
    a = run.args
    layers = max(1, a.layers - 2)  # MoE layers are heavier; keep the step similar to ddp.py
    a_moe = type(a)(**{**vars(a), "layers": layers})
    tokens = a.batch * a.seq
    capacity = int(CAPACITY_FACTOR * tokens / run.world)
    run.seed_model()
    model = MoELM(a_moe, run.world, capacity).to(run.device)
    # experts differ per rank
    torch.manual_seed(200 + run.rank)
    for moe in model.moe:
        moe.fc1.reset_parameters()
        moe.fc2.reset_parameters()
    expert_names = [n for n, _ in model.named_parameters() if ".fc1." in n or ".fc2." in n]
    torch.nn.parallel.DistributedDataParallel._set_params_and_buffers_to_ignore_for_model(
        model, expert_names)
    kw = {"device_ids": [run.local_rank]} if run.cuda else {}
    ddp = torch.nn.parallel.DistributedDataParallel(model, **kw)
    run.count_params(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=run.cuda)
    hook = run.layer_hook()
    info = {"moe_layers": layers, "experts": run.world, "capacity_per_expert": capacity,
            "capacity_factor": CAPACITY_FACTOR,
            "a2a_bytes_per_call": capacity * run.world * a.dim * 2,
            "expert_params_local": sum(p.numel() for n, p in model.named_parameters()
                                       if n in expert_names),
            "dense_params_ddp": sum(p.numel() for n, p in model.named_parameters()
                                    if n not in expert_names)}

    def step(i):
        x, y = run.load_batch(a.batch, a.seq, a.vocab)
        with run.autocast():
            logits = ddp(x, layer_hook=hook)
        loss = lm_loss(logits, y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    return step, info


if __name__ == "__main__":
    common.main(build)
