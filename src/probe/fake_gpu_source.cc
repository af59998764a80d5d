#include "probe/gpu_source.h"

namespace commdx::probe {

Result<int> FakeGpuSource::DeviceCount() {
  if (fail_count) return MakeError(ErrorCode::kEnvironment, *fail_count);
  return static_cast<int>(devices.size());
}

Result<RawDevice> FakeGpuSource::Device(int index) {
  if (index < 0 || index >= static_cast<int>(devices.size()))
    return MakeError(ErrorCode::kEnvironment, "nvmlDeviceGetHandleByIndex: Invalid Argument");
  return devices[static_cast<size_t>(index)];
}

Result<RawPair> FakeGpuSource::Pair(int a, int b) {
  if (a < 0 || b < 0 || a >= static_cast<int>(pairs.size()) ||
      b >= static_cast<int>(pairs[static_cast<size_t>(a)].size()))
    return MakeError(ErrorCode::kEnvironment, "nvmlDeviceGetP2PStatus: Not Supported");
  return pairs[static_cast<size_t>(a)][static_cast<size_t>(b)];
}

Result<std::vector<RawProcess>> FakeGpuSource::Processes(int index) {
  if (index < 0 || index >= static_cast<int>(processes.size())) return std::vector<RawProcess>{};
  return processes[static_cast<size_t>(index)];
}

}  // namespace commdx::probe
