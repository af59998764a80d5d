#include "ingest/nsys/nsys_rep.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <vector>

#include "base/text.h"

extern char** environ;

namespace commdx::ingest::nsys {

namespace {

namespace fs = std::filesystem;

// $NSYS if it names a file, else the first `nsys` on PATH.
std::optional<std::string> FindNsys() {
  std::error_code ec;
  if (const char* env = std::getenv("NSYS"); env && *env && fs::is_regular_file(env, ec))
    return std::string(env);
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  for (std::string_view dir : Split(path, ':')) {
    if (dir.empty()) continue;
    fs::path cand = fs::path(std::string(dir)) / "nsys";
    if (fs::is_regular_file(cand, ec) && access(cand.c_str(), X_OK) == 0) return cand.string();
  }
  return std::nullopt;
}

std::string Quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string HandCommand(const std::string& report) {
  std::string out = report.substr(0, report.size() - std::string_view(".nsys-rep").size());
  return "nsys export --type sqlite --include-json true --output " + Quoted(out + ".sqlite") + " " +
         Quoted(report);
}

// Runs argv[0] without a shell, its output discarded; the exit status (-1: not started).
int Run(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

bool IsReportName(std::string_view path) { return EndsWith(path, ".nsys-rep"); }

ConvertedReport::~ConvertedReport() {
  if (dir_.empty()) return;
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

Result<ConvertedReport> ConvertReport(const std::string& report) {
  auto nsys = FindNsys();
  if (!nsys)
    return MakeError(ErrorCode::kBadInput,
                     "an Nsight Systems report (.nsys-rep) needs converting, and no `nsys` was "
                     "found (PATH, or set NSYS=/path/to/nsys); convert it with: " +
                         HandCommand(report) + " and give commdx the .sqlite file",
                     {report});
  std::error_code ec;
  std::string tmpl = (fs::temp_directory_path(ec) / "commdx-nsys.XXXXXX").string();
  if (!mkdtemp(tmpl.data()))
    return MakeError(ErrorCode::kEnvironment, "cannot make a temporary folder for nsys export",
                     {report});
  ConvertedReport out;
  out.dir_ = tmpl;
  // --include-json: NCCL's NVTX payloads (message sizes, communicators, ranks; nccl_nvtx.h). An
  // nsys too old for the option fails on it, and is asked again without.
  auto run_export = [&](bool with_json) {
    std::vector<std::string> args = {*nsys, "export", "--type", "sqlite", "--force-overwrite",
                                     "true"};
    if (with_json) args.insert(args.end(), {"--include-json", "true"});
    args.insert(args.end(), {"--output", out.sqlite_path(), report});
    return Run(args);
  };
  int rc = run_export(true);
  if (rc != 0) rc = run_export(false);
  if (rc != 0 || !fs::is_regular_file(out.sqlite_path(), ec))
    return MakeError(ErrorCode::kBadInput,
                     "`" + *nsys + " export` could not convert the report (exit " +
                         std::to_string(rc) + "); try by hand: " + HandCommand(report),
                     {report});
  return out;
}

}  // namespace commdx::ingest::nsys
