#include "ingest/nsys/nsys_names.h"

#include "base/text.h"
#include "ingest/trace_build/rank_builder.h"  // RankFromFileName

namespace commdx::ingest::nsys {

std::string_view RuntimeName(std::string_view name) {
  size_t v = name.rfind("_v");
  if (v == name.npos || v + 2 >= name.size()) return name;
  for (size_t i = v + 2; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return name;
  return name.substr(0, v);
}

std::string_view NvtxName(std::string_view text) {
  // One pass over the commas (millions of ranges): the first that starts a known key cuts.
  for (size_t at = text.find(", "); at != text.npos; at = text.find(", ", at + 2)) {
    std::string_view rest = text.substr(at + 2);
    for (std::string_view key : {"seq = ", "op_id = ", "sizes = ", "input_op_ids = "})
      if (StartsWith(rest, key)) return text.substr(0, at);
  }
  return text;
}

namespace {

const char* MemKindName(int64_t k) {
  switch (k) {
    case 0:
      return "Pageable";
    case 1:
      return "Pinned";
    case 2:
      return "Device";
    case 3:
      return "Array";
    case 4:
      return "Managed";
    case 5:
      return "Device Static";
    case 6:
      return "Managed Static";
    default:
      return "Unknown";
  }
}

const char* CopyKindShort(int64_t k) {
  static constexpr const char* kNames[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH",
                                           "AtoA",    "AtoD", "DtoA", "DtoD", "HtoH",
                                           "PtoP",    "HtoD", "DtoH", "DtoD"};
  return k >= 0 && k < 14 ? kNames[k] : "Unknown";
}

}  // namespace

std::string MemcpyName(int64_t copy_kind, int64_t src_kind, int64_t dst_kind) {
  return std::string("Memcpy ") + CopyKindShort(copy_kind) + " (" + MemKindName(src_kind) + " -> " +
         MemKindName(dst_kind) + ")";
}

std::string MemsetName(int64_t mem_kind) {
  return std::string("Memset (") + MemKindName(mem_kind) + ")";
}

const char* SyncName(int64_t sync_type) {
  switch (sync_type) {
    case 1:
      return "Event Sync";
    case 2:
      return "Stream Wait Event";
    case 3:
      return "Stream Sync";
    case 4:
      return "Context Sync";
    default:
      return "Unknown Sync";
  }
}

int RankFromReportName(std::string_view path) {
  std::string_view s = path;
  if (EndsWith(s, ".gz")) s.remove_suffix(3);
  for (std::string_view ext : {".sqlite", ".nsys-rep", ".db"}) {
    if (EndsWith(s, ext)) {
      s.remove_suffix(ext.size());
      break;
    }
  }
  return trace_build::RankFromFileName(std::string(s) + ".json");
}

}  // namespace commdx::ingest::nsys
