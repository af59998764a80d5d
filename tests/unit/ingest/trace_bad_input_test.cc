// Bad input never crashes: broken files are file:line:col errors (exit 3), bad records are
// counted in job.quality and skipped.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/file.h"
#include "unit/gzip_text.h"
#include "ingest/load_inputs.h"

namespace commdx {
namespace {

std::string Data(const std::string& name) {
  return std::string(COMMDX_SOURCE_DIR) + "/tests/data/traces/" + name;
}

// A file named on the command line as `commdx trace` names it, or found in a folder.
Status LoadOne(const std::string& path, Job& job, bool explicit_file = true) {
  std::string where = path;
  if (!explicit_file) {
    where = testing::TempDir() + "commdx_bad_input_folder";
    std::filesystem::remove_all(where);
    std::filesystem::create_directories(where);
    std::filesystem::copy_file(path, where + "/" + std::filesystem::path(path).filename().string());
  }
  auto loaded = ingest::LoadInputs({where}, ingest::ForcedKind(InputKind::kKineto));
  if (!loaded) return loaded.error();
  job = std::move(*loaded);
  return Ok{};
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string TempFile(const std::string& name, const std::string& bytes) {
  std::string path = testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// The entry of `id` in the job's input quality (count 0 if none).
DiagEntry Note(const Job& job, const std::string& id) {
  for (const auto& e : job.quality.entries())
    if (e.id == id) return e;
  return DiagEntry{};
}

// A trace cut short (the job killed while the profiler wrote) is read up to its cut: every
// event before it, the cut noted with the file and the offset of the event it falls in.
TEST(KinetoBadInput, TruncatedJsonIsReadUpToItsCut) {
  const std::string text = Slurp(Data("truncated.json"));
  Job job;
  auto st = LoadOne(Data("truncated.json"), job);
  ASSERT_TRUE(st) << st.error().ToString();
  ASSERT_EQ(job.trace.ranks.size(), 1u);
  const DiagEntry cut = Note(job, "kineto.trace_cut_short");
  ASSERT_EQ(cut.count, 1u);
  EXPECT_EQ(cut.severity, DiagSeverity::kWarning);
  EXPECT_NE(cut.message.find("truncated.json"), std::string::npos) << cut.message;
  // The file ends inside the event whose '{' follows the last "},".
  const size_t last_event = text.find('{', text.rfind("},"));
  EXPECT_EQ(cut.first.offset, last_event) << cut.message;
  // Every complete event before it: the events are indented, each closed by "\n  }".
  const size_t events_at = text.find("\"traceEvents\"");
  uint64_t closed = 0;
  for (size_t at = text.find("\n  }", events_at); at != std::string::npos;
       at = text.find("\n  }", at + 1))
    ++closed;
  EXPECT_EQ(job.trace.ranks[0].events, closed);
  // Cut before its first event there is nothing to read: an error with its place.
  Job none;
  auto head = LoadOne(TempFile("head.json", text.substr(0, events_at + 20)), none);
  ASSERT_FALSE(head);
  EXPECT_EQ(ExitCodeFor(head.error().code), 3);
  EXPECT_NE(head.error().message.find("before its first event"), std::string::npos)
      << head.error().ToString();
  EXPECT_GT(head.error().where.line, 1u);
  // Cut inside the header: the error of an input that ends too soon, with its line.
  auto header = LoadOne(TempFile("header.json", text.substr(0, 120)), none);
  ASSERT_FALSE(header);
  EXPECT_NE(header.error().message.find("truncated JSON"), std::string::npos)
      << header.error().ToString();
  EXPECT_GT(header.error().where.line, 1u);
}

TEST(KinetoBadInput, NotJsonAndEmpty) {
  Job job;
  auto st = LoadOne(Data("not_json.txt"), job);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().ToString().find("not_json.txt:1:1: error: not JSON"), std::string::npos)
      << st.error().ToString();
  auto empty = LoadOne(Data("empty.json"), job);
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("empty"), std::string::npos);
  // Found in a folder instead of named: skipped with the reason, not an error.
  Job folder;
  ASSERT_TRUE(LoadOne(Data("not_json.txt"), folder, false));
  ASSERT_EQ(folder.skipped.size(), 1u);
  EXPECT_EQ(folder.skipped[0].reason, "not recognised as kineto");
}

// A gzip stream cut short reads as the JSON it inflates to, cut there (both inflaters).
TEST(KinetoBadInput, TruncatedGzipIsReadUpToItsCut) {
  const std::string json = Slurp(Data("kineto_2024_rank0.json"));
  std::string gz = GzipString(json);
  std::string cut = TempFile("cut.json.gz", gz.substr(0, gz.size() / 2));
  Job job;
  auto st = LoadOne(cut, job);
  ASSERT_TRUE(st) << st.error().ToString();
  const DiagEntry note = Note(job, "kineto.trace_cut_short");
  ASSERT_EQ(note.count, 1u);
  EXPECT_NE(note.message.find("gzip stream ends early"), std::string::npos) << note.message;
  // The same events as the plain JSON cut where the inflated text ends.
  const size_t inflated = note.first.offset;
  ASSERT_GT(inflated, 0u);
  ASSERT_LT(inflated, json.size());
  Job plain;
  ASSERT_TRUE(LoadOne(TempFile("cut_plain.json", json.substr(0, inflated + 1)), plain));
  ASSERT_EQ(plain.trace.ranks.size(), 1u);
  EXPECT_EQ(job.trace.ranks[0].events, plain.trace.ranks[0].events);
  EXPECT_GT(job.trace.ranks[0].events, 0u);
  // The whole file, gzipped, reads like the plain one.
  std::string whole = TempFile("whole.json.gz", gz);
  Job ok;
  ASSERT_TRUE(LoadOne(whole, ok));
  EXPECT_EQ(ok.trace.ranks.size(), 1u);
  EXPECT_EQ(ok.trace.ranks[0].collectives.size(), 2u);
}

// Gzip members one after another (`cat a.gz b.gz`) read as one stream, whichever inflater was
// built (ISA-L or zlib); a wrong CRC-32 in the trailer is corrupt data, not a trace.
TEST(KinetoBadInput, GzipMembersChainAndTheirChecksumsHold) {
  std::string json = Slurp(Data("kineto_2024_rank0.json"));
  std::string two =
      GzipString(json.substr(0, json.size() / 3)) + GzipString(json.substr(json.size() / 3));
  Job job;
  auto st = LoadOne(TempFile("two_members.json.gz", two), job);
  ASSERT_TRUE(st) << st.error().ToString();
  ASSERT_EQ(job.trace.ranks.size(), 1u);
  EXPECT_EQ(job.trace.ranks[0].collectives.size(), 2u);
  std::string bad = GzipString(json);
  bad[bad.size() - 8] ^= 0x01;  // the first byte of the CRC-32 trailer
  Job broken;
  auto err = LoadOne(TempFile("bad_crc.json.gz", bad), broken);
  ASSERT_FALSE(err);
  EXPECT_EQ(ExitCodeFor(err.error().code), 3);
  EXPECT_NE(err.error().message.find("corrupt gzip data"), std::string::npos)
      << err.error().ToString();
}

TEST(KinetoBadInput, BadRecordsAreCountedAndSkipped) {
  Job job;
  auto st = LoadOne(Data("bad_records.json"), job);
  ASSERT_TRUE(st) << st.error().ToString();
  ASSERT_EQ(job.trace.ranks.size(), 1u);
  EXPECT_EQ(job.trace.ranks[0].HostOpCount(), 1u);  // only the good aten::mm
  EXPECT_EQ(job.quality.Count("kineto.missing_ts"), 1u);
  EXPECT_EQ(job.quality.Count("kineto.missing_dur"), 2u);  // absent, and NaN
  EXPECT_EQ(job.quality.Count("kineto.negative_dur"), 1u);
  EXPECT_EQ(job.quality.Count("kineto.unknown_category"), 1u);
  EXPECT_EQ(job.quality.Count("kineto.not_an_event"), 1u);
  for (const auto& e : job.quality.entries()) {
    // About the file, not a place in it.
    if (e.id == "kineto.rank_unknown" || e.id == "kineto.no_step_boundaries" ||
        e.id == "kineto.no_gpu_activity")
      continue;
    EXPECT_TRUE(e.first.has_offset) << e.id;
    EXPECT_GT(e.first.offset, 0u) << e.id;
  }
  // Its one good event is a CPU op: no GPU work to analyse, and said so.
  EXPECT_EQ(job.quality.Count("kineto.no_gpu_activity"), 1u);
  // No rank in the file or its name: numbered, and said so.
  EXPECT_EQ(job.quality.Count("kineto.rank_unknown"), 1u);
}

TEST(KinetoBadInput, GarbageNeverCrashes) {
  const char* cases[] = {
      "{",
      "{\"traceEvents\"",
      "{\"traceEvents\": [",
      "{\"traceEvents\": [{\"ph\": \"X\"",
      "{\"traceEvents\": [}]}",
      "{\"traceEvents\": []} trailing",
      "[1, 2, 3]",
      "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"cat\": \"kernel\", \"args\": "
      "5}]}",
      "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1e400, \"dur\": 1, \"cat\": \"cpu_op\"}]}",
      "{\"a\": \"\\\"}\", \"traceEvents\": [{\"name\": \"x\\\"\", \"ph\": \"i\"}]}",
      "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
      "\"ncclDevKernel_Generic\", "
      "\"ts\": 1, \"dur\": 2, \"args\": {\"Process Group Ranks\": [0, \"x\", {}]}}]}",
  };
  int i = 0;
  for (const char* c : cases) {
    std::string path = TempFile("garbage" + std::to_string(i++) + ".json", c);
    Job job;
    auto st = LoadOne(path, job);
    if (!st) {
      EXPECT_EQ(st.error().code, ErrorCode::kBadInput) << c;
    }
  }
}

}  // namespace
}  // namespace commdx
