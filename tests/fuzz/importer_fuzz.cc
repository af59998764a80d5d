// libFuzzer target for one importer of the registry (its name is COMMDX_FUZZ_IMPORTER), plus
// "saved_result" for the reader behind `commdx compare`. The input goes through the same path a
// file does: gzip detection, sniffing, parsing into a Job. Any crash, sanitizer report, leak or
// hang is a bug; a returned Error is the expected answer to bad input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "analysis/registry.h"
#include "base/file.h"
#include "ingest/registry.h"
#include "ingest/saved_result/saved_result_reader.h"

namespace {

constexpr uint64_t kMaxInflated = 64ull << 20;  // keep gzip bombs inside the fuzzer's memory

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace commdx;
  std::string_view raw(reinterpret_cast<const char*>(data), size);
  FileText file;
  file.path = "fuzz-input";
  if (LooksGzip(raw)) {
    auto inflated = Gunzip(raw, file.path, kMaxInflated);
    if (!inflated) return 0;
    file.data = std::move(inflated).value();
  } else {
    file.data = std::string(raw);
  }
  std::string_view name = COMMDX_FUZZ_IMPORTER;
  if (name == "saved_result") {
    (void)ingest::ReadSavedResult(file);
    return 0;
  }
  const ingest::Importer* imp = ingest::FindImporter(name);
  if (!imp) std::abort();  // the build names an importer the registry does not have
  (void)imp->sniff(std::string_view(file.data).substr(0, 64 * 1024));
  Job job;
  if (imp->parse(file, job)) {
    // The analyzers must cope with whatever a parse accepted.
    (void)analysis::RunAnalyzers(job, {});
  }
  return 0;
}
