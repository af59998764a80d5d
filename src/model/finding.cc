#include "model/finding.h"

namespace commdx {

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "info";
}

bool MoreSevere(Severity a, Severity b) { return static_cast<int>(a) > static_cast<int>(b); }

const char* SourceName(Source s) {
  switch (s) {
    case Source::kNone:
      return "";
    case Source::kTrace:
      return "trace";
    case Source::kLogs:
      return "logs";
    case Source::kBench:
      return "bench";
    case Source::kTopo:
      return "topo";
    case Source::kEnv:
      return "env";
  }
  return "";
}

}  // namespace commdx
