#include "ingest/summary/summarize.h"

#include <simdjson.h>
#include <zlib.h>

#include <algorithm>

#include "base/json_writer.h"
#include "ingest/load_inputs.h"
#include "ingest/registry.h"
#include "ingest/summary/base64.h"
#include "ingest/summary/summary_format.h"

namespace commdx::ingest::summary {

namespace {

bool Carried(const Importer& imp) { return imp.in_parts && imp.kind != InputKind::kSummary; }

bool IsTrace(const InputFile& in) {
  return std::find_if(in.kinds.begin(), in.kinds.end(), [](InputKind k) {
           return k == InputKind::kKineto || k == InputKind::kNsys;
         }) != in.kinds.end();
}

void Kinds(const std::vector<InputKind>& kinds, JsonWriter& w) {
  w.Key("kinds").BeginArray();
  for (InputKind k : kinds) w.String(InputKindName(k));
  w.EndArray();
}

// A skipped file that diagnose reads, only not from a summary.
const Importer* LeftOutFormat(const std::string& path) {
  auto head = ReadHead(path, 64 * 1024);
  if (!head) return nullptr;
  for (const auto& imp : Importers())
    if (!Carried(imp) && imp.sniff(*head)) return &imp;
  return nullptr;
}

void Quality(const Diagnostics& quality, JsonWriter& w) {
  w.Key("quality").BeginArray();
  for (const auto& e : quality.entries()) {
    w.BeginObject();
    w.Key("id").String(e.id);
    w.Key("severity").String(DiagSeverityName(e.severity));
    w.Key("message").String(e.message);
    w.Key("file").String(e.first.file);
    w.Key("line").Uint(e.first.line);
    w.Key("col").Uint(e.first.col);
    w.Key("offset").Int(e.first.has_offset ? static_cast<int64_t>(e.first.offset) : -1);
    w.Key("count").Uint(e.count);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

Result<Summary> Summarize(const std::vector<std::string>& paths, const SummarizeOptions& options) {
  LoadOptions load;
  for (const auto& imp : Importers())
    if (!Carried(imp)) load.skip.push_back(imp.kind);
  load.threads = options.threads;
  load.finish = false;
  load.rank_built = options.rank_built;
  COMMDX_ASSIGN_OR_RETURN(Job job, LoadInputs(paths, load));
  Summary out;
  std::vector<SkippedInput> skipped;
  for (auto& s : job.skipped) {
    if (const Importer* imp = LeftOutFormat(s.path))
      out.left_out.push_back({s.path, std::string("read as ") + imp->name() +
                                          ": a summary does not carry it, read it raw"});
    else
      skipped.push_back(s);
  }
  if (job.inputs.empty())
    return MakeError(ErrorCode::kBadInput,
                     "nothing a summary carries (traces, NCCL logs, job logs, Flight Recorder "
                     "dumps, nccl-tests output) among the inputs",
                     {paths.empty() ? std::string() : paths.front()});
  JsonWriter w(0);
  w.BeginObject();
  w.Key("commdx_summary").BeginObject();
  w.Key("format").String(kFormat);
  w.Key("version").Int(kVersion);
  w.Key("made_by").String("commdx summarize");
  w.Key("tool_version").String(options.tool_version);
  w.EndObject();
  w.Key("inputs").BeginArray();
  for (const auto& in : job.inputs) {
    w.BeginObject();
    w.Key("path").String(in.path);
    Kinds(in.kinds, w);
    w.Key("bytes").Uint(in.bytes);
    w.EndObject();
    out.read_bytes += in.bytes;
    if (IsTrace(in)) out.trace_bytes += in.bytes;
  }
  w.EndArray();
  w.Key("skipped").BeginArray();
  for (const auto& s : skipped) {
    w.BeginObject();
    w.Key("path").String(s.path);
    w.Key("reason").String(s.reason);
    w.EndObject();
  }
  w.EndArray();
  // Text inputs are read again here (a few MB at most; the loader drops its copy once parsed).
  w.Key("texts").BeginArray();
  for (const auto& in : job.inputs) {
    if (IsTrace(in)) continue;
    COMMDX_ASSIGN_OR_RETURN(FileText text, ReadFile(in.path));
    if (text.data.size() != in.bytes)  // a pipe is read once; a log may still be written
      return MakeError(ErrorCode::kBadInput,
                       "changed while it was summarised (or a pipe, which is read once): "
                       "summarise files that are complete",
                       {in.path});
    w.BeginObject();
    w.Key("path").String(in.path);
    Kinds(in.kinds, w);
    // JSON strings hold UTF-8 text; anything else (a pickle) goes as base64.
    if (simdjson::validate_utf8(text.data.data(), text.data.size()))
      w.Key("text").String(text.data);
    else
      w.Key("base64").String(Base64Encode(text.data));
    w.EndObject();
    ++out.texts;
  }
  w.EndArray();
  w.Key("traces").BeginArray();
  for (const auto& t : job.trace.ranks) {
    COMMDX_TRY(WriteTrace(t, w));
    out.ranks.push_back(t.rank);
    ++out.traces;
  }
  w.EndArray();
  Quality(job.quality, w);
  w.EndObject();
  out.json = w.str();
  out.json += '\n';
  return out;
}

std::string Gzip(std::string_view data) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);  // 16: gzip header
  std::string out;
  char buf[1 << 16];
  size_t at = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    size_t in = std::min<size_t>(data.size() - at, 1u << 30);  // avail_in is 32 bits
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + at));
    z.avail_in = static_cast<uInt>(in);
    const bool last = at + in == data.size();
    do {
      z.next_out = reinterpret_cast<Bytef*>(buf);
      z.avail_out = sizeof buf;
      rc = deflate(&z, last ? Z_FINISH : Z_NO_FLUSH);
      out.append(buf, sizeof buf - z.avail_out);
    } while (z.avail_out == 0);
    at += in - z.avail_in;
    if (!last && rc != Z_OK) break;  // only on a bug: deflate takes what it is given
  }
  deflateEnd(&z);
  return out;
}

}  // namespace commdx::ingest::summary
