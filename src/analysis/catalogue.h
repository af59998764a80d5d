// The catalogue of findings commdx can raise (DESIGN.md §5). Ids are stable once released.
#pragma once

#include <string_view>
#include <vector>

#include "model/finding.h"

namespace commdx::analysis {

struct CatalogueEntry {
  const char* id;
  Severity default_severity;
  int method_step;    // DESIGN.md §1 step
  const char* title;  // what it means, one line
};

const std::vector<CatalogueEntry>& Catalogue();
const CatalogueEntry* FindCatalogueEntry(std::string_view id);

}  // namespace commdx::analysis
