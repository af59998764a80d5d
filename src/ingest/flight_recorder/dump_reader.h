// Flight Recorder dumps into the model: the fields of torch/csrc/distributed/c10d/
// FlightRecorder*.hpp (dump versions 2.x), read from the value tree of either form.
#pragma once

#include <string>

#include "base/file.h"
#include "base/result.h"
#include "ingest/flight_recorder/py_value.h"
#include "model/job.h"

namespace commdx::ingest {

bool SniffFlightRecorder(std::string_view head);
Status ParseFlightRecorder(const FileText& file, Job& job);

namespace flight_recorder {

// The dump held in `doc` (the root dict). Entries that lack their sequence number or name are
// counted in `job.quality` and skipped.
Result<FrDump> ReadDump(const PyDoc& doc, const std::string& path, Diagnostics& quality);

// The JSON form (`torch._C._distributed_c10d._dump_nccl_trace_json()`, or the dump written
// when JSON is asked for) into the same value tree.
Result<PyDoc> ReadJson(std::string_view data, const std::string& path);

}  // namespace flight_recorder
}  // namespace commdx::ingest
