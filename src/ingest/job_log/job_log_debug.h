// What PyTorch's TORCH_DISTRIBUTED_DEBUG=DETAIL checks print when ranks disagree before a
// collective: ranks that never reached its monitored barrier, and collectives whose
// fingerprints (sequence number, op, shapes, dtypes) differ between ranks.
#pragma once

#include "base/file.h"
#include "ingest/job_log/job_log_state.h"
#include "model/job.h"

namespace commdx::ingest::job_log {

// A barrier timeout names the collective its reporter was entering: its last "Running
// collective" line before it, in `f` or else in the text before (state.last_running).
void ReadBarrierTimeouts(const FileText& f, JobLogFacts& out, FileState& state);
void ReadFingerprintMismatches(const FileText& f, JobLogFacts& out, FileState& state);

// Each rank's last "Running collective" line of `f` into state.last_running, for the text that
// follows it (the next window of a file read in windows).
void NoteLastRunning(const FileText& f, FileState& state);

}  // namespace commdx::ingest::job_log
