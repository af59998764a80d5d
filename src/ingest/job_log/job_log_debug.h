// What PyTorch's TORCH_DISTRIBUTED_DEBUG=DETAIL checks print when ranks disagree before a
// collective: ranks that never reached its monitored barrier, and collectives whose
// fingerprints (sequence number, op, shapes, dtypes) differ between ranks.
#pragma once

#include "base/file.h"
#include "model/job.h"

namespace commdx::ingest::job_log {

void ReadBarrierTimeouts(const FileText& f, JobLogFacts& out);
void ReadFingerprintMismatches(const FileText& f, JobLogFacts& out);

}  // namespace commdx::ingest::job_log
