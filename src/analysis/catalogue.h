// The catalogue of findings commdx can raise (docs/findings.md): the table is catalogue_table.h.
// Each id's source, default severity, role, method step and title are kept there and nowhere
// else: the analysis run (registry.cc) stamps them on every finding. Analyzers name an id through
// FindingId, which is checked against the table when the program is compiled.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "analysis/catalogue_table.h"
#include "model/finding.h"

namespace commdx::analysis {

const char* RoleName(Role r);  // "cause" | "symptom" | "context"

// Every entry, in the table's order (`commdx diagnose --list`).
std::span<const CatalogueEntry> Catalogue();

// Whether `id` is in the catalogue; usable when the program is compiled.
consteval bool InCatalogue(std::string_view id) {
  for (const CatalogueEntry& e : kCatalogue)
    if (std::string_view(e.id) == id) return true;
  return false;
}

// A finding id known to be in the catalogue. A string literal converts to it only when it names
// an entry: NewFinding("trace.host_synk") does not compile. Ids known only at run time (a table's
// column) go through Find.
class FindingId {
 public:
  consteval FindingId(const char* id) : entry_(&Lookup(id)) {}  // NOLINT(google-explicit-*)
  // nullopt when `id` is not in the catalogue.
  static std::optional<FindingId> Find(std::string_view id);

  const CatalogueEntry& entry() const { return *entry_; }
  const char* str() const { return entry_->id; }

 private:
  explicit constexpr FindingId(const CatalogueEntry* e) : entry_(e) {}
  static consteval const CatalogueEntry& Lookup(std::string_view id) {
    for (const CatalogueEntry& e : kCatalogue)
      if (std::string_view(e.id) == id) return e;
    // Not a constant expression: the call that named this id fails to compile.
    throw "finding id missing from the catalogue (src/analysis/catalogue_table.h)";
  }

  const CatalogueEntry* entry_;
};

const CatalogueEntry* FindCatalogueEntry(std::string_view id);

// A finding with its id and the catalogue's severity, title and method step; an analyzer then
// adds what it saw (and raises or lowers the severity where its evidence says so).
Finding NewFinding(FindingId id);

// A finding's role; an id outside the catalogue (a finding built by hand) is a cause.
Role RoleOf(std::string_view id);

}  // namespace commdx::analysis
