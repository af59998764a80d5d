// `commdx summarize PATH... -o DIR`: one summary file of the inputs, made where they were written,
// for `commdx diagnose` to read with the summaries of the other nodes (pipeline/summarize.h).
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/output.h"
#include "pipeline/summarize.h"

namespace commdx::cli {

namespace {

struct SummarizeCliOptions {
  pipeline::SummarizeRequest request;
  bool plain = false;
  bool quiet = false;
};

std::string Size(uint64_t bytes) {
  char buf[32];
  if (bytes >= (1u << 20))
    std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / (1 << 20));
  else
    std::snprintf(buf, sizeof buf, "%.1f KB", static_cast<double>(bytes) / 1024);
  return buf;
}

int RunSummarize(SummarizeCliOptions o) {
  o.request.gzip = !o.plain;
  auto out = pipeline::RunSummarize(o.request);
  if (!out) return ReportError(out.error());
  const auto& s = out->summary;
  if (!o.quiet) {
    std::printf("wrote %s: %s from %s read (%.2f%%), %zu trace%s, %zu other file%s\n",
                out->path.c_str(), Size(out->bytes).c_str(), Size(s.read_bytes).c_str(),
                s.read_bytes ? 100.0 * static_cast<double>(out->bytes) / s.read_bytes : 0.0,
                s.traces, s.traces == 1 ? "" : "s", s.texts, s.texts == 1 ? "" : "s");
  }
  for (const auto& l : s.left_out)
    std::fprintf(stderr, "not in the summary: %s (%s)\n", l.path.c_str(), l.reason.c_str());
  return 0;
}

}  // namespace

void AddSummarizeCommand(CLI::App& app, Action& run) {
  auto o = std::make_shared<SummarizeCliOptions>();
  auto* cmd = app.add_subcommand(
      "summarize",
      "Reduce the traces, NCCL logs, job logs and Flight Recorder dumps of this node to one "
      "summary file (docs/summary-format.md); `commdx diagnose` over the gathered summaries "
      "gives the report the files would");
  cmd->add_option("paths", o->request.paths, "Files or folders")->required();
  cmd->add_option("-o,--output", o->request.out_dir, "Folder to write the summary into")
      ->required();
  cmd->add_option("--name", o->request.name,
                  "File name before .commdx-summary.json.gz (default: rank<R>, ranks<A>-<B> or "
                  "the host name)");
  cmd->add_flag("--plain", o->plain, "Write plain JSON, not gzip");
  cmd->add_flag("--force", o->request.force, "Replace a read-only summary file");
  cmd->add_flag("-q,--quiet", o->quiet, "Print nothing but errors");
  cmd->callback([&run, o] { run = [o] { return RunSummarize(*o); }; });
}

}  // namespace commdx::cli
