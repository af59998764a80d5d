// env.mig and env.visible_devices: which GPUs a job can see and use for NCCL.
//
// CUDA_VISIBLE_DEVICES takes indices, GPU-UUIDs (or unique prefixes) and MIG-UUIDs; CUDA stops
// at the first invalid entry (out of range, duplicate, unknown UUID) and hides it and all after.
#include <algorithm>
#include <set>

#include "analysis/catalogue.h"
#include "analysis/env_analyzers.h"
#include "analysis/topo_common.h"
#include "base/text.h"

namespace commdx::analysis {

namespace {

// Why `entry` is invalid for `topo`, or "" when it is valid (or cannot be checked).
std::string InvalidEntry(std::string_view entry, const Topology& topo,
                         std::set<std::string>& seen) {
  if (!seen.insert(std::string(entry)).second) return "listed twice";
  if (StartsWith(entry, "MIG-")) return "";
  if (StartsWith(entry, "GPU-")) {
    if (topo.gpus.empty()) return "";
    for (const auto& g : topo.gpus)
      if (!g.uuid.empty() && StartsWith(g.uuid, entry)) return "";
    bool uuids_known = std::any_of(topo.gpus.begin(), topo.gpus.end(),
                                   [](const Gpu& g) { return !g.uuid.empty(); });
    return uuids_known ? "matches no GPU's UUID" : "";
  }
  auto idx = ParseInt(entry);
  if (!idx || *idx < 0) return "not an index, GPU-UUID or MIG-UUID";
  if (!topo.gpus.empty() && *idx >= static_cast<int64_t>(topo.gpus.size()))
    return "index out of range (" + std::to_string(topo.gpus.size()) + " GPUs)";
  return "";
}

}  // namespace

std::vector<Finding> FindEnvGpus(const Job& job, const Options&) {
  const EnvSnapshot& e = job.env;
  const Topology& t = job.topo;
  std::vector<Finding> out;
  std::vector<const Gpu*> mig;
  for (const auto& g : t.gpus)
    if (g.mig_enabled.value_or(false)) mig.push_back(&g);
  if (!mig.empty()) {
    Finding f = NewFinding("env.mig");
    f.severity = Severity::kWarning;
    f.title = "MIG mode is enabled on " + std::to_string(mig.size()) + " GPU(s)";
    f.detail =
        "MIG instances have no P2P or NVLink between them: NCCL moves data between "
        "instances through host memory or the network, and one process can use only one "
        "instance.";
    for (const Gpu* g : mig)
      f.refs.push_back(Ref(g->loc, GpuLabel(*g) + " " + g->name + ": MIG enabled"));
    f.metrics = {{"mig_gpus", static_cast<double>(mig.size()), Unit::kGpus}};
    f.fix =
        "For multi-GPU training, disable MIG (`nvidia-smi -i N -mig 0` by an administrator, "
        "then reset the GPU) or train within one instance.";
    out.push_back(std::move(f));
  }
  const EnvVar* cvd = e.captured ? e.Find("CUDA_VISIBLE_DEVICES") : nullptr;
  if (!cvd) return out;
  std::string problem;
  std::string v(Trim(cvd->value));
  if (v.empty() || v == "-1" || v == "NoDevFiles") {
    problem = "hides every GPU";
  } else {
    std::set<std::string> seen;
    auto entries = Split(v, ',');
    for (size_t i = 0; i < entries.size() && problem.empty(); ++i) {
      std::string why = InvalidEntry(Trim(entries[i]), t, seen);
      if (!why.empty())
        problem = "entry '" + std::string(Trim(entries[i])) + "' " + why +
                  ": CUDA stops there, so " + std::to_string(i) + " of " +
                  std::to_string(entries.size()) + " listed GPUs are visible";
    }
  }
  if (problem.empty()) return out;
  Finding f = NewFinding("env.visible_devices");
  f.severity = Severity::kWarning;
  f.title = "CUDA_VISIBLE_DEVICES=" + cvd->value + " " + problem;
  f.detail = "Ranks that expect a GPU per LOCAL_RANK then fail, or share GPUs; the node has " +
             std::to_string(t.gpus.size()) + " GPU(s).";
  f.refs.push_back(Ref({}, "CUDA_VISIBLE_DEVICES=" + cvd->value));
  f.fix =
      "List each GPU once, by index < GPU count or by its full UUID (`nvidia-smi -L`); leave it "
      "unset to see all GPUs.";
  out.push_back(std::move(f));
  return out;
}

}  // namespace commdx::analysis
