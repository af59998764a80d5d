#include "base/json_writer.h"
#include "report/render.h"

namespace commdx::report {

namespace {

void WriteLoc(JsonWriter& w, const SourceLoc& loc) {
  w.BeginObject();
  w.Key("file").String(loc.file);
  if (loc.line) w.Key("line").Uint(loc.line);
  if (loc.col) w.Key("col").Uint(loc.col);
  if (loc.has_offset && !loc.line) w.Key("offset").Uint(loc.offset);
  w.EndObject();
}

void WriteFinding(JsonWriter& w, const Finding& f) {
  w.BeginObject();
  w.Key("id").String(f.id);
  w.Key("severity").String(SeverityName(f.severity));
  w.Key("title").String(f.title);
  w.Key("detail").String(f.detail);
  w.Key("source").String(SourceName(f.source));
  w.Key("method_step").Int(f.method_step);
  w.Key("confidence").Double(f.confidence, 2);
  w.Key("rank");
  if (f.rank)
    w.Int(*f.rank);
  else
    w.Null();
  w.Key("saving_per_step_ns");
  if (f.saving_ns_per_step)
    w.Double(*f.saving_ns_per_step, 0);
  else
    w.Null();
  w.Key("step_ns");
  if (f.step_ns)
    w.Double(*f.step_ns, 0);
  else
    w.Null();
  if (!f.per_rank.empty()) {
    w.Key("per_rank").BeginArray();
    for (const RankShare& r : f.per_rank) {
      w.BeginObject();
      w.Key("rank").Int(r.rank);
      w.Key("saving_per_step_ns").Double(r.saving_ns, 0);
      w.Key("step_ns").Double(r.step_ns, 0);
      w.EndObject();
    }
    w.EndArray();
  }
  w.Key("evidence").BeginObject();
  w.Key("metrics").BeginArray();
  for (const auto& m : f.metrics) {
    w.BeginObject();
    w.Key("name").String(m.name);
    w.Key("value").Double(m.value, 3);
    w.Key("unit").String(UnitName(m.unit));
    w.EndObject();
  }
  w.EndArray();
  w.Key("refs").BeginArray();
  for (const auto& r : f.refs) {
    w.BeginObject();
    w.Key("where");
    WriteLoc(w, r.where);
    w.Key("text").String(r.text);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.Key("fix").String(f.fix);
  w.EndObject();
}

void WriteTable(JsonWriter& w, const Table& t) {
  w.Key(t.key).BeginArray();
  std::vector<JsonKey> keys(t.column_keys.begin(), t.column_keys.end());
  for (const auto& row : t.rows) {
    w.BeginObject();
    for (size_t c = 0; c < row.size() && c < keys.size(); ++c) {
      w.Key(keys[c]);
      if (row[c].number)
        w.Double(*row[c].number, row[c].decimals);
      else
        w.String(row[c].text);
    }
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

std::string RenderJson(const Report& r) {
  JsonWriter w;
  w.BeginObject();
  w.Key("schema_version").Int(kSchemaVersion);
  w.Key("tool").String("commdx");
  w.Key("tool_version").String(r.tool_version);
  w.Key("command").String(r.command);
  w.Key("inputs").BeginArray();
  for (const auto& in : r.inputs) {
    w.BeginObject();
    w.Key("path").String(in.path);
    w.Key("kind").String(InputKindsName(in.kinds));
    w.Key("bytes").Uint(in.bytes);
    if (!in.summarised_from.empty()) {  // a summary: the files it was made from
      w.Key("summarised_from").BeginArray();
      for (const auto& path : in.summarised_from) w.String(path);
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("skipped").BeginArray();
  for (const auto& s : r.skipped) {
    w.BeginObject();
    w.Key("path").String(s.path);
    w.Key("reason").String(s.reason);
    w.EndObject();
  }
  w.EndArray();
  if (r.include_root_cause) {
    w.Key("root_cause");
    if (const auto& rc = r.diagnosis.root_cause) {
      w.BeginObject();
      w.Key("id").String(rc->id);
      w.Key("confidence").Double(rc->confidence, 2);
      w.Key("saving_per_step_ns").Double(rc->saving_ns, 0);
      w.Key("step_ns").Double(rc->step_ns, 0);
      w.Key("single_cause").Bool(rc->single);
      w.Key("largest_savings").BeginArray();
      for (const auto& t : rc->top) {
        w.BeginObject();
        w.Key("id").String(t.id);
        w.Key("rank");
        if (t.rank)
          w.Int(*t.rank);
        else
          w.Null();
        w.Key("saving_per_step_ns").Double(t.saving_ns, 0);
        w.EndObject();
      }
      w.EndArray();
      w.Key("summary").String(rc->summary);
      w.Key("supporting").BeginArray();
      for (const auto& s : rc->supporting) w.String(s);
      w.EndArray();
      w.Key("contradicting").BeginArray();
      for (const auto& s : rc->contradicting) w.String(s);
      w.EndArray();
      w.EndObject();
    } else {
      w.Null();
    }
  }
  w.Key("findings").BeginArray();
  for (const auto& f : r.diagnosis.findings) WriteFinding(w, f);
  w.EndArray();
  w.Key("data").BeginObject();
  for (const auto& t : r.tables) WriteTable(w, t);
  w.EndObject();
  w.Key("input_quality").BeginArray();
  for (const auto& e : r.quality.entries()) {
    w.BeginObject();
    w.Key("id").String(e.id);
    w.Key("severity").String(DiagSeverityName(e.severity));
    w.Key("message").String(e.message);
    w.Key("count").Uint(e.count);
    w.Key("first");
    WriteLoc(w, e.first);
    w.EndObject();
  }
  w.EndArray();
  w.Key("not_checked").BeginArray();
  for (const auto& g : r.diagnosis.not_checked) {
    w.BeginObject();
    w.Key("what").String(g.what);
    w.Key("how").String(g.how);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.str() + "\n";
}

}  // namespace commdx::report
