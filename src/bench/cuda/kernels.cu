// Device kernels (see kernels.h). Compiled by nvcc only; no NCCL here.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "bench/cuda/kernels.h"

namespace commdx::bench::kernels {

namespace {

template <class T>
__device__ T FromDouble(double v) { return static_cast<T>(v); }
template <>
__device__ __half FromDouble<__half>(double v) { return __float2half(static_cast<float>(v)); }
template <>
__device__ __nv_bfloat16 FromDouble<__nv_bfloat16>(double v) {
  return __float2bfloat16(static_cast<float>(v));
}
template <>
__device__ __nv_fp8_e4m3 FromDouble<__nv_fp8_e4m3>(double v) {
  return __nv_fp8_e4m3(static_cast<float>(v));
}
template <>
__device__ __nv_fp8_e5m2 FromDouble<__nv_fp8_e5m2>(double v) {
  return __nv_fp8_e5m2(static_cast<float>(v));
}

template <class T>
__device__ double ToDouble(T v) { return static_cast<double>(v); }
template <>
__device__ double ToDouble<__half>(__half v) { return __half2float(v); }
template <>
__device__ double ToDouble<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <>
__device__ double ToDouble<__nv_fp8_e4m3>(__nv_fp8_e4m3 v) { return static_cast<float>(v); }
template <>
__device__ double ToDouble<__nv_fp8_e5m2>(__nv_fp8_e5m2 v) { return static_cast<float>(v); }

template <class T>
__global__ void FillKernel(T* out, uint64_t n, pattern::Params p, int value_rank) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x)
    out[i] = FromDouble<T>(pattern::InputValue(p, value_rank, i));
}

template <class T>
__global__ void CheckKernel(const T* in, uint64_t n, pattern::Params p,
                            unsigned long long* count) {
  bool integer = pattern::IsIntegerType(p.dtype);
  unsigned long long wrong = 0;
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x) {
    double want = pattern::Expected(p, i, integer);
    double got = ToDouble<T>(in[i]);
    double d = got - want;
    if (!(d <= pattern::Tolerance(p.dtype, want) && -d <= pattern::Tolerance(p.dtype, want)))
      ++wrong;
  }
  if (wrong) atomicAdd(count, wrong);
}

__device__ uint64_t GlobalTimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void GateKernel(const volatile unsigned* ticket, unsigned wait_for) {
  while (*ticket < wait_for) __nanosleep(200);
}

__global__ void SpinKernel(uint64_t ns) {
  uint64_t start = GlobalTimer();
  while (GlobalTimer() - start < ns) {
  }
}

__global__ void CopyKernel(int4* dst, const int4* src, uint64_t n16, char* dtail,
                           const char* stail, uint64_t tail) {
  uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x;
  for (; i < n16; i += stride) dst[i] = src[i];
  if (blockIdx.x == 0 && threadIdx.x < tail) dtail[threadIdx.x] = stail[threadIdx.x];
}

int GridFor(uint64_t n) {
  uint64_t blocks = (n + 255) / 256;
  return static_cast<int>(blocks < 4096 ? (blocks ? blocks : 1) : 4096);
}

template <class F>
cudaError_t Dispatch(int dtype, F&& f) {
  switch (dtype) {
    case 0: return f(static_cast<int8_t*>(nullptr));
    case 1: return f(static_cast<uint8_t*>(nullptr));
    case 2: return f(static_cast<int32_t*>(nullptr));
    case 3: return f(static_cast<uint32_t*>(nullptr));
    case 4: return f(static_cast<int64_t*>(nullptr));
    case 5: return f(static_cast<uint64_t*>(nullptr));
    case 6: return f(static_cast<__half*>(nullptr));
    case 7: return f(static_cast<float*>(nullptr));
    case 8: return f(static_cast<double*>(nullptr));
    case 9: return f(static_cast<__nv_bfloat16*>(nullptr));
    case 10: return f(static_cast<__nv_fp8_e4m3*>(nullptr));
    case 11: return f(static_cast<__nv_fp8_e5m2*>(nullptr));
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

bool Available() { return true; }

cudaError_t Fill(void* ptr, uint64_t elems, const pattern::Params& p, int value_rank,
                 cudaStream_t stream) {
  if (elems == 0) return cudaSuccess;
  return Dispatch(p.dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    FillKernel<T><<<GridFor(elems), 256, 0, stream>>>(static_cast<T*>(ptr), elems, p, value_rank);
    return cudaGetLastError();
  });
}

cudaError_t CountWrong(const void* ptr, uint64_t elems, const pattern::Params& p,
                       unsigned long long* d_count, cudaStream_t stream) {
  if (elems == 0) return cudaSuccess;
  return Dispatch(p.dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    CheckKernel<T><<<GridFor(elems), 256, 0, stream>>>(static_cast<const T*>(ptr), elems, p,
                                                       d_count);
    return cudaGetLastError();
  });
}

cudaError_t Gate(const volatile unsigned* ticket, unsigned wait_for, cudaStream_t stream) {
  GateKernel<<<1, 1, 0, stream>>>(ticket, wait_for);
  return cudaGetLastError();
}

cudaError_t Spin(uint64_t ns, int blocks, cudaStream_t stream) {
  SpinKernel<<<blocks > 0 ? blocks : 1, 32, 0, stream>>>(ns);
  return cudaGetLastError();
}

cudaError_t Copy(void* dst, const void* src, uint64_t bytes, int blocks, cudaStream_t stream) {
  uint64_t n16 = bytes / 16;
  uint64_t tail = bytes % 16;
  CopyKernel<<<blocks > 0 ? blocks : 1, 512, 0, stream>>>(
      static_cast<int4*>(dst), static_cast<const int4*>(src), n16,
      static_cast<char*>(dst) + n16 * 16, static_cast<const char*>(src) + n16 * 16, tail);
  return cudaGetLastError();
}

}  // namespace commdx::bench::kernels
