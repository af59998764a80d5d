// The input-quality table: bad records that were skipped (or kept with a caveat), counted by
// kind, with the first place each kind was seen. Nothing an importer drops goes unreported.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/quality_ids.h"
#include "base/result.h"

namespace commdx {

enum class DiagSeverity { kNote, kWarning, kError };

const char* DiagSeverityName(DiagSeverity s);

struct DiagEntry {
  std::string id;  // stable, from kQualityIds (base/quality_ids.h), e.g. "kineto.bad_event"
  DiagSeverity severity = DiagSeverity::kWarning;
  std::string message;  // what was wrong and what was done about it
  SourceLoc first;      // first place seen
  uint64_t count = 0;
};

class Diagnostics {
 public:
  // Counts one occurrence of `id`; the message and location of the first one are kept.
  void Add(QualityId id, DiagSeverity severity, std::string_view message, const SourceLoc& where) {
    AddId(id.str(), severity, message, where);
  }
  // The same for the member `name` of a family ("load.partial_" + "kineto").
  void Add(QualityFamily family, std::string_view name, DiagSeverity severity,
           std::string_view message, const SourceLoc& where) {
    AddId(std::string(family.prefix()) + std::string(name), severity, message, where);
  }
  void Merge(const Diagnostics& other);
  // Merges one entry as another run counted it (a summary read back); the caller has checked
  // that its id is one of kQualityIds.
  void MergeEntry(const DiagEntry& entry);
  // Drops every entry of `id`: for notes recomputed from scratch when more input arrives.
  void Remove(QualityId id);
  void Remove(QualityFamily family, std::string_view name);

  const std::vector<DiagEntry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  uint64_t Count(QualityId id) const { return CountId(id.str()); }
  uint64_t Count(QualityFamily family, std::string_view name) const {
    return CountId(std::string(family.prefix()) + std::string(name));
  }

 private:
  uint64_t CountId(std::string_view id) const;
  void AddId(std::string_view id, DiagSeverity severity, std::string_view message,
             const SourceLoc& where);

  std::vector<DiagEntry> entries_;  // in order of first appearance
};

}  // namespace commdx
