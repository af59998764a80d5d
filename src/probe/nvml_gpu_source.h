// GpuSource over the real NVML, loaded with dlopen so that commdx runs (and says why GPU facts
// are missing) on machines without the NVIDIA driver. Read-only: only Get* queries are called.
#pragma once

#include <memory>
#include <string>

#include "probe/gpu_source.h"

namespace commdx::probe {

class NvmlGpuSource : public GpuSource {
 public:
  // Loads the library and calls nvmlInit_v2. Errors (kEnvironment) name what failed: the
  // library missing, a symbol missing, or nvmlInit's return ("Driver Not Loaded").
  static Result<std::unique_ptr<NvmlGpuSource>> Open(
      const std::string& library = "libnvidia-ml.so.1");
  ~NvmlGpuSource() override;
  NvmlGpuSource(const NvmlGpuSource&) = delete;
  NvmlGpuSource& operator=(const NvmlGpuSource&) = delete;

  std::string Describe() const override;
  Result<RawSystem> System() override;
  Result<int> DeviceCount() override;
  Result<RawDevice> Device(int index) override;
  Result<RawPair> Pair(int a, int b) override;
  Result<std::vector<RawProcess>> Processes(int index) override;

  struct Api;  // the resolved function pointers (nvml_gpu_source.cc)

 private:
  NvmlGpuSource();
  void* lib_ = nullptr;
  std::string library_;
  std::unique_ptr<Api> api_;
};

}  // namespace commdx::probe
