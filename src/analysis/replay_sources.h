// Inside BuildReplayPlan (analysis/replay_plan.h): one builder per input, and what they share —
// PyTorch and NCCL datatypes, NCCL's count from nccl-tests' size, the check that a call can be
// replayed, and the notes of what was left out or assumed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "model/job.h"
#include "model/replay_plan.h"

namespace commdx::analysis::replay {

// Each builder fills `source`, `files`, `world_size`, `groups` (calls that can be replayed
// only), `left_out` and `assumed`; a plan with no call means the input gave nothing to replay.
ReplayPlan FromTrace(const TraceSet& set);
ReplayPlan FromInspector(const std::vector<InspectorRecord>& records);
ReplayPlan FromFlight(const std::vector<FrDump>& dumps);
ReplayPlan FromNcclLog(const NcclSetup& nccl);

// ncclDataType_t of a dtype as PyTorch writes it ("Float" 7, "BFloat16" 9, "Long" 4, "Bool" 1
// as uint8); -1 for one NCCL has no type for (complex, quantized) or an unknown name.
int NcclDtypeOfTorch(std::string_view dtype);

// What a builder could not replay and what it assumed, for the plan's left_out and assumed.
class Notes {
 public:
  // `n` calls of `type` in `group` could not be replayed, for reason `why`.
  void LeaveOut(const std::string& group, CollectiveType type, const std::string& why,
                uint64_t n = 1);
  // A sentence on what was assumed; each kept once, in first-seen order.
  void Assume(const std::string& sentence);
  // left_out: "group 0: 3 barrier calls left out: NCCL has no barrier call ...", in group, kind
  // and reason order; assumed as given.
  void Fill(ReplayPlan& plan) const;

 private:
  std::map<std::tuple<std::string, CollectiveType, std::string>, uint64_t> left_out_;
  std::vector<std::string> assumed_;
};

// The datatype assumed where the input gives sizes in bytes only (Inspector, Nsight Systems'
// NCCL payloads), chosen so that count x its size is `nccl_bytes` (NCCL's count x element size):
// reductions as float32 (bfloat16, then uint8, where the bytes do not divide), so the reduction
// kernels run on a type training reduces in; every other call as uint8, as it only moves bytes.
// Noted as assumed.
int ByteExactDtype(CollectiveType type, uint64_t nccl_bytes, Notes& notes);

// Adds `group` to the plan, and `file` (what its calls were read from) to its files, unless the
// group has no call.
void AddGroup(ReplayPlan& plan, ReplayGroup group, const std::string& file);

// Why NCCL has no call to replay `type` by ("NCCL has no barrier call ..."); "" when it has.
std::string NoNcclCall(CollectiveType type);

// Completes `call` (type, dtype and count set; red_op and root where the input gave them) and
// says whether it can be replayed; if not, notes why. A reduction of unknown operator becomes
// sum, a broadcast or reduce of unknown root has root 0 (both noted as assumed); red_op and root
// are cleared where the type takes none; bytes become nccl-tests' size of what will run.
bool Admit(ReplayCall& call, int nranks, const std::string& group, Notes& notes);

}  // namespace commdx::analysis::replay
