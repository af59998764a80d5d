// Importer for Nsight Systems: `nsys export --type sqlite` databases (.sqlite, or gzipped), read
// with the SQLite library, and .nsys-rep reports, converted first by the `nsys` found on PATH or
// in $NSYS (export_reader.h says what is read; nsys_rep.h how a report is converted).
#pragma once

#include <string>
#include <string_view>

#include "base/file.h"
#include "base/result.h"
#include "ingest/registry.h"
#include "model/job.h"

namespace commdx::ingest {

// Registry entry: the SQLite magic "SQLite format 3\0" and the tables nsys writes first
// (StringIds, TARGET_INFO_*) in the schema at the start of the file.
bool SniffNsys(std::string_view head);

// Registry entry: a database opened read-only in place, or inflated into memory when gzipped.
Result<Streamed> StreamNsys(const std::string& path, const StreamOptions& options, Job& part);

// Registry entry: a database image already in memory (tests, fuzzers).
Status ParseNsys(const FileText& file, Job& job);

}  // namespace commdx::ingest
