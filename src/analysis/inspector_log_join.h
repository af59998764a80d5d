// NCCL Inspector communicators joined with what NCCL's own log of the same job knows of them.
// The plugin names a communicator by its commHash printed "0x%lx" into 17 bytes, so "0x" and at
// most 14 hex digits (`0x9b08cb12e3d529`); NCCL's init lines print the same hash whole
// (`commId 0x9b08cb12e3d529b8`). An Inspector id of 16 characters is cut: it joins the log's
// communicator whose commId starts with it, only when exactly one does (two or more: ambiguous,
// said, not joined). A shorter id is the whole hash: it joins an equal commId only. Init lines of
// ncclCommSplit / ncclCommShrink print no commId: such communicators are not joined.
// docs/findings/inspector.md, "NCCL's log of the same job".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/finding.h"
#include "model/nccl_setup.h"

namespace commdx::analysis {

struct InspectorLogJoin {
  const NcclCommunicator* comm = nullptr;        // the one log communicator it names
  std::vector<const NcclCommunicator*> several;  // two or more it may name: not joined
  bool log_has_ids = false;                      // the log holds communicators with a commId at all
};

// Whether an Inspector id names a log commId: a prefix of it when the id was cut, else equal.
bool InspectorIdNames(std::string_view inspector_id, std::string_view log_comm_id);

// Joins an Inspector id with the log's communicators; a communicator name (NCCL 2.30's buckets
// carry no id) joins nothing.
InspectorLogJoin JoinInspectorComm(const NcclSetup& nccl, std::string_view inspector_id);

// The sentence a finding about the Inspector's communicator `inspector_id` adds: what the log
// knows of it (commId, ranks with host, pid and GPU, nodes, channels, transports), that the id is
// ambiguous, or that the log has no communicator it names. Empty when no log has a communicator
// with a commId. `refs` gets the log lines it rests on.
std::string DescribeJoin(const InspectorLogJoin& join, std::string_view inspector_id,
                         std::vector<EvidenceRef>& refs);

// " NCCL's log of the same job (commId 0x..) puts rank 1 at pid 1139 on vm, GPU 0, bus 60.":
// where the joined communicator's log puts one rank; `refs` gets that rank's init line. Not
// joined: DescribeJoin's sentence. Empty when the log does not know.
std::string DescribeJoinedRank(const InspectorLogJoin& join, std::string_view inspector_id,
                               int rank, std::vector<EvidenceRef>& refs);

}  // namespace commdx::analysis
