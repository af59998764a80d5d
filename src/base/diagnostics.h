// The input-quality table: bad records that were skipped (or kept with a caveat), counted by
// kind, with the first place each kind was seen. Nothing an importer drops goes unreported.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace commdx {

enum class DiagSeverity { kNote, kWarning, kError };

const char* DiagSeverityName(DiagSeverity s);

struct DiagEntry {
  std::string id;  // stable, e.g. "nccl_log.unparsed_transport_line"
  DiagSeverity severity = DiagSeverity::kWarning;
  std::string message;  // what was wrong and what was done about it
  SourceLoc first;      // first place seen
  uint64_t count = 0;
};

class Diagnostics {
 public:
  // Counts one occurrence of `id`; the message and location of the first one are kept.
  void Add(std::string_view id, DiagSeverity severity, std::string_view message,
           const SourceLoc& where);
  void Merge(const Diagnostics& other);
  // Drops every entry of `id`: for notes recomputed from scratch when more input arrives.
  void Remove(std::string_view id);

  const std::vector<DiagEntry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  uint64_t Count(std::string_view id) const;

 private:
  std::vector<DiagEntry> entries_;  // in order of first appearance
};

}  // namespace commdx
