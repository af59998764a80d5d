// The Kineto reader gives the same model whatever the JSON layout (one line with or without
// spaces, one event per line, indented, CRLF, keys sorted), cuts one-line traces into parts rather than
// reading them whole, and never takes a "},{" inside a string or a nested list for a cut.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "base/file.h"
#include "ingest/kineto/event_parser.h"
#include "ingest/kineto/json/byte_source.h"
#include "ingest/kineto/json/document_reader.h"
#include "ingest/load_inputs.h"
#include "ingest/read_progress.h"
#include "ingest/trace_build/rank_builder.h"
#include "unit/gzip_text.h"

namespace commdx {
namespace {

using ingest::ReadProgress;

std::string Data(const std::string& name) {
  return std::string(COMMDX_SOURCE_DIR) + "/tests/data/traces/" + name;
}

// Whitespace outside strings dropped (json.dump with separators=(",", ":")).
std::string Compact(const std::string& in) {
  std::string out;
  bool in_str = false;
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (in_str) {
      out += c;
      if (c == '\\') out += in[++i];
      if (c == '"') in_str = false;
    } else if (c == '"') {
      in_str = true;
      out += c;
    } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
      out += c;
    }
  }
  return out;
}

// Each line break outside strings written as CRLF (raw line breaks are never inside strings).
std::string Crlf(const std::string& in) {
  std::string out;
  for (char c : in) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = testing::TempDir() + name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  EXPECT_NE(f, nullptr);
  if (f) {
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  return path;
}

Job LoadPath(const std::string& path, size_t part_bytes) {
  ingest::LoadOptions o = ingest::ForcedKind(InputKind::kKineto);
  o.stream.part_bytes = part_bytes;
  auto job = ingest::LoadInputs({path}, o);
  EXPECT_TRUE(job) << (job ? "" : job.error().ToString());
  return job ? std::move(*job) : Job{};
}

void ExpectSameModel(const Job& want, const Job& got) {
  ASSERT_EQ(got.trace.ranks.size(), 1u);
  const RankTrace& a = want.trace.ranks[0];
  const RankTrace& b = got.trace.ranks[0];
  EXPECT_EQ(b.events, a.events);
  ASSERT_EQ(b.gpu_ops.size(), a.gpu_ops.size());
  ASSERT_EQ(b.HostOpCount(), a.HostOpCount());
  EXPECT_EQ(b.collectives.size(), a.collectives.size());
  EXPECT_EQ(b.steps.size(), a.steps.size());
  for (size_t i = 0; i < a.gpu_ops.size(); ++i) {
    EXPECT_EQ(b.gpu_ops[i].start_ns, a.gpu_ops[i].start_ns);
    EXPECT_EQ(b.gpu_ops[i].end_ns, a.gpu_ops[i].end_ns);
    EXPECT_EQ(b.Name(b.gpu_ops[i].name), a.Name(a.gpu_ops[i].name));
  }
  EXPECT_EQ(got.quality.entries().size(), want.quality.entries().size());
}

TEST(KinetoLayouts, EveryLayoutGivesTheSameModel) {
  for (const char* name : {"kineto_2024_rank0.json", "nested_args_rank0.json"}) {
    SCOPED_TRACE(name);
    auto text = ReadFile(Data(name));
    ASSERT_TRUE(text);
    Job want = LoadPath(Data(name), 8u << 20);
    std::string compact = Compact(text->data);
    ASSERT_EQ(compact.find('\n'), std::string::npos);
    const std::vector<std::pair<std::string, std::string>> layouts = {
        {"compact", compact}, {"crlf", Crlf(text->data)}, {"crlf_compact", Crlf(compact)}};
    for (const auto& [layout, body] : layouts) {
      SCOPED_TRACE(layout);
      std::string path = WriteTemp(layout + "_" + name, body);
      // Tiny parts: many cuts in a file without line breaks, some inside nested lists.
      for (size_t part : {size_t{300}, size_t{4096}, size_t{8} << 20})
        ExpectSameModel(want, LoadPath(path, part));
    }
  }
}

// Keys sorted (json.dump(sort_keys=True), `jq -S`): "args" comes before the category and the
// name that say which args an event needs, "ph" after the name, and the header after the
// events. The file is kineto_2024_rank0.json re-saved that way (make_traces.py).
TEST(KinetoLayouts, SortedKeysGiveTheSameModel) {
  Job want = LoadPath(Data("kineto_2024_rank0.json"), 8u << 20);
  ASSERT_EQ(want.trace.ranks.size(), 1u);
  ASSERT_FALSE(want.trace.ranks[0].gpu_ops.empty());
  for (size_t part : {size_t{300}, size_t{4096}, size_t{8} << 20}) {
    SCOPED_TRACE(part);
    Job got = LoadPath(Data("sorted_keys_rank0.json"), part);
    ExpectSameModel(want, got);
    if (got.trace.ranks.size() != 1) continue;
    const RankTrace& a = want.trace.ranks[0];
    const RankTrace& b = got.trace.ranks[0];
    EXPECT_EQ(b.rank, a.rank);
    EXPECT_EQ(b.world_size, a.world_size);
    ASSERT_EQ(b.HostOpCount(), a.HostOpCount());
    const std::vector<HostOp> ao = a.HostOps(), bo = b.HostOps();
    for (size_t i = 0; i < a.HostOpCount(); ++i) {
      EXPECT_EQ(b.Name(bo[i].name), a.Name(ao[i].name));
      EXPECT_EQ(bo[i].start_ns, ao[i].start_ns);
    }
    for (size_t i = 0; i < a.gpu_ops.size() && i < b.gpu_ops.size(); ++i) {
      EXPECT_EQ(b.gpu_ops[i].launch >= 0, a.gpu_ops[i].launch >= 0) << i;
      EXPECT_EQ(b.gpu_ops[i].stream, a.gpu_ops[i].stream) << i;
    }
  }
}

// "},{" inside names and a nested list of objects in args: a cut there must be retried, and
// the events before the failing one kept exactly once.
TEST(KinetoLayouts, CutPatternsInsideStringsAndListsAreNotCuts) {
  std::string events;
  for (int i = 0; i < 400; ++i) {
    char ev[400];
    std::snprintf(ev, sizeof ev,
                  "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op},{%d}, {\\\"x\\\"},{\","
                  "\"pid\":1,\"tid\":1,\"ts\":%d.5,\"dur\":1,\"args\":{\"l\":[{\"a\":1},{\"b\":"
                  "[{},{}]}, {\"c\":\"},{\"}]}}",
                  i ? "," : "", i % 7, 1000 + 10 * i);
    events += ev;
  }
  std::string doc = "{\"traceEvents\":[" + events + "]}";
  std::string path = WriteTemp("cut_patterns.json", doc);
  Job whole = LoadPath(path, 8u << 20);
  ASSERT_EQ(whole.trace.ranks.size(), 1u);
  EXPECT_EQ(whole.trace.ranks[0].HostOpCount(), 400u);
  for (size_t part : {size_t{1}, size_t{50}, size_t{333}, size_t{1000}})
    ExpectSameModel(whole, LoadPath(path, part));
}

// The last part of traceEvents is found by its ']' (passed over 16 bytes at a time where
// nothing can end it): brackets, quotes and backslashes inside names at every offset, and
// top-level values with brackets after the array, read as the same events with cuts; cut off
// after the last event, both report the array unfinished.
TEST(KinetoLayouts, TheLastPartEndsAtTheArraysOwnBracket) {
  const char* pieces[] = {"a]", "b\\\"]", "c\\\\", "d[{", "e}]\\\\\\\"", "f"};
  std::vector<std::string> names;
  std::string events;
  for (int i = 0; i < 300; ++i) {
    std::string name = std::string(i % 23, 'x') + pieces[i % 6] + std::to_string(i);
    names.push_back(name);
    events += (i ? "," : "") + std::string("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"") + name +
              "\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(1000 + 10 * i) + ",\"dur\":1}";
  }
  const std::string tail = R"(],"traceName":"t]}","x":[1,[2,{"y":"]"}]]})";
  std::string path = WriteTemp("last_part.json", "{\"traceEvents\":[" + events + tail);
  Job whole = LoadPath(path, 8u << 20);
  ASSERT_EQ(whole.trace.ranks.size(), 1u);
  const RankTrace& t = whole.trace.ranks[0];
  ASSERT_EQ(t.HostOpCount(), names.size());
  const std::vector<HostOp> host_ops = t.HostOps();
  for (size_t i = 0; i < names.size(); ++i) {
    // Names are kept unescaped: \" is ", \\ is one backslash.
    std::string want;
    for (size_t k = 0; k < names[i].size(); ++k)
      want += names[i][k] == '\\' ? names[i][++k] : names[i][k];
    EXPECT_EQ(t.Name(host_ops[i].name), want) << i;
  }
  ExpectSameModel(whole, LoadPath(path, 300));

  // Cut short right after the last event (a job killed while the profiler wrote): every
  // event is read, in one part or many, and the cut is noted with the file and its end.
  std::string cut_path = WriteTemp("last_part_cut.json", "{\"traceEvents\":[" + events);
  ingest::LoadOptions o = ingest::ForcedKind(InputKind::kKineto);
  for (size_t part : {size_t{8} << 20, size_t{300}}) {
    o.stream.part_bytes = part;
    auto cut = ingest::LoadInputs({cut_path}, o);
    ASSERT_TRUE(cut) << cut.error().ToString();
    ASSERT_EQ(cut->trace.ranks.size(), 1u);
    EXPECT_EQ(cut->trace.ranks[0].HostOpCount(), names.size());
    ASSERT_EQ(cut->quality.Count("kineto.trace_cut_short"), 1u);
    for (const auto& e : cut->quality.entries()) {
      if (e.id != "kineto.trace_cut_short") continue;
      EXPECT_EQ(e.first.offset, events.size() + 16) << e.message;  // the end of the file
      EXPECT_NE(e.message.find("last_part_cut.json"), std::string::npos) << e.message;
    }
  }
}

// A broken event (not JSON: `tru e`) is one bad record, skipped and counted at its place, not
// the whole file; a cut that falls after it reads the same as the whole array in one part.
TEST(KinetoLayouts, BrokenEventIsSkippedTheSameWithTinyParts) {
  auto text = ReadFile(Data("kineto_2024_rank0.json"));
  ASSERT_TRUE(text);
  std::string body = Compact(text->data);
  size_t at = body.find("\"dur\":", body.size() / 2);
  ASSERT_NE(at, std::string::npos);
  body.insert(at, "\"bad\":tru e,");
  std::string path = WriteTemp("broken_compact.json", body);
  ingest::LoadOptions o = ingest::ForcedKind(InputKind::kKineto);
  o.stream.part_bytes = 8u << 20;
  auto whole = ingest::LoadInputs({path}, o);
  o.stream.part_bytes = 200;
  auto small = ingest::LoadInputs({path}, o);
  ASSERT_TRUE(whole) << whole.error().ToString();
  ASSERT_TRUE(small) << small.error().ToString();
  ExpectSameModel(*whole, *small);
  auto bad = [](const Job& job) {
    for (const auto& e : job.quality.entries())
      if (e.id == "kineto.bad_event") return e;
    return DiagEntry{};
  };
  EXPECT_EQ(bad(*whole).count, 1u);
  EXPECT_EQ(bad(*small).count, 1u);
  EXPECT_EQ(bad(*small).first.offset, bad(*whole).first.offset);
  EXPECT_LT(bad(*whole).first.offset, at);  // where the broken event starts
  EXPECT_GT(bad(*whole).first.offset + 2000, at);
  // The others are all read: one event fewer than the file without the edit.
  ASSERT_EQ(whole->trace.ranks.size(), 1u);
  EXPECT_EQ(whole->trace.ranks[0].events + 1, LoadPath(WriteTemp("unbroken.json",
                                                                 Compact(text->data)),
                                                       8u << 20)
                                                   .trace.ranks[0]
                                                   .events);
}

// The model's arrays are reserved from the decompressed size a source expects: for gzip the
// trailer's, so a .json.gz does not grow them from the compressed size by doubling.
TEST(KinetoLayouts, GzipSourcesExpectTheirInflatedSize) {
  auto text = ReadFile(Data("kineto_2024_rank0.json"));
  ASSERT_TRUE(text);
  const std::string& json = text->data;
  const std::string gz = GzipString(json);
  ASSERT_LT(gz.size(), json.size());
  std::string path = WriteTemp("expected.json.gz", gz);
  auto file = ingest::kineto::OpenFileSource(path);
  ASSERT_TRUE(file);
  EXPECT_TRUE((*file)->was_gzip());
  EXPECT_EQ((*file)->expected_bytes(), json.size());
  EXPECT_EQ(ingest::kineto::MemorySource(gz, "m.json.gz")->expected_bytes(), json.size());
  // `cat a.gz b.gz` with a small last member: its stated size is not the whole; a guess is.
  const std::string two = gz + GzipString("\n");
  EXPECT_EQ(ingest::kineto::MemorySource(two, "two.json.gz")->expected_bytes(), two.size() * 10);
  // Plain files expect their size; the gzip model equals the plain one.
  auto plain = ingest::kineto::OpenFileSource(Data("kineto_2024_rank0.json"));
  ASSERT_TRUE(plain);
  EXPECT_EQ((*plain)->expected_bytes(), json.size());
  ExpectSameModel(LoadPath(Data("kineto_2024_rank0.json"), 8u << 20), LoadPath(path, 8u << 20));
}

TEST(KinetoLayouts, ProgressLineOnlyForLongReads) {
  EXPECT_FALSE(ReadProgress::Due(0.5, 1, 1000));     // too early to tell
  EXPECT_FALSE(ReadProgress::Due(1.5, 900, 1000));   // nearly done
  EXPECT_TRUE(ReadProgress::Due(1.5, 300, 1000));    // 3.5 s left
  EXPECT_FALSE(ReadProgress::Due(5.0, 1000, 1000));  // finished
  EXPECT_EQ(ReadProgress::Text(2.0, 1'000'000'000, 3'000'000'000),
            "reading inputs: 33% (1.0 of 3.0 GB), about 4 s left");
  EXPECT_EQ(ReadProgress::Text(2.0, 1'000'000'000, 3'000'000'000, 310, 1024),
            "reading inputs: 33% (1.0 of 3.0 GB, 310 of 1024 files), about 4 s left");
}

// A set of files is counted whole from the start: what was planned is not counted again when
// each reader begins, and the round ends at zero whatever was left unread.
TEST(KinetoLayouts, ProgressCountsAPlannedSetOnce) {
  ReadProgress::End();
  ReadProgress::Plan(3000);
  EXPECT_EQ(ReadProgress::TotalBytes(), 3000u);
  ReadProgress::Begin(1000);  // the first of three files
  ReadProgress::Advance(1000);
  ReadProgress::Begin(1000);
  EXPECT_EQ(ReadProgress::TotalBytes(), 3000u);
  EXPECT_EQ(ReadProgress::DoneBytes(), 1000u);
  ReadProgress::Begin(1500);  // larger than planned (a file grew): the excess is added
  EXPECT_EQ(ReadProgress::TotalBytes(), 3500u);
  ReadProgress::End();
  EXPECT_EQ(ReadProgress::TotalBytes(), 0u);
  EXPECT_EQ(ReadProgress::DoneBytes(), 0u);
  // Loading a folder of traces plans their bytes and ends the round.
  auto job = ingest::LoadInputs({Data("skew_rank0.json"), Data("skew_rank1.json")},
                                ingest::ForcedKind(InputKind::kKineto));
  ASSERT_TRUE(job);
  EXPECT_EQ(job->trace.ranks.size(), 2u);
  EXPECT_EQ(ReadProgress::TotalBytes(), 0u);
  // Files count as they are done, and the round ends at zero.
  ReadProgress::Plan(100, 2);
  ReadProgress::FileDone();
  EXPECT_EQ(ReadProgress::FilesDone(), 1u);
  ReadProgress::End();
  EXPECT_EQ(ReadProgress::FilesDone(), 0u);
}

}  // namespace
}  // namespace commdx
