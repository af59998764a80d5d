// What PyTorch prints when its heartbeat monitor finds the NCCL watchdog stuck, and when it
// takes a process down after a collective timeout: model/job_log.h's WatchdogEvent.
#pragma once

#include "base/file.h"
#include "model/job.h"

namespace commdx::ingest::job_log {

void ReadWatchdogEvents(const FileText& f, JobLogFacts& out, Diagnostics& quality);

}  // namespace commdx::ingest::job_log
