// Each subcommand lives in its own file and registers itself on the app through one function
// listed here. `run` is set to the action that executes after parsing.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace commdx::cli {

using Action = std::function<int()>;

void AddLogsCommand(CLI::App& app, Action& run);
void AddTraceCommand(CLI::App& app, Action& run);
void AddBenchCommand(CLI::App& app, Action& run);
void AddDiagnoseCommand(CLI::App& app, Action& run);
void AddCompareCommand(CLI::App& app, Action& run);
void AddTopoCommand(CLI::App& app, Action& run);
void AddEnvCommand(CLI::App& app, Action& run);
void AddDoctorCommand(CLI::App& app, Action& run);
void AddSummarizeCommand(CLI::App& app, Action& run);

}  // namespace commdx::cli
