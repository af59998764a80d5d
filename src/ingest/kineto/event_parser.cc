#include "ingest/kineto/event_parser.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstring>

#include "base/text.h"
#include "ingest/kineto/header.h"
#include "ingest/kineto/json_util.h"

namespace commdx::ingest::kineto {

namespace od = simdjson::ondemand;

namespace {

EventCat CatOf(std::string_view c) {
  switch (c.size()) {
    case 6:
      if (c == "kernel" || c == "Kernel") return EventCat::kKernel;
      if (c == "cpu_op") return EventCat::kCpuOp;
      if (c == "Memcpy") return EventCat::kMemcpy;
      if (c == "Memset") return EventCat::kMemset;
      break;
    case 4:
      if (c == "ac2g") return EventCat::kFlow;
      break;
    case 7:
      if (c == "Runtime") return EventCat::kRuntime;
      if (c == "fwdbwd") return EventCat::kFlow;
      break;
    case 8:
      if (c == "Operator") return EventCat::kCpuOp;
      if (c == "overhead") return EventCat::kIgnored;
      break;
    case 9:
      if (c == "cuda_sync") return EventCat::kCudaSync;
      break;
    case 10:
      if (c == "gpu_memcpy") return EventCat::kMemcpy;
      if (c == "gpu_memset") return EventCat::kMemset;
      break;
    case 11:
      if (c == "cuda_driver") return EventCat::kDriver;
      break;
    case 12:
      if (c == "cuda_runtime") return EventCat::kRuntime;
      break;
    case 15:
      if (c == "user_annotation") return EventCat::kUserAnnotation;
      if (c == "python_function") return EventCat::kPythonFunction;
      break;
    case 16:
      if (c == "async_cpu_to_gpu") return EventCat::kFlow;
      break;
    case 19:
      if (c == "gpu_user_annotation") return EventCat::kGpuUserAnnotation;
      break;
    default:
      break;
  }
  if (c.empty()) return EventCat::kNone;
  if (EndsWith(c, "_runtime")) return EventCat::kRuntime;  // hip_, privateuse1_, mtia_, xpu_
  if (EndsWith(c, "_driver")) return EventCat::kDriver;
  if (c == "Trace" || c == "cpu_instant_event" || c == "cuda_profiler_range" ||
      c == "python_function" || c == "Python" || c == "gpu_instant_event" ||
      c == "kineto" || c == "memory" || c == "Overhead" || c == "cuda_sync_event" ||
      c == "mtia_ccp_events" || c == "cpu_instant")
    return EventCat::kIgnored;
  return EventCat::kUnknown;
}

}  // namespace

bool ParseMicrosToNs(std::string_view tok, int64_t& ns) {
  // Times past about the year 2262 do not fit int64 ns: such an event is bad, not wrapped around.
  constexpr int64_t kMaxMicros = 9'200'000'000'000'000;
  if (tok.size() >= 2 && tok.front() == '"') tok = tok.substr(1, tok.size() - 2);
  const char* p = tok.data();
  const char* e = p + tok.size();
  bool neg = p < e && *p == '-';
  if (neg) ++p;
  const char* digits = p;
  int64_t whole = 0;
  while (p < e && IsDigit(*p) && p - digits < 17) whole = whole * 10 + (*p++ - '0');
  if (p == digits) return false;
  int64_t frac = 0;
  int frac_digits = 0;
  bool round_up = false;
  if (p < e && *p == '.') {
    ++p;
    for (; p < e && IsDigit(*p); ++p) {
      if (frac_digits < 3) {
        frac = frac * 10 + (*p - '0');
        ++frac_digits;
      } else if (frac_digits == 3) {
        round_up = *p >= '5';
        ++frac_digits;
      }
    }
  }
  if (p < e && (*p == 'e' || *p == 'E' || IsDigit(*p))) {
    double d = 0;
    auto [q, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), d);
    bool in_range = std::fabs(d) < static_cast<double>(kMaxMicros);  // false for NaN too
    if (ec != std::errc() || q != tok.data() + tok.size() || !in_range) return false;
    ns = std::llround(d * 1000.0);
    return true;
  }
  if (p != e || whole >= kMaxMicros) return false;
  for (int i = std::min(frac_digits, 3); i < 3; ++i) frac *= 10;
  ns = whole * 1000 + frac + (round_up ? 1 : 0);
  if (neg) ns = -ns;
  return true;
}

struct EventParser::Impl {
  std::string file;
  od::parser parser;
  std::string scratch_ranks, scratch_in, scratch_out;
  const char* end_ = nullptr;  // end of the part being parsed (tokens are clamped to it)
  CollArgs coll_;              // the collective args of the event being read, if it has any

  CollArgs& Coll(RawEvent& ev) {
    if (!ev.coll) {
      coll_ = CollArgs{};
      ev.coll = &coll_;
    }
    return coll_;
  }

  Error Fail(simdjson::error_code err, uint64_t offset, std::string_view where) const {
    SourceLoc loc{file};
    loc.offset = offset;
    loc.has_offset = true;
    return MakeError(ErrorCode::kBadInput,
                     std::string("invalid JSON in ") + std::string(where) + ": " +
                         simdjson::error_message(err),
                     loc);
  }

  // How much of "args" an event needs, so the rest is skipped by simdjson (it skips a value by
  // counting brackets, cheaper than visiting its fields):
  enum class Need {
    kAll,         // comm kernels, record_param_comms, metadata, anything not recognised
    kExternalId,  // CPU ops and annotations: External id (Kineto writes it first)
    kLaunchIds,   // compute kernels: External id, device, stream, correlation (Kineto: first)
    kCopyBytes,   // copies and sets: those and "bytes"
  };

  static Need NeedOf(const RawEvent& ev) {
    if (ev.name.empty()) return Need::kAll;  // name after args: cannot tell
    switch (ev.cat) {
      case EventCat::kCpuOp:
      case EventCat::kUserAnnotation:
        return ev.name == "record_param_comms" ? Need::kAll : Need::kExternalId;
      case EventCat::kKernel:
        return ev.name.substr(0, 4) == "nccl" || ev.name.substr(0, 4) == "rccl" ? Need::kAll
                                                                              : Need::kLaunchIds;
      case EventCat::kMemcpy:
      case EventCat::kMemset:
        return Need::kCopyBytes;
      default:
        return Need::kAll;
    }
  }

  static bool Done(const RawEvent& ev, Need need) {
    switch (need) {
      case Need::kAll:
        return false;
      case Need::kExternalId:
        return ev.external_id >= 0;
      case Need::kLaunchIds:
        return ev.external_id >= 0 && ev.device >= 0 && ev.stream >= 0 && ev.correlation >= 0;
      case Need::kCopyBytes:
        return ev.correlation >= 0 && ev.stream >= 0 && ev.bytes >= 0;
    }
    return false;
  }

  simdjson::error_code Args(od::object args, RawEvent& ev, Need need) {
    for (auto f : args) {
      if (Done(ev, need)) return simdjson::SUCCESS;
      od::field field;
      if (auto err = std::move(f).get(field)) return err;
      const char* k = field.key().raw();
      od::value v = field.value();
      switch (k[0]) {
        case 'E':
          if (KeyIs(k, "External id")) ev.external_id = Int(v, end_);
          break;
        case 'd':
          if (KeyIs(k, "device")) ev.device = Int(v, end_);
          else if (KeyIs(k, "dtype")) Coll(ev).dtype = Str(v, end_);
          break;
        case 's':
          if (KeyIs(k, "stream")) ev.stream = Int(v, end_);
          break;
        case 'c':
          if (KeyIs(k, "correlation")) ev.correlation = Int(v, end_);
          break;
        case 'g':
          if (KeyIs(k, "grid")) {
            od::array arr;
            if (!v.get_array().get(arr))
              for (auto el : arr) {
                od::value x;
                if (!std::move(el).get(x)) ev.grid_x = Int(x, end_, 0);
                break;
              }
          }
          break;
        case 'b':
          if (KeyIs(k, "bytes")) ev.bytes = Int(v, end_);
          break;
        case 'n':
          if (KeyIs(k, "name")) ev.meta_name = RawStr(v, end_);
          break;
        case 'C':
          if (KeyIs(k, "Collective name")) Coll(ev).coll_name = Str(v, end_), Coll(ev).present = true;
          break;
        case 'I':
          if (KeyIs(k, "In msg nelems")) Coll(ev).in_nelems = Int(v, end_);
          else if (KeyIs(k, "In split size")) Coll(ev).in_split = ListText(v, end_, scratch_in);
          break;
        case 'O':
          if (KeyIs(k, "Out msg nelems")) Coll(ev).out_nelems = Int(v, end_);
          else if (KeyIs(k, "Out split size")) Coll(ev).out_split = ListText(v, end_, scratch_out);
          break;
        case 'G':
          if (KeyIs(k, "Group size")) Coll(ev).group_size = Int(v, end_);
          break;
        case 'P':
          if (KeyIs(k, "Process Group Name")) Coll(ev).pg_name = Str(v, end_);
          else if (KeyIs(k, "Process Group Description")) Coll(ev).pg_desc = Str(v, end_);
          else if (KeyIs(k, "Process Group Ranks")) Coll(ev).pg_ranks = ListText(v, end_, scratch_ranks);
          break;
        case 'S':
          if (KeyIs(k, "Seq")) Coll(ev).seq = Int(v, end_);
          else if (KeyIs(k, "Src Rank")) Coll(ev).src_rank = Int(v, end_);
          break;
        case 'D':
          if (KeyIs(k, "Dst Rank")) Coll(ev).dst_rank = Int(v, end_);
          break;
        default:
          break;
      }
    }
    return simdjson::SUCCESS;
  }

  // Fields of one event, in any order. `want_flows`: flow events ("s"/"f") are read only while
  // some GPU op or launch lacks its correlation in the args (older traces); otherwise they are
  // skipped right after "ph", which Kineto writes first.
  simdjson::error_code Event(od::object obj, RawEvent& ev, bool want_flows) {
    for (auto f : obj) {
      od::field field;
      if (auto err = std::move(f).get(field)) return err;
      const char* k = field.key().raw();
      od::value v = field.value();
      switch (k[0]) {
        case 'p':
          if (KeyIs(k, "ph")) {
            std::string_view ph = RawStr(v, end_);
            ev.ph = ph.size() == 1 ? ph[0] : '?';
            if (!want_flows && (ev.ph == 's' || ev.ph == 'f')) return simdjson::SUCCESS;
          } else if (KeyIs(k, "pid")) {
            ev.pid = RawStr(v, end_);
          }
          break;
        case 'c':
          if (KeyIs(k, "cat")) {
            ev.cat_text = RawStr(v, end_);
            ev.cat = CatOf(ev.cat_text);
          }
          break;
        case 'n':
          if (KeyIs(k, "name")) ev.name = RawStr(v, end_);  // escaped: the interner unescapes
          break;
        case 't':
          if (KeyIs(k, "ts")) {
            ev.has_ts = true;
            ev.bad_ts = !ParseMicrosToNs(Token(v, end_), ev.ts_ns);
          } else if (KeyIs(k, "tid")) {
            ev.tid = RawStr(v, end_);
          }
          break;
        case 'd':
          if (KeyIs(k, "dur")) {
            ev.has_dur = true;
            ev.bad_dur = !ParseMicrosToNs(Token(v, end_), ev.dur_ns);
          }
          break;
        case 'a':
          if (KeyIs(k, "args")) {
            od::json_type type;
            if (auto err = v.type().get(type)) return err;
            if (type != od::json_type::object) break;  // not used; skipped with the event
            od::object args;
            if (auto err = v.get_object().get(args)) return err;
            if (auto err = Args(args, ev, NeedOf(ev))) return err;
          }
          break;
        case 'i':
          if (KeyIs(k, "id")) ev.flow_id = Int(v, end_);
          break;
        default:
          break;
      }
    }
    return simdjson::SUCCESS;
  }
};

EventParser::EventParser(std::string file, RankBuilder& builder)
    : impl_(std::make_unique<Impl>()), builder_(builder) {
  impl_->file = std::move(file);
}

EventParser::~EventParser() = default;

Status EventParser::EventPart(const char* json, size_t len, size_t capacity, uint64_t offset) {
  Impl& m = *impl_;
  const char* origin = json + 1;  // file offset `offset`
  auto at = [&](const char* p) { return offset + static_cast<uint64_t>(p - origin); };
  m.end_ = json + len;
  od::document doc;
  if (auto err = m.parser.iterate(json, len, capacity).get(doc)) return m.Fail(err, offset, "traceEvents");
  od::array arr;
  if (auto err = doc.get_array().get(arr)) return m.Fail(err, offset, "traceEvents");
  for (auto el : arr) {
    od::value v;
    if (auto err = std::move(el).get(v)) {
      const char* p = nullptr;
      return m.Fail(err, doc.current_location().get(p) ? offset : at(p), "traceEvents");
    }
    RawEvent ev;
    std::string_view first = Token(v, m.end_);
    ev.offset = first.data() ? at(first.data()) : offset;
    od::json_type type;
    if (auto err = v.type().get(type)) return m.Fail(err, ev.offset, "traceEvents");
    if (type != od::json_type::object) {
      builder_.quality().Add("kineto.not_an_event", DiagSeverity::kWarning,
                             "traceEvents items that are not JSON objects were skipped",
                             SourceLoc{m.file, 0, 0, ev.offset, true});
      continue;
    }
    od::object obj;
    if (auto err = v.get_object().get(obj)) return m.Fail(err, ev.offset, "traceEvents");
    if (auto err = m.Event(obj, ev, builder_.wants_flows())) {
      const char* p = nullptr;
      return m.Fail(err, doc.current_location().get(p) ? ev.offset : at(p), "a trace event");
    }
    builder_.Add(ev);
  }
  // A part closed early (a cut inside an event) leaves tokens after its array.
  const char* rest = nullptr;
  if (doc.current_location().get(rest) != simdjson::OUT_OF_BOUNDS)
    return m.Fail(simdjson::TRAILING_CONTENT, rest ? at(rest) : offset, "traceEvents");
  return Ok{};
}

Status EventParser::TopLevel(std::string_view key, std::string_view value_json, uint64_t offset) {
  return ParseHeaderValue(impl_->parser, key, value_json, offset, impl_->file, builder_);
}

}  // namespace commdx::ingest::kineto
