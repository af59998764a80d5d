// Reads a commdx JSON result (report or snapshot) back for `commdx compare`.
#pragma once

#include "base/file.h"
#include "base/result.h"
#include "model/saved_result.h"

namespace commdx::ingest {

// Errors: not JSON (file:line:col), or JSON without commdx's "schema_version".
Result<SavedResult> ReadSavedResult(const FileText& file);

}  // namespace commdx::ingest
