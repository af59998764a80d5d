// The one list of benchmark cases, with stable keys (`commdx bench --list` prints it).
#pragma once

#include <string_view>
#include <vector>

#include "base/result.h"
#include "bench/backend.h"
#include "bench/options.h"
#include "bench/watchdog.h"
#include "model/bench_result.h"

namespace commdx::bench {

struct Case {
  const char* key;          // "all_reduce", "p2p", "repro", ...
  const char* description;  // one line
  bool needs_nccl;          // false: no communicator is created
  Result<BenchResult> (*run)(Backend& backend, Watchdog* watchdog, const RunOptions& options);
};

const std::vector<Case>& Cases();
const Case* FindCase(std::string_view key);

}  // namespace commdx::bench
