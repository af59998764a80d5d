// health.nvlink_errors and health.throttled: link and clock health NVML reports.
//
// NVLink error counters (replay, recovery, CRC on flits) count since the driver loaded. A few
// replays can be noise; recoveries and a steady growth mean a marginal link that slows every
// transfer. The data-CRC counter (NVML_NVLINK_ERROR_DL_CRC_DATA) is left out: on the 2xH200
// machine it grew at idle (93 -> 168 in seconds) with no replay, while `nvidia-smi nvlink -e`
// reported "CRC Errors: 0" (that is the flit counter). Clock events: hardware slowdown, thermal
// slowdown and power brake pull the clocks down under load; SW power cap alone is normal at full
// load and not reported.
#include "analysis/catalogue.h"
#include "analysis/topo_analyzers.h"
#include "analysis/topo_common.h"

namespace commdx::analysis {

namespace {

constexpr uint64_t kThrottleBits = clock_event::kHwSlowdown | clock_event::kSwThermal |
                                   clock_event::kHwThermal | clock_event::kHwPowerBrake;

void NvLinkErrors(const Gpu& g, std::vector<Finding>& out) {
  uint64_t replay = 0, recovery = 0, crc = 0;
  std::vector<EvidenceRef> refs;
  for (const auto& l : g.nvlinks) {
    uint64_t r = l.replay_errors.value_or(0), rec = l.recovery_errors.value_or(0);
    uint64_t c = l.crc_flit_errors.value_or(0);
    if (r + rec + c == 0) continue;
    replay += r;
    recovery += rec;
    crc += c;
    refs.push_back(Ref(g.loc, GpuLabel(g) + " link " + std::to_string(l.link) + ": replay " +
                                  std::to_string(r) + ", recovery " + std::to_string(rec) +
                                  ", CRC " + std::to_string(c)));
  }
  if (refs.empty()) return;
  Finding f = NewFinding("health.nvlink_errors");
  f.severity = Severity::kWarning;
  f.confidence = recovery > 0 || replay + crc > 100 ? 0.9 : 0.6;
  f.title = GpuLabel(g) + " NVLink error counters are non-zero (" + std::to_string(refs.size()) +
            " links)";
  f.detail =
      "Counters accumulate since the driver loaded. Replays re-send flits after CRC "
      "errors; recoveries retrain the link. Both cost bandwidth while they happen; growth "
      "between two runs of `commdx topo` means a marginal link.";
  f.metrics = {{"replay_errors", static_cast<double>(replay), Unit::kCount},
               {"recovery_errors", static_cast<double>(recovery), Unit::kCount},
               {"crc_errors", static_cast<double>(crc), Unit::kCount}};
  f.refs = std::move(refs);
  f.fix = "Compare `nvidia-smi nvlink -e -i " + std::to_string(g.index) +
          "` before and after a benchmark; if counters grow, have the link/bridge serviced.";
  out.push_back(std::move(f));
}

void Throttled(const Gpu& g, std::vector<Finding>& out) {
  if (!g.clock_event_reasons || !(*g.clock_event_reasons & kThrottleBits)) return;
  uint64_t bits = *g.clock_event_reasons & kThrottleBits;
  Finding f = NewFinding("health.throttled");
  f.severity = Severity::kWarning;
  f.title = GpuLabel(g) + " clocks are held down: " + ClockEventNames(bits);
  f.detail =
      "NVML reports clock-event reasons that slow the GPU below its boost clock (thermal, "
      "hardware slowdown or power brake). A throttled GPU is a straggler that every "
      "collective waits for.";
  f.metrics = {
      {"clock_event_reasons", static_cast<double>(*g.clock_event_reasons), Unit::kBitmask}};
  f.refs.push_back(
      Ref(g.loc, GpuLabel(g) + ": clock events " + ClockEventNames(*g.clock_event_reasons)));
  f.fix =
      "Check cooling, power cables and `nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER`; "
      "drain the node if it persists.";
  out.push_back(std::move(f));
}

}  // namespace

std::vector<Finding> FindTopoHealth(const Job& job, const Options&) {
  std::vector<Finding> out;
  for (const auto& g : job.topo.gpus) NvLinkErrors(g, out);
  for (const auto& g : job.topo.gpus) Throttled(g, out);
  return out;
}

}  // namespace commdx::analysis
