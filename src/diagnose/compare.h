// `commdx compare A B`: what changed between two saved results (node vs node, before vs after).
#pragma once

#include <string>
#include <vector>

#include "model/saved_result.h"

namespace commdx::diagnose {

struct NumberChange {
  std::string path;
  double before = 0;
  double after = 0;
  double relative = 0;  // (after - before) / |before|; ±inf when before is 0
};

struct StringChange {
  std::string path;
  std::string before;
  std::string after;
};

struct Comparison {
  std::vector<SavedFinding> added;     // in B, not in A
  std::vector<SavedFinding> resolved;  // in A, not in B
  std::vector<NumberChange> numbers;   // |relative| >= threshold, largest first
  std::vector<StringChange> strings;
  std::vector<std::string> only_in_a;  // paths
  std::vector<std::string> only_in_b;
};

struct CompareOptions {
  double threshold = 0.05;  // report numbers that moved by at least this fraction
};

Comparison Compare(const SavedResult& a, const SavedResult& b, const CompareOptions& options);

}  // namespace commdx::diagnose
