// Merges the NcclSetup of one log file after another into a job's, each file once: the same
// setup as reading the files one after another into one Job, at a cost linear in what is merged.
// The indexes (communicators by id, each communicator's connections by what they connect,
// processes by host and pid) live as long as the merge, and connections are put in file and line
// order once, at Finish, not after every file (issue 40: that re-sorting and re-indexing made
// 4,096 ranks' logs take minutes).
#pragma once

#include <cstddef>
#include <memory>

#include "model/nccl_setup.h"

namespace commdx::ingest::nccl_log {

class SetupMerge {
 public:
  explicit SetupMerge(NcclSetup& into);
  ~SetupMerge();
  SetupMerge(const SetupMerge&) = delete;
  SetupMerge& operator=(const SetupMerge&) = delete;

  // One file's setup (what the builder made of that file alone), files in order. A process
  // already known from an earlier file keeps its first record; a connection already seen in its
  // communicator is counted, not repeated.
  void Add(NcclSetup&& part);
  // Orders the connections of every communicator that Add touched by file and line (a stable
  // sort, so lines spliced into one physical line keep their order). Add may follow.
  void Finish();

 private:
  struct Index;
  NcclSetup& into_;
  std::unique_ptr<Index> index_;
};

}  // namespace commdx::ingest::nccl_log
