#include "analysis/bench_expected.h"

#include <algorithm>

#include "analysis/expected_bandwidth.h"
#include "base/text.h"

namespace commdx::analysis {

namespace {

// NVLink generation from the compute capability (V100 7.0, A100 8.0, H100/H200 9.0, B200 10.x)
// and the link count those parts have; 0 when the GPU has no NVLink of a known kind.
int GenerationForCompute(int major, int minor) {
  if (major == 7 && minor == 0) return 2;
  if (major == 8 && minor == 0) return 3;
  if (major == 9) return 4;
  if (major == 10) return 5;
  return 0;
}
int DefaultLinks(int generation) { return generation == 2 ? 6 : generation == 3 ? 12 : 18; }

// The PCIe generation of GPU models joined by PCIe (lowercase name as nccl-tests prints it:
// "nvidia geforce rtx 2080 ti", "nvidia l40s"); 0 for others. From the cards' specifications:
// Turing (RTX 20xx, T4, Quadro RTX) Gen3; Ampere and Ada (RTX 30xx/40xx, RTX Axxxx, A10, A16,
// A40, L4, L40, L40S) Gen4; Blackwell RTX 50xx Gen5.
int PcieGenOfPcieOnlyModel(std::string_view n) {
  static constexpr struct {
    const char* token;
    int gen;
  } kModels[] = {{"rtx 20", 3}, {"rtx 30", 4}, {"rtx 40", 4}, {"rtx 50", 5},   {"quadro rtx", 3},
                 {"tesla t4", 3}, {" t4", 3},  {"rtx a", 4},  {"rtx 6000 ada", 4},
                 {" a10", 4},   {" a16", 4},   {" a40", 4},   {" l40", 4},   {" l4", 4}};
  for (const auto& m : kModels)
    if (Contains(n, m.token)) return m.gen;
  return 0;
}

// nccl-tests files carry only the marketing name: SXM parts have NVLink, PCIe/NVL cards don't
// (as far as this guess goes).
void GuessFromName(BenchTopology& t) {
  std::string n = ToLower(t.gpu_name);
  bool pcie_card = Contains(n, "pcie") || Contains(n, " nvl");
  if (Contains(n, "h100") || Contains(n, "h200") || Contains(n, "h800") || Contains(n, "gh200")) {
    t.compute_major = 9;
    t.pcie_gen = 5;
  } else if (Contains(n, "a100") || Contains(n, "a800")) {
    t.compute_major = 8;
    t.pcie_gen = 4;
  } else if (Contains(n, "v100")) {
    t.compute_major = 7;
    t.pcie_gen = 3;
  } else if (Contains(n, "b200") || Contains(n, "b100") || Contains(n, "b300")) {
    t.compute_major = 10;
  } else if (int gen = PcieGenOfPcieOnlyModel(n); gen > 0) {
    // Cards that reach each other over PCIe (an RTX pair's optional bridge aside): the card's
    // own PCIe generation, x16.
    t.link = BenchLink::kPcie;
    t.pcie_gen = gen;
    t.pcie_width = 16;
    t.guessed = true;
    return;
  } else {
    return;
  }
  t.link = pcie_card ? BenchLink::kPcie : BenchLink::kNvLink;
  t.pcie_width = 16;
  t.guessed = true;
}

}  // namespace

ExpectedLink ExpectedForBench(const BenchTopology& input) {
  ExpectedLink e;
  BenchTopology t = input;
  if (t.nodes > 1) {
    e.basis = "across nodes the NICs set the bandwidth; commdx does not know them from this input";
    return e;
  }
  if (t.link == BenchLink::kUnknown && !t.gpu_name.empty()) GuessFromName(t);
  if (t.link == BenchLink::kUnknown) return e;
  LinkSpec spec;
  spec.gpu_name = t.gpu_name;
  spec.pcie_gen = t.pcie_gen;
  spec.pcie_width = t.pcie_width;
  spec.p2p_blocked = t.link == BenchLink::kHost;
  if (t.link == BenchLink::kNvLink) {
    spec.nvlink_generation = GenerationForCompute(t.compute_major, t.compute_minor);
    spec.nvlinks = t.nvlinks_per_gpu > 0 ? t.nvlinks_per_gpu : DefaultLinks(spec.nvlink_generation);
  }
  ExpectedBandwidth x = ExpectedForLink(spec);
  if (!x.known || x.line_rate_gbps <= 0) {
    e.basis = x.basis;
    return e;
  }
  e.known = true;
  e.line_rate_gbps = x.line_rate_gbps;
  e.basis = x.basis + (t.guessed ? " (link assumed from the GPU name '" + t.gpu_name + "')" : "");
  e.confidence = t.guessed ? std::min(x.confidence, 0.6) : x.confidence;
  return e;
}

}  // namespace commdx::analysis
