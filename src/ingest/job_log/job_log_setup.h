// ProcessGroupNCCL's start-up lines (options and settings in effect per process group and rank)
// and DDP's bucket lines, read from a job's stdout/stderr.
#pragma once

#include "base/file.h"
#include "model/job.h"

namespace commdx::ingest::job_log {

void ReadProcessGroups(const FileText& f, JobLogFacts& out);
void ReadDdp(const FileText& f, JobLogFacts& out);

// The settings of the process groups as environment variables of the job (first value seen
// wins, as with environment dumps), each naming the line it came from.
void AddSettingsToEnv(const JobLogFacts& facts, EnvSnapshot& env);

}  // namespace commdx::ingest::job_log
