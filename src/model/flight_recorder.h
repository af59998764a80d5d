// What PyTorch's Flight Recorder dumps say (one dump per rank, TORCH_NCCL_TRACE_BUFFER_SIZE > 0;
// written on a watchdog timeout to TORCH_NCCL_DEBUG_INFO_TEMP_FILE / TORCH_FR_DUMP_TEMP_FILE +
// rank): the last collectives each rank enqueued, their sequence numbers per process group,
// sizes, state and the Python frames that issued them. Format-free: the flight_recorder
// importer fills it from the pickle or the JSON form.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace commdx {

struct FrFrame {
  std::string name;  // function
  std::string file;
  int64_t line = 0;
};

struct FrEntry {
  int64_t record_id = -1;
  int64_t pg_id = -1;
  std::string pg_name;  // "process_group": (name, desc); the name is the same on every rank
  std::string pg_desc;
  int64_t collective_seq_id = -1;
  int64_t p2p_seq_id = -1;
  int64_t op_id = -1;
  std::string profiling_name;  // "nccl:all_reduce"
  std::vector<std::vector<int64_t>> input_sizes;
  std::vector<std::string> input_dtypes;  // "Float", "BFloat16"
  std::vector<std::vector<int64_t>> output_sizes;
  std::vector<std::string> output_dtypes;
  std::string state;  // "scheduled" | "started" | "completed"
  int64_t time_created_ns = 0;
  double duration_ms = -1;  // -1 when not timed
  int64_t timeout_ms = 0;
  bool is_p2p = false;
  bool retired = false;
  std::vector<FrFrame> frames;  // innermost first
};

struct FrProcessGroup {
  std::string name;
  std::string desc;
  std::vector<int> ranks;  // global ranks; empty when not given
};

struct FrPgStatus {
  std::string pg_id;
  int64_t last_enqueued = -1;
  int64_t last_started = -1;
  int64_t last_completed = -1;
};

struct FrDump {
  std::string file;
  int rank = -1;        // the trailing number of the file name (PyTorch names dumps prefix + rank)
  std::string version;  // "2.4"
  std::string comm_lib_version;  // "2.28.9"
  std::vector<FrProcessGroup> groups;
  std::vector<FrPgStatus> status;
  std::vector<FrEntry> entries;  // in record order
};

}  // namespace commdx
