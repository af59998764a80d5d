#include "ingest/nsys/nccl_nvtx.h"

#include <cstring>

#include "base/text.h"

namespace commdx::ingest::nsys {

namespace {

// A payload field by its schema entry name (NCCL's strings).
void Assign(NcclPayload& p, std::string_view name, int64_t v, uint64_t u) {
  if (name == "NCCL communicator ID") {
    p.comm = u;
    p.has_comm = true;
  } else if (name == "Message size [bytes]") {
    p.bytes = v;
  } else if (name == "No. of ranks") {
    p.nranks = v;
  } else if (name == "Rank") {
    p.rank = v;
  } else if (name == "Root") {
    p.root = v;
  } else if (name == "Peer rank") {
    p.peer = v;
  } else if (name == "CUDA device") {
    p.device = v;
  } else {
    return;
  }
  p.any = true;
}

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

void SkipBlanks(std::string_view s, size_t& i) {
  while (i < s.size() && IsBlank(s[i])) ++i;
}

// A JSON string at s[i] ('"'), escapes kept as written (NCCL's names have none); i moves past it.
bool ReadString(std::string_view s, size_t& i, std::string_view& out) {
  if (i >= s.size() || s[i] != '"') return false;
  size_t start = ++i;
  while (i < s.size() && s[i] != '"') i += s[i] == '\\' ? 2 : 1;
  if (i >= s.size()) return false;
  out = s.substr(start, i - start);
  ++i;
  return true;
}

// A number, true, false or null; integers are assigned to `key`'s field, other values ignored.
// False for anything that is not a JSON scalar (an object, a list, a broken text).
bool ReadScalar(std::string_view num, std::string_view key, NcclPayload& p) {
  if (num == "true" || num == "false" || num == "null") return true;
  bool neg = !num.empty() && num[0] == '-';
  std::string_view digits = neg ? num.substr(1) : num;
  if (digits.empty()) return false;
  for (char c : digits)
    if (!IsDigit(c) && c != '+' && c != '-' && c != '.' && c != 'e' && c != 'E') return false;
  if (digits.find_first_not_of("0123456789") != std::string_view::npos) return true;  // a real
  if (digits.size() > 20) return false;
  uint64_t u = 0;
  for (char c : digits) {
    uint64_t next = u * 10 + static_cast<uint64_t>(c - '0');
    if (next / 10 != u) return false;  // past 2^64
    u = next;
  }
  Assign(p, key, static_cast<int64_t>(neg ? 0 - u : u), u);  // modular: no overflow
  return true;
}

}  // namespace

bool ParseNcclPayloadJson(std::string_view s, NcclPayload& out) {
  // A flat object of numbers and strings is all nsys writes for NCCL's schemas; anything else
  // (nested values, a broken text) is refused whole rather than half read.
  size_t i = 0;
  SkipBlanks(s, i);
  if (i >= s.size() || s[i] != '{') return false;
  ++i;
  NcclPayload p;
  SkipBlanks(s, i);
  if (i < s.size() && s[i] == '}') return true;
  while (true) {
    SkipBlanks(s, i);
    std::string_view key;
    if (!ReadString(s, i, key)) return false;
    SkipBlanks(s, i);
    if (i >= s.size() || s[i] != ':') return false;
    ++i;
    SkipBlanks(s, i);
    if (i >= s.size()) return false;
    if (s[i] == '"') {
      std::string_view ignored;  // "Reduction operation": "Sum"
      if (!ReadString(s, i, ignored)) return false;
    } else {
      size_t start = i;
      while (i < s.size() && s[i] != ',' && s[i] != '}' && !IsBlank(s[i])) ++i;
      if (!ReadScalar(s.substr(start, i - start), key, p)) return false;
    }
    SkipBlanks(s, i);
    if (i >= s.size()) return false;
    if (s[i] == '}') break;
    if (s[i] != ',') return false;
    ++i;
  }
  out = p;
  return true;
}

NcclCallName ClassifyNcclCall(std::string_view api) {
  // The names PyTorch's profiler writes in "Collective name" (CollectiveFromArgName reads them).
  static constexpr struct {
    std::string_view api, coll;
  } kCollectives[] = {
      {"ncclAllReduce", "allreduce"},
      {"ncclAllGather", "allgather"},
      {"ncclReduceScatter", "reduce_scatter"},
      {"ncclBroadcast", "broadcast"},
      {"ncclBcast", "broadcast"},
      {"ncclReduce", "reduce"},
      {"ncclSend", "send"},
      {"ncclRecv", "recv"},
      {"ncclAlltoAll", "all_to_all"},
      {"ncclGather", "gather"},
      {"ncclScatter", "scatter"},
  };
  for (const auto& c : kCollectives)
    if (api == c.api) return {NcclCallKind::kCollective, c.coll};
  if (StartsWith(api, "ncclCommInitRank") || api == "ncclCommSplit" || api == "ncclCommShrink")
    return {NcclCallKind::kCommInit, {}};
  return {};
}

Status PayloadSchemas::Load(const Database& db, const std::set<std::string, std::less<>>& tables) {
  if (tables.count("NVTX_PAYLOAD_ENUMS"))
    COMMDX_TRY(db.EachRow("SELECT schemaId, size FROM NVTX_PAYLOAD_ENUMS", [&](const Rows& r) {
      if (r.Int(1) > 0 && r.Int(1) <= 8) enum_sizes_[r.Int(0)] = static_cast<int>(r.Int(1));
    }));
  if (!tables.count("NVTX_PAYLOAD_SCHEMA_ENTRIES")) return Ok{};
  // Entries in order; an entry without an offset follows the one before it at its natural
  // alignment (the C struct layout NVTX assumes when a schema gives no offsets).
  return db.EachRow(
      "SELECT schemaId, idx, type, name, offset FROM NVTX_PAYLOAD_SCHEMA_ENTRIES "
      "ORDER BY schemaId, idx",
      [&](const Rows& r) {
        auto& list = entries_[r.Int(0)];
        Entry e;
        e.type = r.Int(2);
        e.name = std::string(r.Text(3));
        if (!r.Null(4) && r.Int(4) >= 0) {
          e.offset = static_cast<uint64_t>(r.Int(4));
        } else if (!list.empty()) {
          const Entry& prev = list.back();
          uint64_t end = prev.offset + static_cast<uint64_t>(Size(prev.type));
          uint64_t align = static_cast<uint64_t>(std::max(1, Size(e.type)));
          e.offset = (end + align - 1) / align * align;
        }
        list.push_back(std::move(e));
      });
}

int PayloadSchemas::Size(int64_t type) const {
  switch (type) {
    case 1:
    case 2:
    case 11:
    case 12:
    case 25:
    case 32:  // char, uchar, (u)int8, char8, byte
      return 1;
    case 3:
    case 4:
    case 13:
    case 14:
    case 26:  // short, ushort, (u)int16, char16
      return 2;
    case 5:
    case 6:
    case 15:
    case 16:
    case 19:
    case 24:
    case 27:  // int, uint, (u)int32, float
      return 4;
    case 7:
    case 8:
    case 9:
    case 10:
    case 17:
    case 18:
    case 20:
    case 22:
    case 23:
      return 8;  // long (LP64), long long, (u)int64, double, size_t, address
    default:
      if (auto it = enum_sizes_.find(type); it != enum_sizes_.end()) return it->second;
      return 0;
  }
}

bool PayloadSchemas::Decode(std::string_view blob, NcclPayload& out) const {
  auto u64 = [&blob](size_t at, uint64_t& v) {
    if (at > blob.size() || blob.size() - at < 8) return false;
    std::memcpy(&v, blob.data() + at, 8);
    return true;
  };
  uint64_t count = 0;
  if (!u64(0, count) || count > 64) return false;
  NcclPayload p;
  for (uint64_t k = 0; k < count; ++k) {
    uint64_t schema = 0, size = 0, offset = 0;
    size_t head = 8 + static_cast<size_t>(k) * 24;
    if (!u64(head, schema) || !u64(head + 8, size) || !u64(head + 16, offset)) return false;
    if (offset > blob.size() || size > blob.size() - offset) return false;
    auto it = entries_.find(static_cast<int64_t>(schema));
    if (it == entries_.end()) continue;
    std::string_view data = blob.substr(static_cast<size_t>(offset), static_cast<size_t>(size));
    for (const Entry& e : it->second) {
      int n = Size(e.type);
      if (n == 0 || e.offset > data.size() || data.size() - e.offset < static_cast<size_t>(n))
        continue;
      uint64_t u = 0;
      std::memcpy(&u, data.data() + e.offset, static_cast<size_t>(n));  // little-endian host
      int64_t v = static_cast<int64_t>(u);
      bool is_signed = e.type == 1 || e.type == 3 || e.type == 5 || e.type == 7 || e.type == 9 ||
                       e.type == 11 || e.type == 13 || e.type == 15 || e.type == 17;
      if (is_signed && n < 8 && (u >> (8 * n - 1)) & 1)
        v = static_cast<int64_t>(u | (~0ull << (8 * n)));
      Assign(p, e.name, v, u);
    }
  }
  out = p;
  return true;
}

}  // namespace commdx::ingest::nsys
