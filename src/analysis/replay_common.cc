// What the replay plan's builders share (analysis/replay_sources.h).
#include <algorithm>
#include <array>
#include <utility>

#include "analysis/replay_sources.h"
#include "model/nccl_calls.h"

namespace commdx::analysis::replay {

namespace {

bool Reduces(CollectiveType type) {
  return type == CollectiveType::kAllReduce || type == CollectiveType::kReduce ||
         type == CollectiveType::kReduceScatter;
}

}  // namespace

int NcclDtypeOfTorch(std::string_view dtype) {
  // PyTorch's ScalarType names (c10/core/ScalarType.h) as Kineto and Flight Recorder write them.
  static constexpr std::array<std::pair<std::string_view, int>, 17> kTypes = {{
      {"Char", 0},
      {"Byte", 1},
      {"Bool", 1},
      {"Int", 2},
      {"UInt32", 3},
      {"Long", 4},
      {"UInt64", 5},
      {"Half", 6},
      {"Float", 7},
      {"Double", 8},
      {"BFloat16", 9},
      {"Float8_e4m3fn", 10},
      {"Float8_e5m2", 11},
      // Spellings of other writers.
      {"Int8", 0},
      {"UInt8", 1},
      {"Int32", 2},
      {"Int64", 4},
  }};
  for (const auto& [name, nccl] : kTypes)
    if (name == dtype) return nccl;
  return -1;
}

void Notes::LeaveOut(const std::string& group, CollectiveType type, const std::string& why,
                     uint64_t n) {
  if (n > 0) left_out_[{group, type, why}] += n;
}

void Notes::Assume(const std::string& sentence) {
  if (std::find(assumed_.begin(), assumed_.end(), sentence) == assumed_.end())
    assumed_.push_back(sentence);
}

void AddGroup(ReplayPlan& plan, ReplayGroup group, const std::string& file) {
  if (group.calls.empty()) return;
  if (std::find(plan.files.begin(), plan.files.end(), file) == plan.files.end())
    plan.files.push_back(file);
  plan.groups.push_back(std::move(group));
}

void Notes::Fill(ReplayPlan& plan) const {
  for (const auto& [key, n] : left_out_) {
    const auto& [group, type, why] = key;
    plan.left_out.push_back("group " + (group.empty() ? std::string("unknown") : group) + ": " +
                            std::to_string(n) + " " + CollectiveTypeName(type) +
                            (n == 1 ? " call" : " calls") + " left out: " + why);
  }
  plan.assumed.insert(plan.assumed.end(), assumed_.begin(), assumed_.end());
}

int ByteExactDtype(CollectiveType type, uint64_t nccl_bytes, Notes& notes) {
  notes.Assume(
      "The input gives sizes in bytes but no datatypes: reductions are replayed as float32 "
      "(bfloat16 or uint8 where the bytes do not divide), other calls as uint8, so that each "
      "call moves the bytes it moved in the job.");
  constexpr int kUint8 = 1, kFloat32 = 7, kBfloat16 = 9;  // ncclDataType_t
  if (!Reduces(type)) return kUint8;
  if (nccl_bytes % 4 == 0) return kFloat32;
  return nccl_bytes % 2 == 0 ? kBfloat16 : kUint8;
}

std::string NoNcclCall(CollectiveType type) {
  switch (type) {
    case CollectiveType::kUnknown:
      return "the input does not say which collective it was";
    case CollectiveType::kBarrier:
      return "NCCL has no barrier call (PyTorch runs one as a 1-element all_reduce)";
    case CollectiveType::kGather:
    case CollectiveType::kScatter:
      return "NCCL has no gather or scatter call (PyTorch runs one as sends and receives)";
    case CollectiveType::kSendRecv:
      return "a send and a receive in one kernel, whose peers and sizes the input does not give";
    default:
      return "";
  }
}

bool Admit(ReplayCall& call, int nranks, const std::string& group, Notes& notes) {
  if (std::string why = NoNcclCall(call.type); !why.empty()) {
    notes.LeaveOut(group, call.type, why);
    return false;
  }
  const int dtype_bytes = NcclDataTypeBytes(call.dtype);
  if (dtype_bytes <= 0) {
    notes.LeaveOut(group, call.type, "its datatype is not known");
    return false;
  }
  if (CountIsPerRank(call.type) && nranks <= 0) {
    notes.LeaveOut(group, call.type, "the ranks of its group are not known");
    return false;
  }
  if (call.count == 0) {
    notes.LeaveOut(group, call.type, "its size is not known or is 0");
    return false;
  }
  const bool p2p = call.type == CollectiveType::kSend || call.type == CollectiveType::kRecv;
  if (p2p && call.root < 0) {
    notes.LeaveOut(group, call.type, "its peer is not known");
    return false;
  }
  if (!Reduces(call.type))
    call.red_op = -1;
  else if (call.red_op < 0) {
    call.red_op = 0;
    notes.Assume("The input does not record reduction operators: reductions are replayed as sum.");
  }
  const bool rooted =
      call.type == CollectiveType::kBroadcast || call.type == CollectiveType::kReduce;
  if (!rooted && !p2p)
    call.root = -1;
  else if (call.root < 0) {
    call.root = 0;
    notes.Assume(
        "The input does not record the root of broadcast and reduce calls: rank 0 is "
        "assumed.");
  }
  call.bytes = NcclTestsBytes(call.type, call.count,
                              static_cast<uint64_t>(std::max(dtype_bytes, 0)), nranks);
  return true;
}

}  // namespace commdx::analysis::replay
