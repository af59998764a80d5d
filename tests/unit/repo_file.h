// Test helper: a file of the repository (COMMDX_SOURCE_DIR) read whole; empty if missing.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace commdx {

inline std::string RepoFile(const std::string& rel) {
  std::ifstream in(std::string(COMMDX_SOURCE_DIR) + "/" + rel);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace commdx
