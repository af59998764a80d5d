#include "base/diagnostics.h"

namespace commdx {

const char* DiagSeverityName(DiagSeverity s) {
  switch (s) {
    case DiagSeverity::kNote:
      return "note";
    case DiagSeverity::kWarning:
      return "warning";
    case DiagSeverity::kError:
      return "error";
  }
  return "note";
}

void Diagnostics::AddId(std::string_view id, DiagSeverity severity, std::string_view message,
                        const SourceLoc& where) {
  for (auto& e : entries_) {
    if (e.id == id) {
      ++e.count;
      return;
    }
  }
  entries_.push_back(DiagEntry{std::string(id), severity, std::string(message), where, 1});
}

void Diagnostics::Merge(const Diagnostics& other) {
  for (const auto& o : other.entries_) MergeEntry(o);
}

void Diagnostics::MergeEntry(const DiagEntry& entry) {
  for (auto& e : entries_) {
    if (e.id == entry.id) {
      e.count += entry.count;
      return;
    }
  }
  entries_.push_back(entry);
}

void Diagnostics::Remove(QualityId id) {
  std::erase_if(entries_, [id](const DiagEntry& e) { return e.id == id.str(); });
}

void Diagnostics::Remove(QualityFamily family, std::string_view name) {
  const std::string id = std::string(family.prefix()) + std::string(name);
  std::erase_if(entries_, [&id](const DiagEntry& e) { return e.id == id; });
}

uint64_t Diagnostics::CountId(std::string_view id) const {
  for (const auto& e : entries_)
    if (e.id == id) return e.count;
  return 0;
}

}  // namespace commdx
