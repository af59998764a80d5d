// The one "nothing was read" error of every command that reads files: when the files gave
// nothing the command needs, one file is named with why it was not read; several are counted,
// the first few named with their reasons. Exit 3 (bad input), like a broken file named alone.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "model/job.h"
#include "pipeline/request.h"

namespace commdx::pipeline {

Status CheckSomethingRead(Needs needs, const std::vector<std::string>& paths, const Job& job);

// Why a file holds no NCCL log line, in words a user can act on (binary data, nccl-tests
// output without debug lines, ...); reads at most the file's first 64 KiB.
std::string WhyNotNcclLog(const std::string& path);

}  // namespace commdx::pipeline
