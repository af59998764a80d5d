// Every input-quality id (base/diagnostics.h), with what it means: one compile-time table, so a
// misspelt id does not build (QualityId's constructor is consteval) and docs/input-quality.md is
// checked against it by a test. An id names what an importer skipped, kept with a caveat or read
// in another way than the format's usual one; its severity and message are given where it is
// raised. A family ("load.partial_") is completed at run time by a name from a closed set (an
// importer's, an NCCL line kind's): QualityId::Family checks the prefix at compile time.
#pragma once

#include <string_view>

namespace commdx {

struct QualityIdEntry {
  std::string_view id;       // "kineto.bad_event"; a family ends in '_'
  std::string_view meaning;  // one line
};

inline constexpr QualityIdEntry kQualityIds[] = {
    // Loading files (ingest/load_inputs.cc)
    {"load.broken_input", "a file that failed to read among others: named, the rest diagnosed"},
    {"load.converted_text", "UTF-16 text (a PowerShell redirect) converted to UTF-8 and read"},
    {"load.growing", "a file still being written: read as it was when opened"},
    {"load.gzip_cut",
     "a gzip file or pipe cut short (the job died while writing it): read up to the cut"},
    {"load.in_windows",
     "a log too large to hold whole: read in windows of whole lines, one held at a time"},
    {"load.in_windows_stopped",
     "a log read in windows that became unreadable (corrupt gzip) part way: read up to there"},
    {"load.not_in_windows",
     "a format in a log too large to hold that is read only from a whole file: not read"},
    {"load.partial_",
     "part of a file looked like a further format (named after the '_') and did "
     "not parse as it; the rest was read"},
    {"load.same_file_twice", "a file with the same text as one read before it: read once"},
    {"load.unreadable", "a folder entry that could not be read (permissions, path too long)"},
    // PyTorch profiler (Kineto) traces
    {"kineto.bad_event", "traceEvents items that are not valid JSON: skipped"},
    {"kineto.bad_header", "a top-level value that could not be read: its facts are missing"},
    {"kineto.duplicate_rank", "two traces claim the same rank"},
    {"kineto.far_out_events", "events far outside the trace's span (a broken clock): left out"},
    {"kineto.last_step_cut",
     "the last step's GPU work is missing (the profiler stopped first): the "
     "step is left out of means"},
    {"kineto.missing_dur", "complete events without a numeric \"dur\": skipped"},
    {"kineto.missing_ranks", "the job has ranks whose traces were not given"},
    {"kineto.missing_ts", "events without a numeric \"ts\": skipped"},
    {"kineto.mixed_jobs", "traces of different jobs or runs read together"},
    {"kineto.negative_dur", "events with a negative duration: skipped"},
    {"kineto.no_category", "complete events without \"cat\": skipped"},
    {"kineto.no_gpu_activity", "a trace with no kernels, copies or sets"},
    {"kineto.no_step_boundaries", "no iteration boundaries: the whole trace is one step"},
    {"kineto.not_an_event", "traceEvents items that are not JSON objects: skipped"},
    {"kineto.other_device_activity",
     "activity of a kind commdx does not model (MTIA, CUPTI "
     "ranges): seen, not analysed"},
    {"kineto.profiling_windows", "earlier profiling windows of the same ranks: set aside"},
    {"kineto.rank_unknown",
     "no distributedInfo and no rank in the file name: ranks numbered in "
     "file order"},
    {"kineto.same_trace_twice", "the same trace (rank, events, times) given twice: read once"},
    {"kineto.several_gpus", "one process ran GPU work on several devices"},
    {"kineto.steps_from_annotation", "steps taken from a repeating annotation, not ProfilerStep"},
    {"kineto.steps_from_collectives", "steps taken from the repeating sequence of collectives"},
    {"kineto.steps_from_optimizer", "steps taken from Optimizer.step to Optimizer.step"},
    {"kineto.time_out_of_range", "events lasting over 3 years or ending past 2262: skipped"},
    {"kineto.trace_cut_short",
     "a trace cut short (the job died while it was written): read up to "
     "the cut"},
    {"kineto.unknown_category", "events of an unknown category: skipped"},
    {"kineto.unknown_phase", "events with an unknown or missing \"ph\": skipped"},
    {"kineto.unread_event", "valid JSON items the event reader could not read: skipped"},
    // Nsight Systems SQLite exports
    {"nsys.driver_calls", "CUDA driver calls that neither launch, wait nor allocate: left out"},
    {"nsys.library_nvtx", "NVTX ranges of library domains (CCCL, cuDNN): left out"},
    {"nsys.nccl_payload_unreadable", "NCCL call payloads in an unknown layout: not read"},
    {"nsys.nccl_payloads_missing", "NCCL calls without a payload: their sizes are unknown"},
    {"nsys.no_kernels", "no kernel table: no GPU kernels were captured"},
    {"nsys.no_runtime", "no runtime table: launches and CPU-side syncs are unknown"},
    {"nsys.no_schema_version", "no export metadata table: the schema version is unknown"},
    {"nsys.process_without_cuda", "processes with NVTX ranges but no CUDA activity: not ranks"},
    {"nsys.schema_version",
     "an export schema newer than commdx was written for: read by column "
     "name"},
    // NCCL logs (NCCL_DEBUG=INFO)
    {"nccl_log.glued_text", "other output glued before an NCCL line: read from its host name on"},
    {"nccl_log.long_line", "a line over 64 KiB: read as is"},
    {"nccl_log.malformed_",
     "an NCCL line of a known kind (named after the '_') whose fields "
     "could not be read: skipped"},
    {"nccl_log.spliced_line",
     "an NCCL line cut off by another process's line: the embedded line "
     "read"},
    {"nccl_log.unknown_line", "an NCCL line of a kind commdx does not know: ignored"},
    // Job logs, Flight Recorder dumps and the analyzer's text
    {"job_log.cut_watchdog_line",
     "a watchdog or teardown line that ends early: read as far as it "
     "goes"},
    {"flight_recorder.bad_entry",
     "a Flight Recorder entry without sequence id, name or group: "
     "skipped"},
    {"fr_analysis.bad_error_msg", "an analyzer 'error msg:' line not in the expected form"},
    {"fr_analysis.bad_headline", "an analyzer headline without a sequence number: entry skipped"},
    {"fr_analysis.bad_rank_set", "an analyzer rank set not like {1, 3}: skipped"},
    // NCCL Inspector JSONL and RAS (ncclras) output
    {"inspector.bad_line",
     "a line that is not one JSON record with header, metadata, coll_perf: skipped"},
    {"inspector.cut_last_line",
     "the last line ends mid-record (the process stopped while writing): skipped"},
    {"inspector.duplicate_record", "the same rank's record of one collective twice: read once"},
    {"inspector.missing_ranks",
     "a communicator with records from fewer ranks than it has: unmatched"},
    {"inspector.other_version", "an inspector_output_format_version other than v4: line skipped"},
    {"inspector.p2p_skipped",
     "a point-to-point (Send/Recv) record of NCCL 2.30's plugin: counted, not read"},
    {"inspector_prom.bad_line",
     "a line that is not a Prometheus sample (name{labels} value): skipped"},
    {"inspector_prom.incomplete",
     "Inspector samples without the labels or execution time of one record: skipped"},
    {"inspector_prom.other_metrics",
     "samples of other metrics (a node exporter page): counted, not read"},
    {"inspector.sn_gaps",
     "coll_sn gaps: the plugin keeps one collective per communicator per dump (2.30: >= 8 KiB)"},
    {"ras.bad_event", "a RAS monitor line or object that is not an event: skipped"},
    {"ras.bad_line", "a RAS report line of no known form inside a section: skipped"},
    {"ras.repaired_json", "NCCL 2.28.9's RAS JSON lacks a comma after nvml_dev: repaired, read"},
    // nccl-tests output, nvidia-smi text, environment dumps, snapshots
    {"nccl_tests.bad_json_result", "a -J result without the expected fields: skipped"},
    {"nccl_tests.bad_row", "a result row that does not match the column header: skipped"},
    {"nccl_tests.cut_header",
     "the output ends inside its device list (a host lists fewer GPUs than another): the file "
     "is cut, so whether the run went on is unknown"},
    {"nccl_tests.leading_column",
     "result rows with one extra integer column before the size (a hand-made table): ignored"},
    {"nccl_tests.no_header",
     "result rows without their column header (an excerpt): columns inferred from the rows"},
    {"nccl_tests.out_of_bounds", "nccl-tests reports out-of-bounds values (wrong results)"},
    {"smi_nvlink.unparsed_line", "an nvidia-smi nvlink line of neither known form: skipped"},
    {"smi_nvlink.cut_list", "an nvidia-smi nvlink list that ends inside a GPU's links: not judged"},
    {"smi_p2p.capability_unknown", "a P2P matrix that does not say its capability: read assumed"},
    {"smi_p2p.unknown_status", "an unknown P2P status: treated as unknown"},
    {"smi_topo.realigned_row",
     "a topology row whose cells ran together or ran into its affinity: read back into columns"},
    {"smi_topo.short_row", "a topology row with fewer cells than columns: missing cells unknown"},
    {"smi_topo.unknown_cell", "an unknown connection in the topology matrix: unknown"},
    {"env_dump.non_string_value", "an environment value that is not a string: skipped"},
    {"snapshot.bad_field", "a snapshot field of the wrong type: left unknown"},
    {"snapshot.newer_schema", "a snapshot schema newer than this commdx: unknown keys ignored"},
    {"snapshot.topology_replaced", "a second machine's topology replaced the first one read"},
};

constexpr const QualityIdEntry* FindQualityId(std::string_view id) {
  for (const auto& e : kQualityIds)
    if (e.id == id) return &e;
  return nullptr;
}

constexpr bool IsQualityId(const char* id) {
  const QualityIdEntry* e = FindQualityId(id);
  return e && e->id.back() != '_';
}
constexpr bool IsQualityFamily(const char* prefix) {
  const QualityIdEntry* e = FindQualityId(prefix);
  return e && e->id.back() == '_';
}

// Clang before 16 miscompiles a call that holds both an immediate (consteval) invocation and a
// temporary with a destructor (the temporary's cleanup frees a wrong address; AddressSanitizer:
// bad-free). There the literal is checked by diagnose_if instead, also when the program is
// compiled.
#if defined(__clang__) && __clang_major__ < 16
#define COMMDX_QUALITY_ID_CHECK(cond, what)                                                  \
  __attribute__((diagnose_if(                                                                \
      !(cond), "unknown input-quality " what ": add it to kQualityIds (base/quality_ids.h)", \
      "error")))
#define COMMDX_QUALITY_CTOR constexpr
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgcc-compat"  // diagnose_if is clang's own, on purpose
#else
#define COMMDX_QUALITY_ID_CHECK(cond, what)
#define COMMDX_QUALITY_CTOR consteval
#endif

// An input-quality id known to the table, from a string literal: checked at compile time.
class QualityId {
 public:
  // Implicit from a literal on purpose.
  COMMDX_QUALITY_CTOR QualityId(const char* id) COMMDX_QUALITY_ID_CHECK(IsQualityId(id), "id")
      : id_(id) {
#if !(defined(__clang__) && __clang_major__ < 16)
    if (!IsQualityId(id))
      throw "unknown input-quality id: add it to kQualityIds (base/quality_ids.h)";
#endif
  }
  std::string_view str() const { return id_; }

 private:
  std::string_view id_;
};

// A family of ids ("load.partial_"), from a literal in the table ending in '_'; its members add a
// name known at run time (Diagnostics::Add).
class QualityFamily {
 public:
  COMMDX_QUALITY_CTOR QualityFamily(const char* prefix)
      COMMDX_QUALITY_ID_CHECK(IsQualityFamily(prefix), "family")
      : prefix_(prefix) {
#if !(defined(__clang__) && __clang_major__ < 16)
    if (!IsQualityFamily(prefix))
      throw "unknown input-quality family: add it to kQualityIds (base/quality_ids.h)";
#endif
  }
  std::string_view prefix() const { return prefix_; }

 private:
  std::string_view prefix_;
};

#if defined(__clang__) && __clang_major__ < 16
#pragma clang diagnostic pop
#endif

}  // namespace commdx
