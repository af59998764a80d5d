// Step detection on real captures (examples/): the styles_* runs recorded without ProfilerStep
// marks find their 8 iterations, and a 2-rank capture with its ProfilerStep (and Optimizer.step)
// events taken out gives about the same step time and the same root cause (metamorphic).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "analysis/analysis_input.h"
#include "analysis/registry.h"
#include "analysis/trace_facts.h"
#include "diagnose/diagnosis.h"
#include "ingest/kineto/kineto_importer.h"

namespace commdx {
namespace {

namespace fs = std::filesystem;

const std::string kExamples = std::string(COMMDX_SOURCE_DIR) + "/examples/";

// The trace text with every traceEvents object whose "name" starts with one of `prefixes`
// removed (the objects are found by brace depth, strings skipped).
std::string StripEvents(const std::string& s, const std::vector<std::string>& prefixes) {
  std::string out;
  out.reserve(s.size());
  int depth = 0;
  bool in_string = false;
  size_t object_start = std::string::npos, copied = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '{' || c == '[') {
      if (++depth == 3 && c == '{') object_start = i;  // {"traceEvents": [ {event} ]}
    } else if (c == '}' || c == ']') {
      if (depth-- == 3 && object_start != std::string::npos) {
        std::string_view ev(s.data() + object_start, i + 1 - object_start);
        bool drop = false;
        for (const auto& p : prefixes)
          drop |= ev.find("\"name\": \"" + p) != std::string_view::npos;
        if (drop) {
          out.append(s, copied, object_start - copied);
          copied = i + 1;
          while (copied < s.size() && (s[copied] == ',' || s[copied] == '\n')) ++copied;
        }
        object_start = std::string::npos;
      }
    }
  }
  out.append(s, copied);
  // A dropped last event leaves "...},\n  ]": remove the dangling comma.
  for (size_t at = out.find(",\n  ]"); at != std::string::npos; at = out.find(",\n  ]"))
    out.erase(at, 1);
  return out;
}

struct Result {
  Job job;
  analysis::TraceFacts facts;
  std::string root_cause;
};

Result Analyse(const std::string& scenario, int ranks, const std::vector<std::string>& strip) {
  Result r;
  for (int i = 0; i < ranks; ++i) {
    const std::string path = kExamples + scenario + "/trace_rank" + std::to_string(i) + ".json.gz";
    auto text = ReadFile(path);
    EXPECT_TRUE(text) << path;
    if (!text) return r;
    FileText f = std::move(*text);
    if (!strip.empty()) f.data = StripEvents(f.data, strip);
    auto st = ingest::ParseKineto(f, r.job);
    EXPECT_TRUE(st) << (st ? "" : st.error().ToString());
  }
  ingest::FinishTraceSet(r.job);
  analysis::AnalysisInput input(r.job);
  auto ask = diagnose::DiagnoseOptions::Only({Source::kTrace});
  ask.name_root_cause = true;
  auto d = diagnose::Diagnose(input, ask);
  r.facts = input.trace_facts();
  if (d.root_cause) r.root_cause = d.root_cause->id;
  return r;
}

double MeanStepMs(const Result& r, size_t trace) {
  return static_cast<double>(r.facts.rank_means.at(trace).total_ns()) / 1e6;
}

TEST(StepCaptures, StylesWithoutProfilerStepFindTheirEightIterations) {
  struct Case {
    const char* scenario;
    StepSource source;
  };
  for (Case c : {Case{"styles_healthy_iter_marks", StepSource::kAnnotation},
                 Case{"styles_healthy_item_end", StepSource::kAnnotation},
                 Case{"styles_healthy_no_marks", StepSource::kOptimizer},
                 Case{"styles_slow_loader_item_end", StepSource::kOptimizer}}) {
    SCOPED_TRACE(c.scenario);
    if (!fs::exists(kExamples + c.scenario + "/trace_rank0.json.gz")) GTEST_SKIP();
    Result r = Analyse(c.scenario, 1, {});
    ASSERT_EQ(r.job.trace.ranks.size(), 1u);
    const RankTrace& t = r.job.trace.ranks[0];
    EXPECT_EQ(t.step_source, c.source);
    EXPECT_EQ(t.steps.size(), 8u);  // the workload profiled 8 iterations (meta.json)
    // The mean step is the traced time over the 8 iterations (the first, slower under the
    // profiler's warm-up, is left out where it is cut), not the whole trace.
    const double per_iteration = static_cast<double>(t.last_ns - t.first_ns) / 8e6;
    EXPECT_NEAR(MeanStepMs(r, 0), per_iteration, 0.15 * per_iteration);
    EXPECT_GE(r.facts.rank_means[0].step, 7);
  }
}

// Same capture, ProfilerStep#N taken out (then Optimizer.step too): the steps come from the
// next source and agree with the ProfilerStep ones.
TEST(StepCaptures, StrippedMarksGiveTheSameStepsAndRootCause) {
  struct Case {
    const char* scenario;
    std::vector<std::string> strip;
    StepSource source;
  };
  for (const Case& c :
       {Case{"ddp_healthy", {"ProfilerStep#"}, StepSource::kOptimizer},
        Case{"ddp_straggler", {"ProfilerStep#"}, StepSource::kOptimizer},
        Case{"ddp_data_stall", {"ProfilerStep#"}, StepSource::kOptimizer},
        Case{"ddp_straggler", {"ProfilerStep#", "Optimizer.step#"}, StepSource::kCollectives},
        Case{"ddp_item_sync", {"ProfilerStep#", "Optimizer.step#"}, StepSource::kCollectives}}) {
    SCOPED_TRACE(std::string(c.scenario) + " without " + c.strip.back());
    if (!fs::exists(kExamples + c.scenario + "/trace_rank1.json.gz")) GTEST_SKIP();
    Result marked = Analyse(c.scenario, 2, {});
    Result stripped = Analyse(c.scenario, 2, c.strip);
    ASSERT_EQ(stripped.job.trace.ranks.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(marked.job.trace.ranks[i].step_source, StepSource::kProfilerStep);
      EXPECT_EQ(stripped.job.trace.ranks[i].step_source, c.source) << "rank " << i;
      EXPECT_NEAR(MeanStepMs(stripped, i), MeanStepMs(marked, i), 0.10 * MeanStepMs(marked, i))
          << "rank " << i;
    }
    EXPECT_FALSE(marked.root_cause.empty());
    EXPECT_EQ(stripped.root_cause, marked.root_cause);
  }
}

}  // namespace
}  // namespace commdx
