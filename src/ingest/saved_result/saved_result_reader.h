// Reads a commdx JSON result (report or snapshot) back for `commdx compare`.
#pragma once

#include <string>
#include <string_view>

#include "base/file.h"
#include "base/result.h"
#include "model/saved_result.h"

namespace commdx::ingest {

// Errors: not JSON (file:line:col), JSON without commdx's "schema_version", a report whose
// "findings" is missing or not an array of objects with a string "id".
Result<SavedResult> ReadSavedResult(const FileText& file);

// The same verdict from the first bytes alone, before a file is read whole: a JSON object that
// names commdx's "schema_version" near its start (commdx writes it first). Junk or another
// program's JSON is refused here, not after gigabytes are held in memory.
Status CheckSavedResultHead(std::string_view head, const std::string& path);

}  // namespace commdx::ingest
