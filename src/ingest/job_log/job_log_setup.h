// ProcessGroupNCCL's start-up lines (options and settings in effect per process group and rank)
// and DDP's bucket lines, read from a job's stdout/stderr.
#pragma once

#include <cstddef>
#include <string_view>

#include "base/file.h"
#include "ingest/job_log/job_log_state.h"
#include "model/job.h"

namespace commdx::ingest::job_log {

// Both complete the facts already in state.setup / `out` (those of the text before, for a file
// read in windows): a group or a rank already there takes what the lines of `f` print. A group's
// place is its first options line, else its first settings line.
void ReadProcessGroups(const FileText& f, FileState& state);
void ReadDdp(const FileText& f, JobLogFacts& out);

// Where a "DDP Initialized with:" block still open at the end of `data` (no empty line after it
// yet, and it started less than the most a block is read over before) begins: the next window
// may hold the rest of it. `data.size()` when none is open.
size_t OpenDdpBlockStart(std::string_view data);

// The settings of the process groups as environment variables of the job (first value seen
// wins, as with environment dumps), each naming the line it came from.
void AddSettingsToEnv(const JobLogFacts& facts, EnvSnapshot& env);

}  // namespace commdx::ingest::job_log
