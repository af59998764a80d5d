#include "model/trace.h"

#include "base/varint.h"

namespace commdx {

int DtypeBytes(std::string_view d) {
  struct Entry {
    std::string_view name;
    int bytes;
  };
  // c10 ScalarType names as Kineto writes them in "dtype".
  static constexpr Entry kTable[] = {
      {"Float", 4},
      {"BFloat16", 2},
      {"Half", 2},
      {"Double", 8},
      {"Int", 4},
      {"Long", 8},
      {"Short", 2},
      {"Byte", 1},
      {"Char", 1},
      {"Bool", 1},
      {"ComplexFloat", 8},
      {"ComplexDouble", 16},
      {"ComplexHalf", 4},
      {"Float8_e4m3fn", 1},
      {"Float8_e5m2", 1},
      {"Float8_e4m3fnuz", 1},
      {"Float8_e5m2fnuz", 1},
      {"UInt16", 2},
      {"UInt32", 4},
      {"UInt64", 8},
      {"QInt8", 1},
      {"QUInt8", 1},
      {"QInt32", 4},
  };
  for (const auto& e : kTable)
    if (e.name == d) return e.bytes;
  return 0;
}

const char* StepSourceName(StepSource s) {
  switch (s) {
    case StepSource::kNone:
      return "none";
    case StepSource::kProfilerStep:
      return "ProfilerStep";
    case StepSource::kAnnotation:
      return "annotation";
    case StepSource::kOptimizer:
      return "Optimizer.step";
    case StepSource::kCollectives:
      return "collectives";
    case StepSource::kWholeTrace:
      return "whole trace";
  }
  return "none";
}

}  // namespace commdx

namespace commdx {

PackedHostOps::PackedHostOps(const std::vector<HostOp>& ops) : count_(ops.size()) {
  data_.reserve(ops.size() * 10);
  marks_.reserve((ops.size() + kBlock - 1) / kBlock);
  int64_t prev = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    const HostOp& op = ops[i];
    if (i % kBlock == 0) {
      marks_.push_back({op.start_ns, data_.size()});
      prev = op.start_ns;
    }
    // Differences wrap as unsigned (far-apart times are not an overflow); decoding wraps back.
    PutVarint(data_, ZigZag(static_cast<int64_t>(static_cast<uint64_t>(op.start_ns) -
                                                 static_cast<uint64_t>(prev))));
    PutVarint(data_, ZigZag(static_cast<int64_t>(static_cast<uint64_t>(op.end_ns) -
                                                 static_cast<uint64_t>(op.start_ns))));
    PutVarint(data_, (static_cast<uint64_t>(op.name) << 1) |
                         (op.kind == HostOpKind::kUserAnnotation ? 1u : 0u));
    PutVarint(data_, op.thread);
    data_.push_back(op.flags);
    prev = op.start_ns;
  }
  data_.shrink_to_fit();
}

size_t PackedHostOps::Decode(size_t at, int64_t prev_start, HostOp& op) const {
  op.start_ns = static_cast<int64_t>(static_cast<uint64_t>(prev_start) +
                                     static_cast<uint64_t>(UnZigZag(GetVarint(data_, at))));
  op.end_ns = static_cast<int64_t>(static_cast<uint64_t>(op.start_ns) +
                                   static_cast<uint64_t>(UnZigZag(GetVarint(data_, at))));
  const uint64_t name = GetVarint(data_, at);
  op.name = static_cast<uint32_t>(name >> 1);
  op.kind = name & 1 ? HostOpKind::kUserAnnotation : HostOpKind::kCpuOp;
  op.thread = static_cast<uint32_t>(GetVarint(data_, at));
  op.flags = data_[at++];
  return at;
}

std::vector<HostOp> PackedHostOps::Unpack() const {
  std::vector<HostOp> ops;
  ops.reserve(count_);
  ForEachFrom(INT64_MIN, [&](const HostOp& op) {
    ops.push_back(op);
    return true;
  });
  return ops;
}

std::vector<HostOp> RankTrace::HostOps() const {
  return packed_host_ops.empty() ? host_ops : packed_host_ops.Unpack();
}

void RankTrace::FreeEvents() {
  std::vector<GpuOp>().swap(gpu_ops);
  std::vector<HostOp>().swap(host_ops);
  packed_host_ops = PackedHostOps();
  std::vector<HostOp>().swap(gpu_annotations);
  std::vector<RuntimeCall>().swap(runtime);
  events_freed = true;
}

void RankTrace::PackHostOps() {
  if (host_ops.empty()) return;
  packed_host_ops = PackedHostOps(host_ops);
  std::vector<HostOp>().swap(host_ops);
}

}  // namespace commdx
