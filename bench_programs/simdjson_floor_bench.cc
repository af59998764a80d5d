// A reference point for the trace-ingest targets, not a part of commdx: how fast a general SIMD
// JSON parser (simdjson's On-Demand API, streaming 1 MiB batches) merely reads the members of
// each trace event that commdx reads — phase, category, name, pid, tid, ts, dur and the ids in
// args — with no interning, no model, no analysis and no report. If commdx's whole `trace`
// run on the same events is as fast, a reader rebuilt around such a parser would not reach
// targets that this one misses (docs/measurements/trace-ingest.md, "The floor, side by side").
//
// It reads the events one per line without the enclosing array (NDJSON). Usually run through
// bench_programs/floor_pairs.py, which writes /tmp/t.ndjson beside a grown trace's
// /tmp/t.perline.json and alternates this program with `commdx trace`; alone:
//   COMMDX_FLOOR_NDJSON=/tmp/t.ndjson taskset -c 0 build/bench_programs/simdjson_floor_bench
//
// Reported: events/s and bytes/s per second of process CPU time (simdjson may run its stage 1
// on a second thread; process time counts both, so the numbers are per core).
#include <benchmark/benchmark.h>
#include <simdjson.h>

#include <cstdint>
#include <cstdlib>
#include <string_view>

#define FLOOR_STRINGIFY_(x) #x
#define FLOOR_STRINGIFY(x) FLOOR_STRINGIFY_(x)

namespace {

// Reads what commdx reads of one event; returns a value that depends on all of it. Keys are
// compared and strings taken as written (commdx keeps names raw and unescapes each distinct
// one once), so no string is copied.
uint64_t ReadEvent(simdjson::ondemand::object obj) {
  using simdjson::SUCCESS;
  uint64_t seen = 0;
  for (auto field : obj) {
    simdjson::ondemand::raw_json_string key;
    simdjson::ondemand::value v;
    if (field.key().get(key) != SUCCESS || field.value().get(v) != SUCCESS) break;
    if (key == "ph" || key == "cat" || key == "name" || key == "pid" || key == "tid") {
      simdjson::ondemand::json_type type;
      int64_t i = 0;
      if (v.type().get(type) != SUCCESS) break;
      if (type == simdjson::ondemand::json_type::string)
        seen += v.raw_json_token().size();  // the string as written, quotes included
      else if (v.get_int64().get(i) == SUCCESS)
        seen += static_cast<uint64_t>(i);
    } else if (key == "ts" || key == "dur") {
      double d = 0;
      if (v.get_double().get(d) == SUCCESS) seen += static_cast<uint64_t>(d);
    } else if (key == "args") {
      simdjson::ondemand::object args;
      if (v.get_object().get(args) != SUCCESS) continue;
      for (auto arg : args) {
        simdjson::ondemand::raw_json_string k;
        if (arg.key().get(k) != SUCCESS) break;
        if (k == "External id" || k == "correlation" || k == "device" || k == "stream" ||
            k == "bytes") {
          int64_t i = 0;
          if (arg.value().get_int64().get(i) == SUCCESS) seen += static_cast<uint64_t>(i);
        }
      }
    }
  }
  return seen;
}

void BM_SimdjsonReadsTheFields(benchmark::State& state) {
  const char* path = std::getenv("COMMDX_FLOOR_NDJSON");
  if (path == nullptr) {
    state.SkipWithError("set COMMDX_FLOOR_NDJSON to an NDJSON file of trace events");
    return;
  }
  simdjson::padded_string json;
  if (simdjson::padded_string::load(path).get(json) != simdjson::SUCCESS) {
    state.SkipWithError("cannot read COMMDX_FLOOR_NDJSON");
    return;
  }
  uint64_t events = 0;
  for (auto _ : state) {
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document_stream docs;
    if (parser.iterate_many(json, 1u << 20).get(docs) != simdjson::SUCCESS) {
      state.SkipWithError("simdjson could not start on the file");
      return;
    }
    uint64_t seen = 0;
    events = 0;
    for (auto doc : docs) {
      simdjson::ondemand::object obj;
      if (doc.get_object().get(obj) != simdjson::SUCCESS) {
        state.SkipWithError("a line is not a JSON object");
        return;
      }
      seen += ReadEvent(obj);
      ++events;
    }
    benchmark::DoNotOptimize(seen);
  }
  state.counters["events_per_s"] = benchmark::Counter(
      static_cast<double>(events), benchmark::Counter::kIsIterationInvariantRate);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * json.size()));
  // The kernel compiled into this program (simdjson::builtin_implementation() would name the
  // shared library's own, a different thing).
  state.SetLabel(FLOOR_STRINGIFY(SIMDJSON_BUILTIN_IMPLEMENTATION));
}
BENCHMARK(BM_SimdjsonReadsTheFields)->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
