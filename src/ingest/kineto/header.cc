#include "ingest/kineto/header.h"

#include <cmath>
#include <cstdint>

#include "ingest/kineto/json/json_util.h"

namespace commdx::ingest::kineto {

using trace_build::PgConfig;
using trace_build::RankBuilder;

namespace {

// {"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150109880320, "computeMajor": 9,
//  "computeMinor": 0, "numSms": 132, ...}
simdjson::error_code Device(od::object obj, const char* end, DeviceInfo& d) {
  for (auto f : obj) {
    od::field field;
    if (auto err = std::move(f).get(field)) return err;
    const char* k = field.key().raw();
    od::value v = field.value();
    if (KeyIs(k, "id"))
      d.id = static_cast<int>(Int(v, end));
    else if (KeyIs(k, "name"))
      d.name = SanitizeUtf8(Str(v, end));
    else if (KeyIs(k, "totalGlobalMem"))
      d.total_memory_bytes = Int(v, end, 0);
    else if (KeyIs(k, "computeMajor"))
      d.compute_major = static_cast<int>(Int(v, end, 0));
    else if (KeyIs(k, "computeMinor"))
      d.compute_minor = static_cast<int>(Int(v, end, 0));
    else if (KeyIs(k, "numSms") || KeyIs(k, "multiProcessorCount"))
      d.sm_count = static_cast<int>(Int(v, end, 0));
  }
  return simdjson::SUCCESS;
}

// {"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": 2,
//  "ranks": [0, 1]}   (older PyTorch: "ranks": "[0, 1]")
simdjson::error_code PgEntry(od::object obj, const char* end, std::string_view name_from_key,
                             PgConfig& pg) {
  pg.name = std::string(name_from_key);
  std::string scratch;
  for (auto f : obj) {
    od::field field;
    if (auto err = std::move(f).get(field)) return err;
    const char* k = field.key().raw();
    od::value v = field.value();
    if (KeyIs(k, "pg_name")) {
      pg.name = std::string(Str(v, end));
    } else if (KeyIs(k, "pg_desc")) {
      pg.desc = std::string(Str(v, end));
    } else if (KeyIs(k, "pg_size")) {
      pg.size = static_cast<int>(Int(v, end, 0));
    } else if (KeyIs(k, "ranks")) {
      std::string_view list = ListText(v, end, scratch);
      for (std::string_view part : Split(list, ',')) {
        part = Trim(part);
        while (!part.empty() && (part.front() == '[' || IsSpace(part.front())))
          part.remove_prefix(1);
        while (!part.empty() && (part.back() == ']' || IsSpace(part.back()))) part.remove_suffix(1);
        if (auto r = ParseInt(part)) pg.ranks.push_back(static_cast<int>(*r));
      }
    }
  }
  if (pg.size == 0) pg.size = static_cast<int>(pg.ranks.size());
  return simdjson::SUCCESS;
}

simdjson::error_code PgConfigs(od::value v, const char* end, RankBuilder& b) {
  od::json_type type;
  if (auto err = v.type().get(type)) return err;
  if (type == od::json_type::array) {
    od::array arr;
    if (auto err = v.get_array().get(arr)) return err;
    for (auto el : arr) {
      od::object obj;
      if (auto err = el.get_object().get(obj)) return err;
      PgConfig pg;
      if (auto err = PgEntry(obj, end, "", pg)) return err;
      b.AddPgConfig(std::move(pg));
    }
  } else if (type == od::json_type::object) {  // {"0": {...}, "1": {...}}
    od::object obj;
    if (auto err = v.get_object().get(obj)) return err;
    for (auto f : obj) {
      od::field field;
      if (auto err = std::move(f).get(field)) return err;
      std::string_view key;
      if (auto err = field.unescaped_key().get(key)) return err;
      std::string name(key);
      od::object entry;
      if (auto err = field.value().get_object().get(entry)) return err;
      PgConfig pg;
      if (auto err = PgEntry(entry, end, name, pg)) return err;
      b.AddPgConfig(std::move(pg));
    }
  }
  return simdjson::SUCCESS;
}

simdjson::error_code Distributed(od::object obj, const char* end, RankBuilder& b) {
  int rank = -1, world = 0;
  std::string backend, nccl;
  for (auto f : obj) {
    od::field field;
    if (auto err = std::move(f).get(field)) return err;
    const char* k = field.key().raw();
    od::value v = field.value();
    // A rank or world size that is not a number below 2^24 is not one (found by fuzzing: a
    // world size of 2.9e23): the whole distributedInfo is then a bad header, said so, and the
    // rank comes from the file name.
    constexpr int64_t kMaxRanks = int64_t{1} << 24;
    constexpr int64_t kUnread = INT64_MIN;
    if (KeyIs(k, "rank")) {
      int64_t r = Int(v, end, kUnread);
      if (r < -1 || r >= kMaxRanks) return simdjson::NUMBER_OUT_OF_RANGE;
      rank = static_cast<int>(r);
    } else if (KeyIs(k, "world_size")) {
      int64_t w = Int(v, end, kUnread);
      if (w < 0 || w > kMaxRanks) return simdjson::NUMBER_OUT_OF_RANGE;
      world = static_cast<int>(w);
    } else if (KeyIs(k, "backend")) {
      backend = std::string(Str(v, end));
    } else if (KeyIs(k, "nccl_version")) {
      nccl = std::string(Str(v, end));
    } else if (KeyIs(k, "pg_config")) {
      if (auto err = PgConfigs(v, end, b)) return err;
    }
  }
  b.SetDistributed(rank, world, backend, nccl);
  return simdjson::SUCCESS;
}

simdjson::error_code Parse(od::parser& parser, std::string_view key, std::string_view json,
                           RankBuilder& b) {
  const char* end = json.data() + json.size();
  od::document doc;
  if (auto err = parser.iterate(json.data(), json.size(), json.size() + 64).get(doc)) return err;
  if (key == "deviceProperties") {
    od::array arr;
    if (auto err = doc.get_array().get(arr)) return err;
    for (auto el : arr) {
      od::object obj;
      if (auto err = el.get_object().get(obj)) return err;
      DeviceInfo d;
      if (auto err = Device(obj, end, d)) return err;
      b.AddDevice(std::move(d));
    }
  } else if (key == "distributedInfo") {
    od::object obj;
    if (auto err = doc.get_object().get(obj)) return err;
    if (auto err = Distributed(obj, end, b)) return err;
  } else if (key == "baseTimeNanoseconds") {
    int64_t ns = 0;
    if (auto err = doc.get_int64().get(ns)) {
      double d = 0;
      if (doc.get_double().get(d)) return err;
      // Beyond int64 nanoseconds (year 2262) or NaN: not a time (found by fuzzing: 1.8e19).
      if (!(std::fabs(d) < 9.2e18)) return simdjson::NUMBER_OUT_OF_RANGE;
      ns = static_cast<int64_t>(d);
    }
    b.SetBaseTimeNs(ns);
  } else if (key == "schemaVersion") {
    std::string_view tok;
    if (auto err = doc.raw_json_token().get(tok)) return err;
    b.SetSchemaVersion(std::string(Trim(tok)));
  }
  return simdjson::SUCCESS;
}

}  // namespace

Status ParseHeaderValue(od::parser& parser, std::string_view key, std::string_view value_json,
                        uint64_t offset, const std::string& file, RankBuilder& builder) {
  // displayTimeUnit ("ms", "ns") only changes how viewers show time: ts/dur stay µs.
  if (key != "deviceProperties" && key != "distributedInfo" && key != "baseTimeNanoseconds" &&
      key != "schemaVersion")
    return Ok{};
  if (auto err = Parse(parser, key, value_json, builder)) {
    builder.quality().Add("kineto.bad_header", DiagSeverity::kWarning,
                          "top-level \"" + std::string(key) + "\" could not be read (" +
                              simdjson::error_message(err) + "); its facts are missing",
                          SourceLoc{file, 0, 0, offset, true});
  }
  return Ok{};
}

}  // namespace commdx::ingest::kineto
