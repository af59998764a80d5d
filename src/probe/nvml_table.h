// The resolved NVML entry points of one NvmlGpuSource, shared by its .cc files. Any pointer
// may be null: that call does not exist in the installed driver and its facts stay unknown.
#pragma once

#include "probe/nvml_api.h"
#include "probe/nvml_gpu_source.h"

namespace commdx::probe {

struct NvmlGpuSource::Api {
  nvml::InitFn init = nullptr;
  nvml::ShutdownFn shutdown = nullptr;
  nvml::ErrorStringFn error_string = nullptr;
  nvml::StringFn driver_version = nullptr;
  nvml::StringFn nvml_version = nullptr;
  nvml::IntOutFn cuda_driver_version = nullptr;
  nvml::CountFn count = nullptr;
  nvml::HandleFn handle = nullptr;
  nvml::DevStringFn name = nullptr;
  nvml::DevStringFn uuid = nullptr;
  nvml::DevPciFn pci = nullptr;
  nvml::DevUintFn cur_gen = nullptr, max_gen = nullptr, cur_width = nullptr, max_width = nullptr;
  nvml::DevUintFn numa = nullptr;
  nvml::DevTwoUintFn mig = nullptr;
  nvml::DevTwoStateFn ecc = nullptr;
  nvml::DevStateFn persistence = nullptr;
  nvml::DevIntFn compute_mode = nullptr;
  nvml::DevU64Fn clock_events = nullptr;
  nvml::LinkStateFn link_state = nullptr;
  nvml::LinkUintFn link_version = nullptr;
  nvml::LinkUintFn link_remote_type = nullptr;
  nvml::LinkPciFn link_remote_pci = nullptr;
  nvml::LinkErrorFn link_errors = nullptr;
  nvml::FieldsFn fields = nullptr;
  nvml::P2PFn p2p = nullptr;
  nvml::AncestorFn ancestor = nullptr;
  nvml::ProcessesFn processes = nullptr;
  bool processes_v1 = false;  // only the v1 call (16-byte records) exists
};

}  // namespace commdx::probe
