#include "model/nccl_version.h"

namespace commdx {

std::string NcclVersionFromCode(int64_t code) {
  if (code <= 0) return "";
  const bool modern = code >= 10000;  // NCCL >= 2.9
  int64_t major = modern ? code / 10000 : code / 1000;
  int64_t minor = modern ? (code % 10000) / 100 : (code % 1000) / 100;
  int64_t patch = code % 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace commdx
