#include "ingest/nccl_tests/nccl_tests_importer.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "base/text.h"
#include "ingest/nccl_tests/nccl_tests_lines.h"
#include "model/nccl_version.h"

namespace commdx::ingest {

namespace {

using nccl_tests::CaseFromBinary;
using nccl_tests::CaseFromCommandLine;
using nccl_tests::IsTypeName;
using nccl_tests::LooksLikeRow;
using nccl_tests::StripMpiTag;
using nccl_tests::StripRankTags;

struct Line {
  std::string_view text;
  uint64_t offset;
};

// nccl-tests' "nccl-library=22809": the code as model/nccl_version.h reads it; anything else as
// written.
std::string NcclVersionFromText(std::string_view code) {
  auto v = ParseInt(code);
  if (!v || *v <= 0) return std::string(code);
  return NcclVersionFromCode(*v);
}

struct State {
  const FileText& file;
  Job& job;
  BenchResult header;  // facts from the preamble, copied into each table's result
  BenchResult current;
  std::vector<std::string> columns;  // column header names, '#' removed
  size_t key_columns = 0;
  bool old_error_column = false;
  bool leading_column = false;  // inferred rows carry one extra integer before the size
  std::set<std::string> hosts;
  std::vector<std::pair<std::string, int>> host_devices;  // device lines per host, in order
  int device_lines = 0;
  LineLocator lines;  // every row keeps its place: line numbers carried forward, not rescanned
  int max_rank = -1;  // highest "Rank N" index listed

  SourceLoc Loc(uint64_t offset) { return lines.At(offset); }
  void Flush() {
    // Summaries alone (an excerpt of their last lines) still say how many runs there were.
    if (!current.rows.empty() || !columns.empty() || !current.failures.empty() ||
        current.summaries > 1) {
      if (current.rows.empty() && !columns.empty() && current.failures.empty())
        current.notes.push_back("the result table has no rows (the test stopped early?)");
      job.bench.push_back(std::move(current));
    }
    current = header;
    columns.clear();
    leading_column = false;
  }
};

// # nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809
// # nThread 1 nGpus 2 minBytes 8 maxBytes 8589934592 step: 4(factor) warmup iters: 1 iters: 20 agg
// iters: 1 validation: 1 graph: 0 unalign: 0 #  Rank  0 Group  0 Pid    656 on         vm device  0
// [0000:00:06] NVIDIA H200 #   Rank  0 Pid  25375 on    dgx1v device  0 [0x06] Tesla V100-SXM2-16GB
// (old)
void ParsePreamble(std::string_view body, State& st) {
  auto words = SplitWhitespace(body);
  if (words.size() >= 3 && words[0] == "nccl-tests" && words[1] == "version") {
    st.header.tool_version = std::string(words[2]);
    for (auto w : words)
      if (ConsumePrefix(w, "nccl-library=")) st.header.nccl_version = NcclVersionFromText(w);
    return;
  }
  if (StartsWith(body, "Collective test starting:")) {
    st.header.case_key = CaseFromBinary(body.substr(body.find(':') + 1));
    st.current.case_key = st.header.case_key;
    return;
  }
  if (words.size() >= 2 && words[0] == "nThread") {
    for (size_t i = 0; i + 1 < words.size(); ++i) {
      if (words[i] == "graph:") {
        auto g = ParseInt(words[i + 1]);
        st.header.cuda_graph = st.current.cuda_graph = g && *g > 0;
      } else if (words[i] == "nGpus") {
        auto g = ParseInt(words[i + 1]);
        if (g && *g > 0 && *g < 1024)
          st.header.gpus_per_thread = st.current.gpus_per_thread = static_cast<int>(*g);
      }
    }
    return;
  }
  // Before 2.x nccl-tests printed the NCCL it was compiled with ("NCCL Tests compiled with NCCL
  // 1.0"); no library version is printed then.
  if (words.size() >= 6 && words[0] == "NCCL" && words[1] == "Tests" && words[2] == "compiled" &&
      words[4] == "NCCL") {
    if (st.header.nccl_version.empty()) st.header.nccl_version = std::string(words[5]);
    st.current.nccl_version = st.header.nccl_version;  // a failure may come before any table
    return;
  }
  if (words.size() >= 2 && words[0] == "Rank") {
    ++st.device_lines;
    // Before 2.x one process drove every GPU of its host and named no host.
    if (Contains(body, " uses device ")) st.hosts.insert("");
    for (size_t i = 0; i + 1 < words.size(); ++i)
      if (words[i] == "on") {
        const std::string host(words[i + 1]);
        st.hosts.insert(host);
        if (st.host_devices.empty() || st.host_devices.back().first != host)
          st.host_devices.push_back({host, 0});
        ++st.host_devices.back().second;
      }
    if (auto r = ParseInt(words[1]); r && *r >= 0 && *r < (1 << 24))
      st.max_rank = std::max(st.max_rank, static_cast<int>(*r));
    size_t bracket = body.find(']');
    if (bracket != body.npos && st.header.topology.gpu_name.empty())
      st.header.topology.gpu_name = std::string(Trim(body.substr(bracket + 1)));
    // A list that names rank 71 on its only line was cut (an excerpt): the ranks are at least
    // the highest index + 1, and the hosts seen are not all of them (nodes 0: unknown).
    const bool cut = st.max_rank + 1 > st.device_lines;
    st.header.nranks = std::max(st.device_lines, st.max_rank + 1);
    st.header.topology.nodes = cut ? 0 : static_cast<int>(st.hosts.size());
    st.current.nranks = st.header.nranks;
    st.current.topology = st.header.topology;
  }
}

// #       size         count      type   redop    root     time   algbw   busbw  #wrong     time
// algbw   busbw  #wrong
bool ParseColumnHeader(std::string_view body, State& st) {
  auto words = SplitWhitespace(body);
  bool has_size = false, has_busbw = false;
  for (auto w : words) {
    has_size = has_size || w == "size";
    has_busbw = has_busbw || w == "busbw";
  }
  if (!has_size || !has_busbw) return false;
  if (!st.current.rows.empty()) st.Flush();
  st.current = st.header;  // the preamble seen so far describes this table
  st.columns.clear();
  st.leading_column = false;
  for (auto w : words) st.columns.emplace_back(w);
  st.key_columns = 0;
  while (st.key_columns < st.columns.size() && st.columns[st.key_columns] != "time")
    ++st.key_columns;
  st.old_error_column = false;
  for (const auto& c : st.columns) st.old_error_column = st.old_error_column || c == "error";
  return true;
}

bool ParsePoint(const std::vector<std::string_view>& w, size_t at, bool old_error, BenchPoint& p) {
  auto time = ParseDouble(w[at]);
  auto alg = ParseDouble(w[at + 1]);
  auto bus = ParseDouble(w[at + 2]);
  if (!time || !alg || !bus) return false;
  p.time_us = *time;
  p.algbw_gbps = *alg;
  p.busbw_gbps = *bus;
  p.valid = true;
  if (old_error || w[at + 3] == "N/A") {
    p.wrong = -1;  // old "error" is a max deviation, not a count
    if (old_error)
      if (auto e = ParseDouble(w[at + 3]); e && *e >= 0) p.max_error = *e;
  } else {
    auto wrong = ParseInt(w[at + 3]);
    if (!wrong) return false;
    p.wrong = *wrong;
  }
  return true;
}

//      8388608       2097152     float     sum      -1    49.59  169.16  169.16       0    48.82
//      171.82  171.82       0
//   ^size (B)    ^count (elements) ^type  ^redop  ^root  ^out-of-place: time algbw busbw #wrong,
//   then in-place
// A table pasted without its header (an excerpt of a thread): the columns follow from the row's
// words, as every nccl-tests version prints them. Keys are size, count, type, then redop and
// root where the row has them (a word of letters is a reduction, a number a root), then two
// groups of time, algbw, busbw and #wrong (older versions: a max error "0e+00").
bool InferColumns(std::vector<std::string_view> w, uint64_t offset, State& st) {
  // A hand-made table with one more integer column first (nccl#527: the node count of each run,
  // under a header without '#'): read when the rest is a row of a known type whose two groups
  // of time, algbw and busbw parse; every row must then carry it.
  if (w.size() >= 12 && w.size() <= 14 && ParseInt(w[0]) && ParseInt(w[1]) && ParseInt(w[2]) &&
      IsTypeName(w[3])) {
    std::vector<std::string_view> rest(w.begin() + 1, w.end());
    const size_t at = rest.size() - 8;
    BenchPoint probe;
    if (ParsePoint(rest, at, true, probe) && ParsePoint(rest, at + 4, true, probe)) {
      st.leading_column = true;
      w = std::move(rest);
    }
  }
  size_t keys = 0;
  if (w.size() == 13)
    keys = 5;
  else if (w.size() == 12)
    keys = 4;
  else if (w.size() == 11)
    keys = 3;
  else
    return false;
  if (!ParseInt(w[0]) || !ParseInt(w[1]) || IsDigit(w[2][0])) return false;
  st.columns = {"size", "count", "type"};
  if (keys == 5) st.columns.insert(st.columns.end(), {"redop", "root"});
  if (keys == 4) st.columns.push_back(IsDigit(w[3][0]) || w[3][0] == '-' ? "root" : "redop");
  const bool old_error = w[keys + 3].find_first_of(".e") != std::string_view::npos;
  for (int g = 0; g < 2; ++g)
    st.columns.insert(st.columns.end(), {"time", "algbw", "busbw", old_error ? "error" : "#wrong"});
  st.key_columns = keys;
  st.old_error_column = old_error;
  std::string names;
  for (const std::string& c : st.columns) names += (names.empty() ? "" : " ") + c;
  st.current.notes.push_back(
      "no column header before the rows: columns taken from the rows' "
      "words (" +
      names + "); which collective: unknown");
  st.job.quality.Add("nccl_tests.no_header", DiagSeverity::kNote,
                     "nccl-tests rows without their column header: columns inferred from the rows",
                     st.Loc(offset));
  if (st.leading_column) {
    st.current.notes.push_back(
        "each row starts with one more integer column before the size (a hand-made table): "
        "ignored; a size not above the row before begins another table");
    st.job.quality.Add("nccl_tests.leading_column", DiagSeverity::kNote,
                       "nccl-tests rows with one extra integer column before the size: ignored",
                       st.Loc(offset));
  }
  return true;
}

void ParseRow(std::string_view line, uint64_t offset, State& st) {
  auto w = SplitWhitespace(line);
  if (st.columns.empty()) InferColumns(w, offset, st);
  if (st.leading_column && w.size() == st.columns.size() + 1 && ParseInt(w[0])) w.erase(w.begin());
  size_t groups = st.columns.size() > st.key_columns ? (st.columns.size() - st.key_columns) / 4 : 0;
  BenchRow row;
  row.loc = st.Loc(offset);
  bool ok = !st.columns.empty() && w.size() == st.columns.size() && groups >= 1;
  for (size_t c = 0; ok && c < st.key_columns; ++c) {
    const std::string& name = st.columns[c];
    if (name == "size") {
      auto v = ParseInt(w[c]);
      ok = v && *v >= 0;
      if (ok) row.bytes = static_cast<uint64_t>(*v);
    } else if (name == "count") {
      auto v = ParseInt(w[c]);
      ok = v && *v >= 0;
      if (ok) row.count = static_cast<uint64_t>(*v);
    } else if (name == "type") {
      row.dtype = std::string(w[c]);
    } else if (name == "redop") {
      row.redop = std::string(w[c]);
    } else if (name == "root") {
      auto v = ParseInt(w[c]);
      row.root = v ? static_cast<int>(*v) : -1;
    }
  }
  if (ok) ok = ParsePoint(w, st.key_columns, st.old_error_column, row.out_of_place);
  if (ok && groups >= 2) ok = ParsePoint(w, st.key_columns + 4, st.old_error_column, row.in_place);
  if (!ok) {
    st.job.quality.Add("nccl_tests.bad_row", DiagSeverity::kWarning,
                       st.columns.empty()
                           ? "a result row before any column header line; skipped"
                           : "a result row that does not match the column header; skipped",
                       row.loc);
    return;
  }
  // A size not above the row before begins another run of the hand-made table (nccl#527: one
  // 1 GiB row per node count): a table of its own, read with the same columns.
  if (st.leading_column && !st.current.rows.empty() && row.bytes <= st.current.rows.back().bytes) {
    std::vector<std::string> columns = st.columns, notes = st.current.notes;
    st.Flush();
    st.columns = std::move(columns);
    st.current.notes = std::move(notes);
    st.leading_column = true;
  }
  st.current.rows.push_back(std::move(row));
}

void ParseTrailer(std::string_view body, uint64_t offset, State& st) {
  // # Out of bounds values : 0 OK
  // # Avg bus bandwidth    : 113.77
  size_t colon = body.find(':');
  if (colon == body.npos) return;
  std::string_view key = Trim(body.substr(0, colon));
  auto value_words = SplitWhitespace(body.substr(colon + 1));
  if (value_words.empty()) return;
  if (key == "Avg bus bandwidth") {
    ++st.current.summaries;
    if (auto v = ParseDouble(value_words[0])) st.current.reported_avg_busbw_gbps = *v;
  } else if (key == "Out of bounds values") {
    if (auto v = ParseInt(value_words[0])) {
      st.current.reported_out_of_bounds = *v;
      if (*v > 0)
        st.job.quality.Add("nccl_tests.out_of_bounds", DiagSeverity::kWarning,
                           "nccl-tests reports out-of-bounds values (wrong results)",
                           st.Loc(offset));
    }
  } else if (StartsWith(key, "Collective test concluded")) {
    st.Flush();
  }
}

// A failure line: "HCA-128: Test NCCL failure common.cu:1204 'unhandled cuda error (run with
// NCCL_DEBUG=INFO for details) / '", " Test CUDA failure common.cu:1045 'CUDA driver version is
// insufficient for CUDA runtime version'". The bare "HOST pid N: Test failure common.cu:915" that
// follows each says where the test gave up, not what failed: counted only when no line says what.
// Before 2.x the line had no "Test " and no host: "NCCL failure all_reduce.cu:95 'unhandled cuda
// error'", "Cuda failure common.cu:40 '...'".
bool ParseFailure(std::string_view line, uint64_t offset, State& st) {
  std::string_view library;
  size_t at = line.npos;
  for (std::string_view lib : {"NCCL", "CUDA"})
    if (size_t i = line.find("Test " + std::string(lib) + " failure"); i != line.npos) {
      library = lib;
      at = i;
      break;
    }
  if (at == line.npos)
    for (std::string_view lib : {"NCCL", "CUDA", "Cuda"})
      if (StartsWith(line, std::string(lib) + " failure ") &&
          line.find(".cu:", lib.size() + 9) != line.npos && line.find('\'') != line.npos) {
        library = lib == "Cuda" ? std::string_view("CUDA") : lib;
        at = 0;
        break;
      }
  const bool bare = at == line.npos;
  if (bare) at = line.find("Test failure");
  if (at == line.npos) return false;
  BenchFailure f;
  f.library = std::string(library);
  // The host before ": Test" ("HCA-128: ", ".. HCA-128 pid 757466: ").
  std::string_view before = Trim(line.substr(0, at));
  if (!before.empty() && before.back() == ':') before.remove_suffix(1);
  auto words = SplitWhitespace(before);
  if (!words.empty() && words.front() == "..") words.erase(words.begin());
  if (!words.empty()) f.host = std::string(words.front());
  size_t open = line.find('\'', at), close = line.rfind('\'');
  if (open != line.npos && close > open) {
    std::string_view msg = Trim(line.substr(open + 1, close - open - 1));
    while (!msg.empty() && (msg.back() == '/' || msg.back() == ' ')) msg.remove_suffix(1);
    f.message = std::string(msg);
  }
  f.loc = st.Loc(offset);
  if (bare) {
    for (const BenchFailure& g : st.current.failures)
      if (!g.library.empty()) return true;
  }
  st.current.failures.push_back(std::move(f));
  return true;
}

}  // namespace

bool SniffNcclTests(std::string_view head) {
  if (Contains(head, "# nccl-tests version") || Contains(head, "# Collective test starting:") ||
      Contains(head, "# Avg bus bandwidth"))
    return true;
  // The parameter line every version prints first (before 2.14 there is no version line): a run
  // that hung before its first size leaves that header and its "Rank N ... on HOST" lines only.
  if (Contains(head, "# nThread ") && Contains(head, " nGpus ") && Contains(head, " minBytes "))
    return true;
  // A test that failed before its table ("Test CUDA failure common.cu:1045 '...'").
  if (Contains(head, "Test NCCL failure") || Contains(head, "Test CUDA failure")) return true;
  // Rows pasted without header or trailer (an excerpt in an issue thread): three of them.
  int rows = 0;
  for (std::string_view line : Split(head, '\n'))
    if (LooksLikeRow(line) && ++rows == 3) return true;
  return Contains(head, "out-of-place") && Contains(head, "in-place") && Contains(head, "busbw") &&
         Contains(head, "algbw");
}

Status ParseNcclTests(const FileText& file, Job& job) {
  State st{file, job, {}, {}, {}, 0, false, false, {}, {}, 0, LineLocator(file)};
  st.header.source = BenchSource::kNcclTests;
  st.header.launch = "nccl-tests";
  st.header.file = file.path;
  st.header.case_key = "unknown";
  st.header.topology.nodes = 0;  // until "Rank N ... on HOST" lines say (an excerpt may lack them)
  st.current = st.header;
  size_t before = job.bench.size();
  std::string_view data = file.data;
  uint64_t pos = 0;
  std::string tagless;
  while (pos < data.size()) {
    size_t nl = data.find('\n', pos);
    std::string_view raw = data.substr(pos, nl == data.npos ? data.npos : nl - pos);
    uint64_t offset = pos;
    pos = nl == data.npos ? data.size() : nl + 1;
    std::string_view line = Trim(StripRankTags(StripMpiTag(raw), tagless));
    // An output quoted in a mail or a forum post ("> # nThread ..."): nccl-tests never starts a
    // line with '>'.
    while (!line.empty() && line[0] == '>') line = Trim(line.substr(1));
    if (line.empty()) continue;
    if (line[0] == '#') {
      std::string_view body = Trim(line.substr(1));
      if (!ParseColumnHeader(body, st)) {
        ParsePreamble(body, st);
        ParseTrailer(body, offset, st);
      }
      continue;
    }
    if (IsDigit(line[0])) {
      ParseRow(line, offset, st);
    } else if (StartsWith(line, "Out of bounds values") || StartsWith(line, "Avg bus bandwidth")) {
      ParseTrailer(line, offset, st);  // before 2.x the trailer had no '#'
    } else if (StartsWith(line, "size ") && ParseColumnHeader(line, st)) {
      // the column header as early versions printed it, or pasted without its '#'
    } else if (StartsWith(line, "Rank ") && Contains(line, " uses device ")) {
      ParsePreamble(line, st);  // before 2.x: "Rank  0 uses device  0 [0x05] Tesla M40 24GB"
    } else if (std::string name = CaseFromCommandLine(line); !name.empty()) {
      st.header.case_key = name;
      if (st.current.rows.empty()) st.current.case_key = name;
    } else {
      ParseFailure(line, offset, st);
    }
  }
  st.Flush();
  // A header with its devices and nothing after: the run hung or was stopped before its first
  // size (bench.no_results says so), not a file that is no nccl-tests output.
  // nccl-tests prints the whole device list at once (rank 0 gathers every rank's line) before
  // NCCL starts: a list whose last host has fewer GPUs than the first was cut with the file.
  if (job.bench.size() == before && st.device_lines > 0) {
    st.current = st.header;
    const auto& hd = st.host_devices;
    if (hd.size() >= 2 && hd.back().second < hd.front().second) {
      st.current.header_cut = true;
      st.current.notes.push_back("the output ends inside its device list: the file is cut");
      job.quality.Add("nccl_tests.cut_header", DiagSeverity::kNote,
                      "the output ends inside its device list (" + hd.back().first + " lists " +
                          std::to_string(hd.back().second) + " GPUs, " + hd.front().first + " " +
                          std::to_string(hd.front().second) +
                          "): the file is cut, so whether the run went on is unknown",
                      st.Loc(data.empty() ? 0 : data.size() - 1));
    } else {
      st.current.notes.push_back("the output ends after its header: no size completed");
    }
    job.bench.push_back(std::move(st.current));
  }
  if (job.bench.size() == before)
    return MakeError(
        ErrorCode::kBadInput,
        "no nccl-tests result table found (expected a '#  size  count  type ... busbw' "
        "header followed by rows)",
        {file.path});
  return Ok{};
}

}  // namespace commdx::ingest
