// The CLI tests run the real binary: one way to do it, so each test says only what it runs.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace commdx::test_util {

struct RunResult {
  int code = -1;    // exit code; -1 when it did not exit normally (or could not start)
  std::string out;  // standard output (and standard error where the command line merges it)
};

// Runs `command` through the shell.
inline RunResult RunShell(const std::string& command) {
  RunResult r;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// The commdx binary (COMMDX_BINARY) with `args`; standard error dropped unless `with_stderr`.
inline RunResult RunCommdx(const std::string& args, bool with_stderr = false) {
  return RunShell(std::string(COMMDX_BINARY) + " " + args +
                  (with_stderr ? " 2>&1" : " 2>/dev/null"));
}

}  // namespace commdx::test_util
