// `commdx compare A B`: what changed between two saved results (pipeline/compare.h).
#include <memory>

#include "cli/commands.h"
#include "cli/output.h"
#include "pipeline/compare.h"

namespace commdx::cli {

namespace {

struct CompareCliOptions {
  std::string a, b;
  diagnose::CompareOptions compare;
  OutputOptions output;
};

int RunCompare(const CompareCliOptions& o) {
  auto out = pipeline::RunCompare({o.a, o.b, o.compare});
  if (!out) return ReportError(out.error());
  if (int rc = EmitReport(out->report, o.output); rc > 1) return rc;
  // 1 when B has a new error-level finding (a regression), like the other commands.
  return out->regressed ? 1 : 0;
}

}  // namespace

void AddCompareCommand(CLI::App& app, Action& run) {
  auto o = std::make_shared<CompareCliOptions>();
  auto* cmd = app.add_subcommand(
      "compare",
      "Diff two saved commdx results (--format json or --save): node vs node, before vs after");
  cmd->add_option("A", o->a, "The baseline result (JSON)")->required();
  cmd->add_option("B", o->b, "The result to compare with it (JSON)")->required();
  cmd->add_option("--threshold", o->compare.threshold,
                  "Show numbers that moved by at least this fraction")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e9));
  AddOutputFlags(*cmd, o->output);
  cmd->callback([&run, o] { run = [o] { return RunCompare(*o); }; });
}

}  // namespace commdx::cli
