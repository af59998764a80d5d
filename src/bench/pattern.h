// The data a benchmark puts into its buffers and the value each output element must hold
// afterwards. Shared by the CUDA kernels (kernels.cu), the host fallback and the fake backend,
// so it includes no CUDA header. Inputs are small integers, so every collective's exact result
// is representable in every type (fp8 only approximately above 16: it gets a tolerance).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define COMMDX_HD __host__ __device__
#else
#define COMMDX_HD
#endif

namespace commdx::bench::pattern {

// Plain ints so device code can use them. Coll: the collectives bench runs (cuda_coll.cc maps
// CollectiveType onto it); Op and DataType: same numbering as bench::RedOp / DataType.
enum Coll : int {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kAllToAll,
  kSendRecv
};
enum Op : int { kSum, kProd, kMax, kMin, kAvg };

struct Params {
  int coll;
  int op;
  int dtype;
  int nranks;
  int rank;
  int root;
  uint64_t count;  // elements per rank parameter (CollSpec::count)
  uint64_t seed;   // changes the pattern between sizes so stale data is caught
  int shift;       // send_recv: data comes from rank - shift (CollSpec::shift)
};

// Input element i of rank r. prod uses 1s and 2s so that products stay exact.
COMMDX_HD inline double InputValue(const Params& p, int r, uint64_t i) {
  uint64_t k = i + p.seed;
  if (p.op == kProd) return ((k + static_cast<uint64_t>(r)) % 4 == 0) ? 2.0 : 1.0;
  return static_cast<double>(1 + (k * 7 + static_cast<uint64_t>(r) * 3) % 5);
}

COMMDX_HD inline double Combine(int op, double a, double b) {
  switch (op) {
    case kProd:
      return a * b;
    case kMax:
      return a > b ? a : b;
    case kMin:
      return a < b ? a : b;
    default:
      return a + b;  // sum, avg (divided at the end)
  }
}

// The reduction over all ranks of input element i.
COMMDX_HD inline double Reduced(const Params& p, uint64_t i, bool integer_type) {
  double acc = InputValue(p, 0, i);
  for (int r = 1; r < p.nranks; ++r) acc = Combine(p.op, acc, InputValue(p, r, i));
  if (p.op == kAvg) {
    acc /= p.nranks;
    if (integer_type) acc = static_cast<double>(static_cast<int64_t>(acc));
  }
  return acc;
}

// True when output element i of this rank is defined by the collective (reduce: root only).
COMMDX_HD inline bool OutputChecked(const Params& p) {
  return !(p.coll == kReduce && p.rank != p.root);
}

// Expected value of output element i (0 <= i < output elements) on rank p.rank.
COMMDX_HD inline double Expected(const Params& p, uint64_t i, bool integer_type) {
  int n = p.nranks;
  uint64_t c = p.count;
  switch (p.coll) {
    case kAllReduce:
    case kReduce:
      return Reduced(p, i, integer_type);
    case kReduceScatter:
      return Reduced(p, static_cast<uint64_t>(p.rank) * c + i, integer_type);
    case kBroadcast:
      return InputValue(p, p.root, i);
    case kAllGather:
      return InputValue(p, static_cast<int>(i / c), i % c);
    case kAllToAll:
      return InputValue(p, static_cast<int>(i / c), static_cast<uint64_t>(p.rank) * c + i % c);
    case kSendRecv:
      return InputValue(p, ((p.rank - p.shift) % n + n) % n, i);
    default:
      return 0;
  }
}

// Allowed absolute error for a value of magnitude v in the given type (DataType numbering).
COMMDX_HD inline double Tolerance(int dtype, double v) {
  double a = v < 0 ? -v : v;
  switch (dtype) {
    case 6:
      return a * 1e-3 + 1e-6;  // half
    case 9:
      return a * 8e-3 + 1e-6;  // bfloat16
    case 10:
      return a * 0.07 + 1e-6;  // fp8 e4m3 (partial sums round)
    case 11:
      return a * 0.13 + 1e-6;  // fp8 e5m2
    case 7:
      return a * 1e-6;  // float
    case 8:
      return a * 1e-12;  // double
    default:
      return 0.5;  // integers: exact
  }
}

COMMDX_HD inline bool IsIntegerType(int dtype) { return dtype <= 5; }

}  // namespace commdx::bench::pattern
