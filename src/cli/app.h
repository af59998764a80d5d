#pragma once

namespace commdx::cli {

// Parses the command line, runs the chosen subcommand, returns the process exit code.
int Run(int argc, char** argv);

}  // namespace commdx::cli
