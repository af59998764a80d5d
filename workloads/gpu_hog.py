"""Another process's work on the GPU: kernels back to back until killed (issue 38's shared-GPU
cases; the profiled job never records it).

    python3 workloads/gpu_hog.py --mode big|bursty

  big     8192x8192 bf16 matmuls back to back (about 2 ms each on an H100)
  bursty  40 matmuls of 2048x2048 fp32, then 3 ms asleep, repeated: an inference-server-like duty
          cycle of short kernels
Prints "ready" once its first kernels ran.
"""

import argparse
import time

import torch

p = argparse.ArgumentParser()
p.add_argument("--mode", choices=("big", "bursty"), default="big")
a = p.parse_args()
torch.cuda.set_device(0)
if a.mode == "big":
    x = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
else:
    x = torch.randn(2048, 2048, device="cuda")
y = torch.randn_like(x)
for _ in range(3):
    x @ y
torch.cuda.synchronize()
print("ready", flush=True)
while True:
    for _ in range(8 if a.mode == "big" else 40):
        z = x @ y
    torch.cuda.synchronize()
    if a.mode == "bursty":
        time.sleep(0.003)
