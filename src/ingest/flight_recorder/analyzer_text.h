// The text PyTorch's Flight Recorder analyzer prints (python -m
// torch.distributed.flight_recorder.fr_trace DIR, installed as `torchfrtrace`; PyTorch 2.5 -
// 2.11): each collective it found wrong, with its sequence number, group, state, the ranks
// missing or to blame and the Python frames. Recognised by content; shares its file with job
// logs (the output is often pasted into one).
#pragma once

#include <string_view>

#include "base/file.h"
#include "base/result.h"
#include "model/job.h"

namespace commdx::ingest {

bool SniffFrAnalysis(std::string_view head);
Status ParseFrAnalysis(const FileText& file, Job& job);

}  // namespace commdx::ingest
