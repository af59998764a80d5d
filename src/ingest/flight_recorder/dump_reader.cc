// The dump's layout (FlightRecorderDetail.hpp dump_dict / dump_json):
//   {"version": "2.4", "comm_lib_version": "2.28.9",
//    "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1]"}},
//    "pg_status": {"0": {"last_enqueued_collective": 7, "last_started_collective": 7,
//                        "last_completed_collective": 6}},
//    "entries": [{"record_id": 0, "pg_id": 0, "process_group": ("0", "default_pg"),
//                 "collective_seq_id": 1, "p2p_seq_id": 0, "op_id": 1,
//                 "profiling_name": "nccl:all_reduce", "time_created_ns": ...,
//                 "input_sizes": [[1024]], "input_dtypes": ["Float"], "output_sizes": ...,
//                 "state": "completed", "duration_ms": 0.1, "timeout_ms": 600000,
//                 "is_p2p": False, "retired": True,
//                 "frames": [{"name": "all_reduce", "filename": "...", "line": 2696}]}]}
// In JSON, pg_status values are strings and the process group is a two-element array.
#include "ingest/flight_recorder/dump_reader.h"

#include "base/text.h"
#include "ingest/flight_recorder/pickle.h"

namespace commdx::ingest {

namespace flight_recorder {

namespace {

std::string StrOr(const PyDoc& doc, uint32_t dict, std::string_view key) {
  auto v = doc.Get(dict, key);
  const std::string* s = v ? doc.Str(*v) : nullptr;
  return s ? *s : std::string();
}

// An int, or a decimal string holding one (the JSON form writes pg_status as strings).
int64_t IntOr(const PyDoc& doc, uint32_t dict, std::string_view key, int64_t fallback) {
  auto v = doc.Get(dict, key);
  if (!v) return fallback;
  if (auto i = doc.Int(*v)) return *i;
  if (const std::string* s = doc.Str(*v))
    if (auto i = ParseInt(*s)) return *i;
  return fallback;
}

std::vector<std::vector<int64_t>> Sizes(const PyDoc& doc, uint32_t dict, std::string_view key) {
  std::vector<std::vector<int64_t>> out;
  auto v = doc.Get(dict, key);
  const auto* outer = v ? doc.Items(*v) : nullptr;
  if (!outer) return out;
  for (uint32_t t : *outer) {
    out.emplace_back();
    if (const auto* dims = doc.Items(t))
      for (uint32_t d : *dims)
        if (auto i = doc.Int(d)) out.back().push_back(*i);
  }
  return out;
}

std::vector<std::string> Strs(const PyDoc& doc, uint32_t dict, std::string_view key) {
  std::vector<std::string> out;
  auto v = doc.Get(dict, key);
  if (const auto* items = v ? doc.Items(*v) : nullptr)
    for (uint32_t t : *items)
      if (const std::string* s = doc.Str(t)) out.push_back(*s);
  return out;
}

std::vector<FrFrame> Frames(const PyDoc& doc, uint32_t entry) {
  std::vector<FrFrame> out;
  auto v = doc.Get(entry, "frames");
  if (const auto* items = v ? doc.Items(*v) : nullptr)
    for (uint32_t f : *items)
      out.push_back({StrOr(doc, f, "name"), StrOr(doc, f, "filename"), IntOr(doc, f, "line", 0)});
  return out;
}

// "[0, 1, 2]" (how PyTorch writes a group's ranks) into numbers.
std::vector<int> RankList(std::string_view text) {
  std::vector<int> out;
  std::string_view s = text;
  while (!s.empty()) {
    while (!s.empty() && !IsDigit(s[0])) s.remove_prefix(1);
    if (auto v = ConsumeInt(s); v && *v >= 0 && *v < (1 << 24)) out.push_back(static_cast<int>(*v));
  }
  return out;
}

bool ReadEntry(const PyDoc& doc, uint32_t e, FrEntry& out) {
  out.record_id = IntOr(doc, e, "record_id", -1);
  out.pg_id = IntOr(doc, e, "pg_id", -1);
  if (auto pg = doc.Get(e, "process_group")) {
    if (const auto* items = doc.Items(*pg); items && items->size() >= 2) {
      if (const std::string* n = doc.Str((*items)[0])) out.pg_name = *n;
      if (const std::string* d = doc.Str((*items)[1])) out.pg_desc = *d;
    }
  }
  if (out.pg_name.empty() && out.pg_id >= 0) out.pg_name = std::to_string(out.pg_id);
  out.collective_seq_id = IntOr(doc, e, "collective_seq_id", -1);
  out.p2p_seq_id = IntOr(doc, e, "p2p_seq_id", -1);
  out.op_id = IntOr(doc, e, "op_id", -1);
  out.profiling_name = StrOr(doc, e, "profiling_name");
  out.input_sizes = Sizes(doc, e, "input_sizes");
  out.input_dtypes = Strs(doc, e, "input_dtypes");
  out.output_sizes = Sizes(doc, e, "output_sizes");
  out.output_dtypes = Strs(doc, e, "output_dtypes");
  out.state = StrOr(doc, e, "state");
  out.time_created_ns = IntOr(doc, e, "time_created_ns", 0);
  if (auto d = doc.Get(e, "duration_ms"))
    if (auto f = doc.Float(*d)) out.duration_ms = *f;
  out.timeout_ms = IntOr(doc, e, "timeout_ms", 0);
  out.is_p2p = IntOr(doc, e, "is_p2p", 0) != 0;
  out.retired = IntOr(doc, e, "retired", 0) != 0;
  out.frames = Frames(doc, e);
  return out.collective_seq_id >= 0 && !out.profiling_name.empty() && !out.pg_name.empty();
}

// The trailing number of the file name: PyTorch writes prefix + rank ("nccl_trace_rank_3").
int RankFromPath(std::string_view path) {
  size_t slash = path.find_last_of('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (size_t dot = name.find('.'); dot != std::string_view::npos) name = name.substr(0, dot);
  size_t end = name.size(), start = end;
  while (start > 0 && IsDigit(name[start - 1])) --start;
  if (start == end || end - start > 7) return -1;
  return static_cast<int>(*ParseInt(name.substr(start, end - start)));
}

}  // namespace

Result<FrDump> ReadDump(const PyDoc& doc, const std::string& path, Diagnostics& quality) {
  uint32_t root = doc.root;
  auto entries = doc.Get(root, "entries");
  if (doc.at(root).kind != PyKind::kDict || (!entries && !doc.Get(root, "pg_config")))
    return MakeError(ErrorCode::kBadInput,
                     "not a Flight Recorder dump (no 'entries' or 'pg_config')", {path});
  FrDump dump;
  dump.file = path;
  dump.rank = RankFromPath(path);
  dump.version = StrOr(doc, root, "version");
  dump.comm_lib_version = StrOr(doc, root, "comm_lib_version");
  if (auto cfg = doc.Get(root, "pg_config"); cfg && doc.at(*cfg).kind == PyKind::kDict) {
    const auto& items = doc.at(*cfg).items;
    for (size_t k = 0; k + 1 < items.size(); k += 2) {
      uint32_t g = items[k + 1];
      FrProcessGroup pg{StrOr(doc, g, "name"), StrOr(doc, g, "desc"), {}};
      if (const std::string* key = doc.Str(items[k]); key && pg.name.empty()) pg.name = *key;
      pg.ranks = RankList(StrOr(doc, g, "ranks"));
      dump.groups.push_back(std::move(pg));
    }
  }
  if (auto st = doc.Get(root, "pg_status"); st && doc.at(*st).kind == PyKind::kDict) {
    const auto& items = doc.at(*st).items;
    for (size_t k = 0; k + 1 < items.size(); k += 2) {
      const std::string* key = doc.Str(items[k]);
      uint32_t s = items[k + 1];
      dump.status.push_back({key ? *key : "", IntOr(doc, s, "last_enqueued_collective", -1),
                             IntOr(doc, s, "last_started_collective", -1),
                             IntOr(doc, s, "last_completed_collective", -1)});
    }
  }
  const auto* list = entries ? doc.Items(*entries) : nullptr;
  if (entries && !list)
    return MakeError(ErrorCode::kBadInput, "Flight Recorder 'entries' is not a list", {path});
  if (list) {
    for (uint32_t e : *list) {
      FrEntry entry;
      if (ReadEntry(doc, e, entry)) {
        dump.entries.push_back(std::move(entry));
      } else {
        quality.Add("flight_recorder.bad_entry", DiagSeverity::kWarning,
                    "Flight Recorder entry without collective_seq_id, profiling_name or "
                    "process group; skipped",
                    {path});
      }
    }
  }
  return dump;
}

}  // namespace flight_recorder

bool SniffFlightRecorder(std::string_view head) {
  if (flight_recorder::LooksLikePickle(head))
    return Contains(head, "pg_config") || Contains(head, "collective_seq_id");
  std::string_view t = TrimLeft(head);
  // nlohmann::json sorts keys: a long "entries" list comes before "pg_config".
  return StartsWith(t, "{") &&
         ((Contains(t, "\"pg_config\"") && Contains(t, "\"pg_status\"")) ||
          (Contains(t, "\"collective_seq_id\"") && Contains(t, "\"profiling_name\"")));
}

Status ParseFlightRecorder(const FileText& file, Job& job) {
  auto doc = flight_recorder::LooksLikePickle(file.data)
                 ? flight_recorder::ReadPickle(file.data, file.path)
                 : flight_recorder::ReadJson(file.data, file.path);
  if (!doc) return std::move(doc).error();
  auto dump = flight_recorder::ReadDump(doc.value(), file.path, job.quality);
  if (!dump) return std::move(dump).error();
  job.flight.push_back(std::move(dump).value());
  return Ok{};
}

}  // namespace commdx::ingest
