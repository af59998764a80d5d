// Line-level helpers of the nccl-tests text importer: launcher tags stripped, the test a binary
// or command line names, and the words of a result row.
#pragma once

#include <string>
#include <string_view>

namespace commdx::ingest::nccl_tests {

// OpenMPI --tag-output prefixes every line with "[1,0]<stdout>:": the line without it.
std::string_view StripMpiTag(std::string_view s);

// MPICH's `mpirun -prepend-rank` puts "[0] " before every piece the process wrote, which can be
// mid-line ("...  -1[0]    1626.5 ..."): each "[digits]" becomes a space (in `buf` when any).
std::string_view StripRankTags(std::string_view s, std::string& buf);

// "all_reduce_perf" / "all_reduce_perf_mpi" -> "all_reduce"
std::string CaseFromBinary(std::string_view name);

// The test a command line runs: "root@host:~/nccl-tests# ./build/all_reduce_perf -b 8 ...",
// "mpirun -np 16 ... ./build/alltoall_perf_mpi -g 1" -> "all_reduce", "alltoall"; "" if the line
// runs no nccl-tests binary.
std::string CaseFromCommandLine(std::string_view line);

// One of the type names nccl-tests prints in a result row ("float", "bfloat16", ...).
bool IsTypeName(std::string_view word);

// A result row as nccl-tests prints it: size and count, then one of its type names.
bool LooksLikeRow(std::string_view line);

}  // namespace commdx::ingest::nccl_tests
