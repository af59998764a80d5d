// The top-level keys of a Kineto trace other than traceEvents:
//   "schemaVersion": 1,
//   "deviceProperties": [{"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150..., "numSms": 132,
//                         "computeMajor": 9, "computeMinor": 0, ...}],
//   "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2, "nccl_version": "2.21.5",
//                       "pg_count": 1, "pg_config": [{"pg_name": "0", "pg_desc": "default_pg",
//                       "backend_config": "cuda:nccl", "pg_size": 2, "ranks": [0, 1]}]},
//   "baseTimeNanoseconds": 1727000000000000000, "displayTimeUnit": "ms", "traceName": "..."
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "ingest/trace_build/rank_builder.h"

namespace commdx::ingest::kineto {

// `value_json` must be readable 64 bytes past its end (simdjson padding). Unknown keys are
// ignored; a value of the wrong shape is an input-quality note, never fatal.
Status ParseHeaderValue(simdjson::ondemand::parser& parser, std::string_view key,
                        std::string_view value_json, uint64_t offset, const std::string& file,
                        trace_build::RankBuilder& builder);

}  // namespace commdx::ingest::kineto
