// What NCCL WARN messages mean: a table from message signatures to a finding id, a plain-words
// cause and the fix (data for comm_warnings.cc). Signatures are substrings seen across NCCL
// 2.2 - 2.30 (docs/nccl-log-grammar.md §2).
#pragma once

#include <string_view>

#include "model/finding.h"

namespace commdx::analysis {

struct WarnRule {
  const char* key;  // stable name of the rule, e.g. "shm_no_space"
  const char* id;   // finding id
  Severity severity;
  bool fallout;       // usually a consequence of an earlier error elsewhere
  const char* cause;  // plain words
  const char* fix;
  const char* fixed_in = nullptr;  // NCCL version that fixed the underlying bug, if any
  double confidence = 1.0;         // lower where the message has several known causes
};

// The rule for a WARN text (and the source file it was logged from); nullptr when commdx does
// not know the message. Benign messages map to a rule with severity kInfo and id "".
const WarnRule* MatchWarn(std::string_view text, std::string_view source_file);

// "Error while creating shared memory segment" with nothing before it but NCCL's system-error
// code (ncclSystemError, no CUDA failure anywhere): the segment could not be created in /dev/shm,
// which is then most likely too small (comm.shm_too_small).
const WarnRule& ShmCreateWithSystemError();

// Plain name of an ncclResult_t code: 2 -> "ncclSystemError (unhandled system error)".
const char* NcclResultName(int code);

}  // namespace commdx::analysis
