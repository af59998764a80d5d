// Reads a commdx JSON result (report or snapshot) back for `commdx compare`.
#pragma once

#include "base/file.h"
#include "base/result.h"
#include "model/saved_result.h"

namespace commdx::ingest {

// Errors: not JSON (file:line:col), JSON without commdx's "schema_version", a report whose
// "findings" is missing or not an array of objects with a string "id".
Result<SavedResult> ReadSavedResult(const FileText& file);

}  // namespace commdx::ingest
