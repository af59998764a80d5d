#include "analysis/catalogue.h"

namespace commdx::analysis {

std::span<const CatalogueEntry> Catalogue() { return kCatalogue; }

std::optional<FindingId> FindingId::Find(std::string_view id) {
  if (const CatalogueEntry* e = FindCatalogueEntry(id)) return FindingId(e);
  return std::nullopt;
}

const char* RoleName(Role r) {
  switch (r) {
    case Role::kCause:
      return "cause";
    case Role::kSymptom:
      return "symptom";
    case Role::kContext:
      return "context";
  }
  return "cause";
}

Finding NewFinding(FindingId id) {
  const CatalogueEntry& e = id.entry();
  Finding f;
  f.id = e.id;
  f.severity = e.default_severity;
  f.title = e.title;
  f.method_step = e.method_step;
  return f;
}

Role RoleOf(std::string_view id) {
  const CatalogueEntry* e = FindCatalogueEntry(id);
  return e ? e->role : Role::kCause;
}

const CatalogueEntry* FindCatalogueEntry(std::string_view id) {
  for (const CatalogueEntry& e : kCatalogue)
    if (id == e.id) return &e;
  return nullptr;
}

}  // namespace commdx::analysis
