#include "analysis/bench_expected.h"

#include <cstdio>

#include "base/text.h"

namespace commdx::analysis {

namespace {

struct NvLinkGen {
  int gen;
  double per_link_gbps;  // per direction
  int default_links;
};

// Per-link rates per direction: NVLink2/3 25 GB/s, NVLink4 26.5625 GB/s (as nvidia-smi
// nvlink -s reads it; 18 links = 478 GB/s), NVLink5 50 GB/s.
NvLinkGen GenForCompute(int major, int minor) {
  if (major == 7 && minor == 0) return {2, 25.0, 6};
  if (major == 8 && minor == 0) return {3, 25.0, 12};
  if (major == 9) return {4, 26.5625, 18};
  if (major == 10) return {5, 50.0, 18};
  return {0, 0, 0};
}

// From the marketing name alone (nccl-tests files carry nothing else).
void GuessFromName(const std::string& name, BenchTopology& t) {
  std::string n = ToLower(name);
  bool pcie_card = Contains(n, "pcie") || Contains(n, " nvl");
  if (Contains(n, "h100") || Contains(n, "h200") || Contains(n, "h800") || Contains(n, "gh200")) {
    t.compute_major = 9;
    t.link = pcie_card ? "pcie" : "nvlink";
    t.pcie_gen = 5;
  } else if (Contains(n, "a100") || Contains(n, "a800")) {
    t.compute_major = 8;
    t.link = pcie_card ? "pcie" : "nvlink";
    t.pcie_gen = 4;
  } else if (Contains(n, "v100")) {
    t.compute_major = 7;
    t.link = pcie_card ? "pcie" : "nvlink";
    t.pcie_gen = 3;
  } else if (Contains(n, "b200") || Contains(n, "b100") || Contains(n, "b300")) {
    t.compute_major = 10;
    t.link = "nvlink";
  }
  t.pcie_width = 16;
  t.guessed = true;
}

std::string Fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f", v);
  return b;
}

std::string FmtRate(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

}  // namespace

ExpectedLink ExpectedForBench(const BenchTopology& input) {
  ExpectedLink e;
  BenchTopology t = input;
  if (t.nodes > 1) {
    e.basis = "across nodes the NICs set the bandwidth; commdx does not know them from this input";
    return e;
  }
  if (t.link.empty() && !t.gpu_name.empty()) GuessFromName(t.gpu_name, t);
  double conf = t.guessed ? 0.6 : 0.9;
  if (t.link == "nvlink") {
    NvLinkGen g = GenForCompute(t.compute_major, t.compute_minor);
    if (g.gen == 0) return e;
    int links = t.nvlinks_per_gpu > 0 ? t.nvlinks_per_gpu : g.default_links;
    e.known = true;
    e.line_rate_gbps = links * g.per_link_gbps;
    e.basis = "NVLink" + std::to_string(g.gen) + ", " + std::to_string(links) + " links x " +
              FmtRate(g.per_link_gbps) + " GB/s = " + Fmt(e.line_rate_gbps) + " GB/s per direction" +
              (t.guessed ? " (assumed from the GPU name '" + t.gpu_name + "')" : "");
    e.confidence = t.nvlinks_per_gpu > 0 ? conf : conf * 0.8;
    return e;
  }
  if (t.link == "pcie" || t.link == "host") {
    double x16 = t.pcie_gen == 3 ? 16 : t.pcie_gen == 4 ? 32 : t.pcie_gen >= 5 ? 63 : 0;
    if (x16 == 0) return e;
    int width = t.pcie_width > 0 ? t.pcie_width : 16;
    e.known = true;
    e.line_rate_gbps = x16 * width / 16.0;
    e.basis = "PCIe Gen" + std::to_string(t.pcie_gen) + " x" + std::to_string(width) + ": " +
              Fmt(e.line_rate_gbps) + " GB/s raw per direction" +
              (t.link == "host" ? " (no P2P: traffic crosses host memory)" : "") +
              (t.guessed ? " (assumed from the GPU name)" : "");
    e.confidence = conf;
  }
  return e;
}

}  // namespace commdx::analysis
