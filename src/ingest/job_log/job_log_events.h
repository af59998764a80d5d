// What PyTorch prints when its heartbeat monitor finds the NCCL watchdog stuck, and when it
// takes a process down after a collective timeout: model/job_log.h's WatchdogEvent.
#pragma once

#include "base/file.h"
#include "ingest/job_log/job_log_state.h"
#include "model/job.h"

namespace commdx::ingest::job_log {

void ReadWatchdogEvents(const FileText& f, JobLogFacts& out, Diagnostics& quality,
                        FileState& state);

}  // namespace commdx::ingest::job_log
