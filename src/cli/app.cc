#include "cli/app.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "base/printable.h"
#include "base/result.h"
#include "cli/commands.h"
#include "cli/output.h"

namespace commdx::cli {

namespace {

// The first word when it is not an option and names no subcommand ("" otherwise): CLI11 would
// say only "A subcommand is required".
std::string UnknownSubcommand(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-' || argv[1][0] == '\0') return "";
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    if (sub->check_name(argv[1])) return "";
  return argv[1];
}

// What a command printed through stdio or iostreams is flushed here, so that a write that fails
// (`> /dev/full`, a disk full) is an error (exit 4) with the OS reason instead of exit 0 with
// nothing written. A reader that has gone (EPIPE) is not an error.
int StdoutChecked(int rc) {
  // A write that failed earlier left its reason in errno, unless something since changed it.
  const int earlier = errno;
  std::cout.flush();
  errno = 0;
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout.good();
  const int err = errno ? errno : earlier;
  if (!failed || err == EPIPE) return rc;
  std::cerr << "commdx: cannot write to standard output: "
            << (err ? std::strerror(err) : "write error") << "\n";
  return rc >= 2 ? rc : 4;
}

// The inputs the command was given (its positional arguments and --from that name something on
// disk), for a message about all of them.
std::vector<std::string> InputsGiven(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands())
    for (const CLI::Option* opt : sub->get_options())
      if (opt->get_positional() || opt->check_lname("from"))
        for (const std::string& arg : opt->results())
          if (struct stat st{}; stat(arg.c_str(), &st) == 0 || arg == "-") names.push_back(arg);
  return names;
}

// "job, b.json and 3 more".
std::string Listed(const std::vector<std::string>& names) {
  constexpr size_t kShown = 3;
  std::string out;
  for (size_t i = 0; i < names.size() && i < kShown; ++i)
    out += (i ? ", " : "") + Printable(names[i]);
  if (names.size() > kShown) out += " and " + std::to_string(names.size() - kShown) + " more";
  return out;
}

}  // namespace

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
  AddSummarizeCommand(app, run);
  if (std::string bad = UnknownSubcommand(app, argc, argv); !bad.empty()) {
    std::cerr << "commdx: unknown subcommand '" << Printable(bad)
              << "' (commdx --help lists them)\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return StdoutChecked(rc == 0 ? 0 : 2);
  }
  try {
    return StdoutChecked(run ? run() : 2);
  } catch (const std::bad_alloc&) {
    // Past the reading of each input (which names its file when memory runs out there): what
    // the command holds of them all.
    const std::vector<std::string> inputs = InputsGiven(app);
    std::cerr << "commdx: " << (inputs.empty() ? "" : Listed(inputs) + ": ")
              << "error: out of memory after reading "
              << (inputs.empty()       ? "the inputs"
                  : inputs.size() == 1 ? "it"
                                       : "them")
              << ": free memory, raise the limit (ulimit -v), or give commdx fewer files at "
                 "once\n";
    return 4;
  } catch (const std::exception& e) {
    std::cerr << "commdx: internal error: " << e.what() << "\n";
    return 70;
  }
}

}  // namespace commdx::cli
