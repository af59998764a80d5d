// Device kernels commdx needs besides NCCL's: input fill and output check (pattern.h), a
// spin kernel of set duration (the repro's "compute"), and an SM copy kernel (p2p). Built by
// nvcc from kernels.cu; without nvcc, kernels_stub.cc answers Available() == false and the
// backend falls back to host-side fill/check and waives the SM copy and repro cases.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "bench/pattern.h"

namespace commdx::bench::kernels {

bool Available();

// Writes InputValue(p, value_rank, i) for i in [0, elems) as dtype.
cudaError_t Fill(void* ptr, uint64_t elems, const pattern::Params& p, int value_rank,
                 cudaStream_t stream);
// Adds to *d_count (device memory) the elements that differ from Expected(p, i).
cudaError_t CountWrong(const void* ptr, uint64_t elems, const pattern::Params& p,
                       unsigned long long* d_count, cudaStream_t stream);
// Holds the stream until *ticket (host-mapped memory) reaches `wait_for`, so a batch can be
// queued completely before the GPU starts it: iteration times then exclude launch gaps.
cudaError_t Gate(const volatile unsigned* ticket, unsigned wait_for, cudaStream_t stream);
// Busy-waits on the GPU clock for `ns` nanoseconds in `blocks` small blocks.
cudaError_t Spin(uint64_t ns, int blocks, cudaStream_t stream);
// Copies bytes (multiple of 16 handled, tail byte-wise) with `blocks` blocks; dst may be a peer
// device's memory (peer access enabled).
cudaError_t Copy(void* dst, const void* src, uint64_t bytes, int blocks, cudaStream_t stream);

}  // namespace commdx::bench::kernels
