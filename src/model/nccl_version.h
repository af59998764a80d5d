// NCCL's integer version (ncclGetVersion, NCCL_VERSION_CODE, nccl-tests' "nccl-library=") as the
// dotted string every report shows.
#pragma once

#include <cstdint>
#include <string>

namespace commdx {

// NCCL_VERSION(X,Y,Z) is X*10000 + Y*100 + Z since 2.9 (22809 -> "2.28.9") and X*1000 + Y*100 + Z
// before (2708 -> "2.7.8"). "" for a code <= 0 (no version known).
std::string NcclVersionFromCode(int64_t code);

}  // namespace commdx
