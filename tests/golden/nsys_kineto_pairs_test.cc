// The same training loop captured by Nsight Systems and by the PyTorch profiler gives the same
// diagnosis: the same root cause and trace findings (trace.launch_bound aside: only the PyTorch
// profiler's own cost is taken off it), and the same GPU work per step.
// Pairs: examples/nsys_<style>/report.sqlite.gz beside the examples/<kineto_twin> its meta.json
// names, and tests/data/nsys/<scenario>.sqlite.gz beside examples/<scenario> (two runs of the
// same script: examples/README.md, tests/data/nsys/README.md).
//
// What "a few percent" means, and why not for everything: the two files are two runs, each under
// its own profiler. The GPU work of a step (the same kernels on the same GPU) does not depend on
// the profiler: compute and all GPU work per step agree within 5% (kernel times of one loop vary
// ~1-2% between runs; DDP's extra copies are most of the rest). The host side does not: both
// profilers slow the loop's CPU, by amounts that differ between captures (nsys steps 21.5 ms
// against 22-28 ms unprofiled on tests/data/nsys's healthy loop, 45.0 ms against the same on the
// DDP one of examples/; Kineto's 43.4 ms), all of it GPU idle waiting on the CPU. So the step
// times are only checked to be no shorter than the shortest unprofiled step of the script (the
// twin's meta.json, timed_step_ms), less 5%.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analysis_input.h"
#include "analysis/trace_facts.h"
#include "diagnose/diagnosis.h"
#include "ingest/load_inputs.h"

namespace commdx {
namespace {

namespace fs = std::filesystem;

const std::string kRoot = std::string(COMMDX_SOURCE_DIR) + "/";

struct Seen {
  Job job;
  analysis::TraceFacts facts;
  std::string root_cause;
  std::set<std::string> findings;
};

Seen Diagnose(const std::string& path) {
  Seen s;
  auto job = ingest::LoadInputs({path});
  EXPECT_TRUE(job) << path << ": " << (job ? "" : job.error().ToString());
  if (!job) return s;
  s.job = std::move(*job);
  analysis::AnalysisInput input(s.job);
  auto ask = diagnose::DiagnoseOptions::Only({Source::kTrace});
  ask.name_root_cause = true;
  auto d = diagnose::Diagnose(input, ask);
  s.facts = input.trace_facts();
  if (d.root_cause) s.root_cause = d.root_cause->id;
  for (const auto& f : d.findings)
    if (f.severity >= Severity::kWarning) s.findings.insert(f.id);
  return s;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The text after `"key":` and any blanks in meta.json's text (npos if the key is absent).
size_t ValueAt(const std::string& text, const std::string& key) {
  size_t at = text.find("\"" + key + "\"");
  if (at == std::string::npos) return at;
  at = text.find(':', at + key.size() + 2);
  if (at == std::string::npos) return at;
  return text.find_first_not_of(" \t\r\n", at + 1);
}

// The shortest and longest of the unprofiled step times in meta.json (ms).
std::pair<double, double> UnprofiledStepRangeMs(const std::string& meta_path) {
  const std::string text = ReadText(meta_path);
  size_t at = ValueAt(text, "timed_step_ms");
  if (at == std::string::npos || text[at] != '[') return {0, 0};
  const size_t end = text.find(']', at);
  if (end == std::string::npos) return {0, 0};
  std::vector<double> ms;
  std::istringstream list(text.substr(at + 1, end - at - 1));
  for (std::string item; std::getline(list, item, ',');) ms.push_back(std::stod(item));
  if (ms.empty()) return {0, 0};
  auto [lo, hi] = std::minmax_element(ms.begin(), ms.end());
  return {*lo, *hi};
}

// The meta.json number `"key": 8` (0 if absent).
double MetaNumber(const std::string& meta_path, const std::string& key) {
  const std::string text = ReadText(meta_path);
  const size_t at = ValueAt(text, key);
  if (at == std::string::npos) return 0;
  try {
    return std::stod(text.substr(at, 32));
  } catch (const std::exception&) {
    return 0;
  }
}

// The meta.json field `"key": "value"` (empty if absent).
std::string MetaString(const std::string& meta_path, const std::string& key) {
  const std::string text = ReadText(meta_path);
  const size_t at = ValueAt(text, key);
  if (at == std::string::npos || text[at] != '"') return "";
  const size_t end = text.find('"', at + 1);
  return end == std::string::npos ? "" : text.substr(at + 1, end - at - 1);
}

// (nsys export, folder of its Kineto twin) for every pair in the repository.
std::vector<std::pair<std::string, std::string>> Pairs() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& entry : fs::directory_iterator(kRoot + "tests/data/nsys")) {
    std::string name = entry.path().filename().string();
    if (name.size() < 10 || name.substr(name.size() - 10) != ".sqlite.gz") continue;
    out.emplace_back(entry.path().string(), kRoot + "examples/" + name.substr(0, name.size() - 10));
  }
  for (const auto& entry : fs::directory_iterator(kRoot + "examples")) {
    const std::string dir = entry.path().string();
    const std::string twin = MetaString(dir + "/meta.json", "kineto_twin");
    if (fs::exists(dir + "/report.sqlite.gz") && !twin.empty())
      out.emplace_back(dir + "/report.sqlite.gz", kRoot + "examples/" + twin);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(NsysKinetoPairs, SameRootCauseFindingsAndStepBreakdown) {
  int pairs = 0;
  for (const auto& [nsys, kineto] : Pairs()) {
    if (!fs::exists(kineto + "/trace_rank0.json.gz")) continue;
    SCOPED_TRACE(nsys);
    ++pairs;
    Seen n = Diagnose(nsys);
    Seen k = Diagnose(kineto + "/trace_rank0.json.gz");
    ASSERT_EQ(n.facts.rank_means.size(), 1u);
    ASSERT_EQ(k.facts.rank_means.size(), 1u);
    // trace.launch_bound is compared only where both sides price it alike: in a PyTorch
    // profiler trace its saving has the profiler's estimated own cost taken off
    // (docs/trace-metrics.md, "The profiler's own cost"), in an Nsight Systems trace it has not
    // (nsys's cost per event is not measured yet), so one side may raise it and the other not.
    if (n.root_cause != "trace.launch_bound" && k.root_cause != "trace.launch_bound") {
      EXPECT_EQ(n.root_cause, k.root_cause);
    }
    // A capture without any mark (nsys -t cuda, no NVTX) has no step boundaries: its one "step"
    // is the whole capture of `profiled_steps` iterations, so its GPU work is compared per
    // iteration, and findings that depend on the step (launch gaps over a whole capture) are not.
    const bool whole = n.job.trace.ranks[0].step_source == StepSource::kWholeTrace &&
                       k.job.trace.ranks[0].step_source != StepSource::kWholeTrace;
    const double per = whole ? MetaNumber(fs::path(nsys).parent_path().string() + "/meta.json",
                                          "profiled_steps")
                             : 1.0;
    ASSERT_GT(per, 0.0);
    if (!whole) {
      auto but_launch = [](std::set<std::string> ids) {
        ids.erase("trace.launch_bound");
        return ids;
      };
      EXPECT_EQ(but_launch(n.findings), but_launch(k.findings));
    }
    // The same collectives (DDP: NCCL calls, with or without kernels), where both ran the same
    // setup (tests/data's export ran without DDP, its twin with).
    if (fs::path(nsys).filename() == "report.sqlite.gz") {
      EXPECT_EQ(n.job.trace.ranks[0].collectives.size(), k.job.trace.ranks[0].collectives.size());
    }
    const auto& a = n.facts.rank_means[0];
    const auto& b = k.facts.rank_means[0];
    const double gpu_n = static_cast<double>(a.compute_ns + a.comm_ns() + a.other_gpu_ns) / per;
    const double gpu_k = static_cast<double>(b.compute_ns + b.comm_ns() + b.other_gpu_ns);
    const auto [lo_ms, hi_ms] = UnprofiledStepRangeMs(kineto + "/meta.json");
    const double step_n = static_cast<double>(a.total_ns()) / 1e6 / per;
    const double step_k = static_cast<double>(b.total_ns()) / 1e6;
    std::printf(
        "%s: compute %.3f vs %.3f ms, GPU work %.3f vs %.3f ms, step %.2f vs %.2f ms (nsys vs "
        "Kineto), unprofiled %.2f..%.2f ms\n",
        nsys.c_str(), a.compute_ns / 1e6 / per, b.compute_ns / 1e6, gpu_n / 1e6, gpu_k / 1e6,
        step_n, step_k, lo_ms, hi_ms);
    EXPECT_NEAR(static_cast<double>(a.compute_ns) / per / static_cast<double>(b.compute_ns), 1.0,
                0.05);
    EXPECT_NEAR(gpu_n / gpu_k, 1.0, 0.05);
    EXPECT_NEAR(static_cast<double>(a.comm_ns()) / 1e6 / per,
                static_cast<double>(b.comm_ns()) / 1e6, 0.05 * gpu_k / 1e6);
    EXPECT_GT(lo_ms, 0.0);
    EXPECT_GE(step_n, 0.95 * lo_ms);
    EXPECT_GE(step_k, 0.95 * lo_ms);
  }
  EXPECT_GE(pairs, 11);
}

}  // namespace
}  // namespace commdx
