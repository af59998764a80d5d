// A reader of the pickle subset PyTorch's Flight Recorder writes (torch::jit::Pickler, protocol
// 2) and that Python's pickle writes for the same data (protocols 2 to 5): None, bool, int,
// float, str, bytes, list, tuple, dict, the memo, and the `torch.jit._pickle.build_*` list
// wrappers. Nothing is ever executed: any other global is an error. Errors name the byte offset.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "ingest/flight_recorder/py_value.h"

namespace commdx::ingest::flight_recorder {

// True if `data` starts like a binary pickle (PROTO opcode, protocol 2 to 5).
bool LooksLikePickle(std::string_view data);

Result<PyDoc> ReadPickle(std::string_view data, const std::string& path);

}  // namespace commdx::ingest::flight_recorder
