// libFuzzer target for one importer of the registry (its name is COMMDX_FUZZ_IMPORTER), plus
// "saved_result" for the reader behind `commdx compare`. The input goes through the same path a
// file takes in `commdx diagnose`: gzip detection, sniffing, parsing into a Job, every analyzer,
// the diagnosis, the per-source tables and all four renderers (every input string is escaped
// there). A saved result is read and compared with itself, as `commdx compare A A` does. Any
// crash, sanitizer report, leak or hang is a bug; a returned Error is the expected answer to bad
// input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "analysis/registry.h"
#include "analysis/trace_facts.h"
#include "base/file.h"
#include "diagnose/compare.h"
#include "diagnose/diagnosis.h"
#include "ingest/registry.h"
#include "ingest/saved_result/saved_result_reader.h"
#include "pipeline/pipeline.h"
#include "pipeline/summary_digest.h"
#include "report/render.h"
#include "report/report.h"

namespace {

constexpr uint64_t kMaxInflated = 64ull << 20;  // keep gzip bombs inside the fuzzer's memory

void RenderAll(const commdx::report::Report& rep) {
  using namespace commdx::report;
  volatile size_t n = RenderText(rep, {}).size() + RenderJson(rep).size() +
                      RenderMarkdown(rep).size() + RenderHtml(rep).size();
  (void)n;
}

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
  pipeline::UseSummaryDigests();  // a summary's traces are read through their digest
  if (name == "saved_result") {
    auto saved = ingest::ReadSavedResult(file);
    if (saved) (void)diagnose::Compare(*saved, *saved, {});
    return 0;
  }
  const ingest::Importer* imp = ingest::FindImporter(name);
  if (!imp) std::abort();  // the build names an importer the registry does not have
  (void)imp->sniff(std::string_view(file.data).substr(0, 64 * 1024));
  Job job;
  if (!imp->parse(file, job)) return 0;
  if (imp->finish) imp->finish(job);
  job.inputs.push_back({file.path, {imp->kind}, file.data.size()});
  // The analyzers, the diagnosis and the report must cope with whatever a parse accepted.
  // As `commdx diagnose` does it: through the pipeline, every table and chart.
  pipeline::Request request;
  request.command = "diagnose";
  request.job = std::move(job);
  request.parts = pipeline::EveryPart();
  request.charts = true;
  if (auto out = pipeline::Run(std::move(request))) RenderAll(out->report);
  return 0;
}
