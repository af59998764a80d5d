#include "base/result.h"

namespace commdx {

int ExitCodeFor(ErrorCode code) {
  switch (code) {
    case ErrorCode::kUsage:
      return 2;
    case ErrorCode::kBadInput:
    case ErrorCode::kTooLarge:
      return 3;
    case ErrorCode::kEnvironment:
      return 4;
    case ErrorCode::kInternal:
      return 70;
  }
  return 70;
}

std::string SourceLoc::ToString() const {
  if (file.empty()) return line ? "<input>:" + std::to_string(line) : std::string();
  std::string s = file;
  if (line) {
    s += ":" + std::to_string(line);
    if (col) s += ":" + std::to_string(col);
  } else if (has_offset) {
    s += "@" + std::to_string(offset);
  }
  return s;
}

std::string Error::ToString() const {
  std::string loc = where.ToString();
  return (loc.empty() ? "" : loc + ": ") + "error: " + message;
}

Error MakeError(ErrorCode code, std::string message, SourceLoc where) {
  return Error{code, std::move(message), std::move(where)};
}

}  // namespace commdx
