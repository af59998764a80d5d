// Nsight Systems ingest + every trace analysis on one core, on a large export grown from the real
// one in tests/data/nsys (its kernel, runtime, copy, set and NVTX rows repeated N times, each copy
// shifted past the last in time and in correlationId, through the SQLite library):
//
//   build/bench_programs/nsys_bench        # makes /tmp/commdx-large-nsys{,-nvtx}.sqlite once
//   COMMDX_NSYS_BENCH_COPIES=200 build/bench_programs/nsys_bench
//
// COMMDX_NSYS_BENCH_FILE overrides the path. Reported: kernel + runtime rows per second of
// process CPU time (one thread, so per core), all rows per second, peak RSS. Results:
// docs/measurements/nsys-ingest.md.
#include <benchmark/benchmark.h>
#include <sqlite3.h>
#include <sys/resource.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "analysis/hta_compat.h"
#include "analysis/registry.h"
#include "base/file.h"
#include "ingest/load_inputs.h"

namespace {

using commdx::Job;

// `nvtx`: the NVTX rows grown with the rest (emit_nvtx writes ~2 ranges per kernel+runtime row,
// so they are most rows); without, only the first copy keeps its ranges (kernel+runtime heavy).
std::string BenchFile(bool nvtx) {
  const char* env = std::getenv("COMMDX_NSYS_BENCH_FILE");
  std::string path = env ? env : "/tmp/commdx-large-nsys";
  return path + (nvtx ? "-nvtx.sqlite" : ".sqlite");
}

int Copies() {
  const char* env = std::getenv("COMMDX_NSYS_BENCH_COPIES");
  return env ? std::max(1, std::atoi(env)) : 100;
}

void Exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::fprintf(stderr, "nsys_bench: %s: %s\n", sql.substr(0, 80).c_str(), err);
    std::abort();
  }
}

int64_t Scalar(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr);
  int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  sqlite3_finalize(st);
  return v;
}

// "start + :s, end + :s, ..., correlationId + :c, ..." for every column of `table`.
std::string Shifted(sqlite3* db, const std::string& table, int64_t dt, int64_t dc) {
  std::string cols;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, ("SELECT name FROM pragma_table_info('" + table + "')").c_str(), -1, &st,
                     nullptr);
  while (sqlite3_step(st) == SQLITE_ROW) {
    std::string c = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    if (!cols.empty()) cols += ", ";
    if (c == "start" || c == "end")
      cols += c + " + " + std::to_string(dt);
    else if (c == "correlationId")
      cols += c + " + " + std::to_string(dc);
    else
      cols += c;
  }
  sqlite3_finalize(st);
  return cols;
}

// The real export, its activity tables repeated `copies` times.
void MakeExport(const std::string& path, int copies, bool nvtx) {
  auto text = commdx::ReadFile(std::string(COMMDX_SOURCE_DIR) +
                               "/tests/data/nsys/styles_healthy_iter_marks.sqlite.gz");
  if (!text) std::abort();
  std::ofstream(path, std::ios::binary) << text->data;
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) std::abort();
  std::vector<std::string> tables = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME",
                                     "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"};
  if (nvtx) tables.push_back("NVTX_EVENTS");
  const int64_t span =
      Scalar(db, "SELECT max(end) - min(start) FROM CUPTI_ACTIVITY_KIND_RUNTIME") + 1'000'000;
  const int64_t corr = Scalar(db, "SELECT max(correlationId) FROM CUPTI_ACTIVITY_KIND_RUNTIME") + 1;
  Exec(db, "BEGIN");
  for (const auto& t : tables) Exec(db, "CREATE TEMP TABLE o_" + t + " AS SELECT * FROM " + t);
  for (int i = 1; i < copies; ++i)
    for (const auto& t : tables)
      Exec(db, "INSERT INTO " + t + " SELECT " + Shifted(db, t, i * span, i * corr) + " FROM o_" +
                   t + (t == "NVTX_EVENTS" ? " WHERE eventType != 75" : ""));
  Exec(db, "COMMIT");
  sqlite3_close(db);
}

void BM_NsysIngestAnalyze(benchmark::State& state) {
  const bool nvtx = state.range(0) != 0;
  const std::string path = BenchFile(nvtx);
  if (!std::filesystem::exists(path)) MakeExport(path, Copies(), nvtx);
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  const int64_t kr = Scalar(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL") +
                     Scalar(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME");
  const int64_t all = kr + Scalar(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY") +
                      Scalar(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET") +
                      Scalar(db, "SELECT count(*) FROM NVTX_EVENTS");
  sqlite3_close(db);
  commdx::ingest::LoadOptions o;
  o.threads = 1;
  for (auto _ : state) {
    auto job = commdx::ingest::LoadInputs({path}, o);
    if (!job || job->trace.ranks.empty()) std::abort();
    auto findings = commdx::analysis::RunAnalyzers(*job, {}, {commdx::Source::kTrace});
    size_t n = findings.size();
    for (const auto& r : job->trace.ranks)
      n += commdx::analysis::ComputeHtaCompat(r).kernel_time_ns > 0;
    benchmark::DoNotOptimize(n);
  }
  state.counters["kernel_runtime_rows_per_s"] =
      benchmark::Counter(static_cast<double>(kr) * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["all_rows_per_s"] = benchmark::Counter(
      static_cast<double>(all) * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["kernel_runtime_rows"] = static_cast<double>(kr);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  state.counters["peak_rss_MB"] = static_cast<double>(ru.ru_maxrss) / 1024.0;
}
BENCHMARK(BM_NsysIngestAnalyze)
    ->ArgName("nvtx")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

// The floor under any reader that goes through the SQLite library: the importer's own queries on
// the same file, opened the same way (read-only, no mutex, mapped), every row stepped and its
// columns read, nothing built. What BM_NsysIngestAnalyze spends above this is commdx's.
void BM_NsysSqliteStepOnly(benchmark::State& state) {
  const bool nvtx = state.range(0) != 0;
  const std::string path = BenchFile(nvtx);
  if (!std::filesystem::exists(path)) MakeExport(path, Copies(), nvtx);
  const char* queries[] = {
      "SELECT start, end, deviceId, streamId, coalesce(correlationId, -1), globalPid, "
      "demangledName, gridX FROM CUPTI_ACTIVITY_KIND_KERNEL",
      "SELECT start, end, eventClass, globalTid, coalesce(correlationId, -1), nameId "
      "FROM CUPTI_ACTIVITY_KIND_RUNTIME",
      "SELECT start, end, deviceId, streamId, coalesce(correlationId, -1), globalPid, bytes, "
      "copyKind, srcKind, dstKind FROM CUPTI_ACTIVITY_KIND_MEMCPY",
      "SELECT start, end, deviceId, streamId, coalesce(correlationId, -1), globalPid, bytes, "
      "memKind FROM CUPTI_ACTIVITY_KIND_MEMSET",
      "SELECT start, end, globalTid, text, textId, coalesce(domainId, 0), eventType, jsonText, "
      "binaryData FROM NVTX_EVENTS WHERE eventType IN (59, 60, 75)"};
  int64_t rows = 0;
  for (auto _ : state) {
    sqlite3* db = nullptr;
    sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
    sqlite3_exec(db, "PRAGMA mmap_size = 1099511627776", nullptr, nullptr, nullptr);
    int64_t sum = 0;
    rows = 0;
    for (const char* q : queries) {
      sqlite3_stmt* st = nullptr;
      std::string sql = q;
      if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
        // An export without payload columns: the importer selects NULL in their place.
        sqlite3_finalize(st);
        st = nullptr;
        auto at = sql.find("jsonText, binaryData");
        if (at == std::string::npos) std::abort();
        sql.replace(at, 20, "NULL, NULL");
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) std::abort();
      }
      const int n = sqlite3_column_count(st);
      while (sqlite3_step(st) == SQLITE_ROW) {
        ++rows;
        for (int c = 0; c < n; ++c) {
          if (sqlite3_column_type(st, c) == SQLITE_TEXT)
            sum += sqlite3_column_bytes(st, c);
          else
            sum += sqlite3_column_int64(st, c);
        }
      }
      sqlite3_finalize(st);
    }
    sqlite3_close(db);
    benchmark::DoNotOptimize(sum);
  }
  state.counters["rows_stepped"] = static_cast<double>(rows);
  state.counters["rows_per_s"] = benchmark::Counter(static_cast<double>(rows) * state.iterations(),
                                                    benchmark::Counter::kIsRate);
}
BENCHMARK(BM_NsysSqliteStepOnly)
    ->ArgName("nvtx")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

}  // namespace

BENCHMARK_MAIN();
