// A result commdx saved earlier (a `--format json` report or a `--save` snapshot), read back
// for `commdx compare`: its findings and every number and string in it, by a stable path.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/finding.h"

namespace commdx {

struct SavedFinding {
  std::string id;
  Severity severity = Severity::kInfo;
  std::string title;
  int rank = -1;  // -1: no rank
  double saving_ns_per_step = -1;  // "saving_per_step_ns"; -1: not priced
  double confidence = -1;          // -1: not given
};

struct SavedResult {
  std::string path;
  std::string command;  // "diagnose", "bench", "topo", ...
  int schema_version = 0;
  std::vector<SavedFinding> findings;
  // Flattened leaves: "data.bench[size_bytes=1048576].busbw_gbps" -> 123.4
  std::vector<std::pair<std::string, double>> numbers;
  std::vector<std::pair<std::string, std::string>> strings;
};

}  // namespace commdx
