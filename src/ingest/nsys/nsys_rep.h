// .nsys-rep reports: a binary container that only NVIDIA's tools read. commdx converts one with
// the `nsys` binary ($NSYS, else `nsys` on PATH) into a temporary SQLite export and reads that;
// without nsys the error (exit 3) gives the exact command that converts it.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace commdx::ingest::nsys {

// The container has no documented signature, so a report is known by its name: only files that
// no importer recognised by their content are asked.
bool IsReportName(std::string_view path);

// A temporary folder holding the converted export; removed when this goes away.
class ConvertedReport {
 public:
  ConvertedReport() = default;
  ConvertedReport(ConvertedReport&& o) noexcept : dir_(std::move(o.dir_)) { o.dir_.clear(); }
  ConvertedReport(const ConvertedReport&) = delete;
  ConvertedReport& operator=(const ConvertedReport&) = delete;
  ConvertedReport& operator=(ConvertedReport&&) = delete;
  ~ConvertedReport();
  std::string sqlite_path() const { return dir_ + "/report.sqlite"; }

 private:
  friend Result<ConvertedReport> ConvertReport(const std::string& report);
  std::string dir_;
};

// Runs `nsys export --type sqlite` on `report`. No nsys, or nsys failing, is a kBadInput error
// naming the command to run by hand.
Result<ConvertedReport> ConvertReport(const std::string& report);

}  // namespace commdx::ingest::nsys
