// comm.few_channels: a communicator runs on fewer channels than Options::few_channels_threshold.
// Each channel is one ring/tree with its own SMs and buffers; few channels cap bandwidth. The
// count comes from "N coll channels" (else the ring lines "Channel xx/NN"); the cause from
// NCCL_MAX_NCHANNELS / NCCL_MAX_NRINGS / NCCL_MIN_NCHANNELS, or the transport (sockets and
// PCIe-only nodes get few channels by design).
#include <cstdlib>

#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

std::vector<Finding> FindCommFewChannels(const Job& job, const Options& options) {
  const NcclSetup& s = job.nccl;
  const NcclEnvOverride* cap = FindOverride(s, "NCCL_MAX_NCHANNELS");
  if (!cap) cap = FindOverride(s, "NCCL_MAX_NRINGS");
  if (!cap) cap = FindOverride(s, "NCCL_MAX_CTAS");
  std::vector<Finding> out;
  for (const auto& c : s.communicators) {
    int channels = c.coll_channels > 0 ? c.coll_channels : c.ring_channels;
    if (channels <= 0 || c.nranks == 1 || channels >= options.few_channels_threshold) continue;
    bool socket = false, nvlink_hint = false;
    for (const auto& x : c.connections) {
      socket = socket || x.kind == TransportKind::kNetSocket;
      nvlink_hint = nvlink_hint || x.transport.find("/read") != std::string::npos;
    }
    Finding f = NewFinding("comm.few_channels");
    f.title = (c.identified ? "Communicator " + c.comm_id : std::string("The communicator")) +
              " uses only " + std::to_string(channels) + " channel" + (channels == 1 ? "" : "s");
    f.metrics.push_back({"channels", static_cast<double>(channels), Unit::kCount});
    f.metrics.push_back({"threshold", options.few_channels_threshold, Unit::kCount});
    if (cap) {
      f.severity = Severity::kWarning;
      // The cap the user set: the root-cause search names it before the transport it sits on.
      f.metrics.push_back({"capped_at", std::atof(cap->value.c_str()), Unit::kCount});
      f.detail = cap->name + "=" + cap->value +
                 " caps the channel count; each channel is driven by its own thread block, so "
                 "bandwidth falls with it (2xH200: 21 GB/s all_reduce busbw with one channel "
                 "instead of 346).";
      f.fix = "Remove " + cap->name +
              " (or raise it); NCCL picks the channel count from the "
              "topology.";
      f.refs.push_back(Evidence(cap->ref));
    } else if (socket || !nvlink_hint) {
      f.severity = Severity::kInfo;
      f.detail = socket ? "Expected with TCP sockets: NCCL opens few channels over NET/Socket."
                        : "Typical for GPUs joined only by PCIe or through the CPU: NCCL finds "
                          "few independent paths. NVLink systems get 8-32 channels.";
      f.fix =
          "Nothing to change in NCCL; a faster interconnect (NVLink, RDMA) is what adds "
          "channels. NCCL_MIN_NCHANNELS can raise it but rarely helps on PCIe.";
    } else {
      f.severity = Severity::kWarning;
      f.detail = "No override limits the channels, yet the topology search found few paths.";
      f.fix =
          "Compare with `nvidia-smi topo -m`; NCCL_TOPO_DUMP_FILE and "
          "NCCL_DEBUG_SUBSYS=GRAPH show what NCCL detected.";
    }
    if (!c.channels_ref.line.empty())
      f.refs.push_back(Evidence(c.channels_ref));
    else if (!c.connections.empty())
      f.refs.push_back(Evidence(c.connections.front().ref));
    out.push_back(std::move(f));
  }
  if (out.empty() && cap && cap->value != "0") {
    auto n = std::atoi(cap->value.c_str());
    if (n > 0 && n < options.few_channels_threshold) {
      Finding f = NewFinding("comm.few_channels");
      f.severity = Severity::kWarning;
      f.title = cap->name + "=" + cap->value + " limits NCCL to " + cap->value + " channel(s)";
      f.metrics.push_back({"capped_at", static_cast<double>(n), Unit::kCount});
      f.detail =
          "The log shows the override but not the channel lines; with it every "
          "communicator runs on at most that many channels.";
      f.fix = "Remove " + cap->name + ".";
      f.refs.push_back(Evidence(cap->ref));
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace commdx::analysis
