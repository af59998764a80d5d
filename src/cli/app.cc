#include "cli/app.h"

#include <iostream>

#include "base/result.h"
#include "cli/commands.h"
#include "cli/output.h"

namespace commdx::cli {

int Run(int argc, char** argv) {
  CLI::App app{
      "commdx: why is GPU-to-GPU communication in my distributed training job slow, and what do "
      "I change?"};
  app.set_version_flag("--version", std::string("commdx ") + COMMDX_VERSION);
  app.require_subcommand(1);
  Action run;
  AddDiagnoseCommand(app, run);
  AddLogsCommand(app, run);
  AddTraceCommand(app, run);
  AddBenchCommand(app, run);
  AddCompareCommand(app, run);
  AddTopoCommand(app, run);
  AddEnvCommand(app, run);
  AddDoctorCommand(app, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    return run ? run() : 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "commdx: out of memory\n";
    return 70;
  } catch (const std::exception& e) {
    std::cerr << "commdx: internal error: " << e.what() << "\n";
    return 70;
  }
}

}  // namespace commdx::cli
