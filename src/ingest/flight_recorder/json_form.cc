// The JSON form of a Flight Recorder dump into the value tree the pickle form also gives
// (dump_reader.h). Small files: simdjson's DOM, converted with a depth limit.
#include <simdjson.h>

#include "base/str_format.h"
#include "ingest/flight_recorder/dump_reader.h"

namespace commdx::ingest::flight_recorder {

namespace {

constexpr int kMaxDepth = 64;  // a dump nests five deep; anything deeper is not one

bool Convert(simdjson::dom::element el, PyDoc& doc, uint32_t& out, int depth) {
  if (depth > kMaxDepth) return false;
  PyObject o;
  switch (el.type()) {
    case simdjson::dom::element_type::NULL_VALUE:
      break;
    case simdjson::dom::element_type::BOOL:
      o.kind = PyKind::kBool;
      o.i = el.get_bool().value_unsafe() ? 1 : 0;
      break;
    case simdjson::dom::element_type::INT64:
      o.kind = PyKind::kInt;
      o.i = el.get_int64().value_unsafe();
      break;
    case simdjson::dom::element_type::UINT64:
      o.kind = PyKind::kFloat;  // beyond int64: kept as a number, never a sequence id
      o.f = static_cast<double>(el.get_uint64().value_unsafe());
      break;
    case simdjson::dom::element_type::DOUBLE:
      o.kind = PyKind::kFloat;
      o.f = el.get_double().value_unsafe();
      break;
    case simdjson::dom::element_type::STRING:
      o.kind = PyKind::kStr;
      o.s = std::string(el.get_string().value_unsafe());
      break;
    case simdjson::dom::element_type::ARRAY: {
      o.kind = PyKind::kList;
      simdjson::dom::array arr;
      if (el.get(arr) != simdjson::SUCCESS) return false;
      for (simdjson::dom::element child : arr) {
        uint32_t c = 0;
        if (!Convert(child, doc, c, depth + 1)) return false;
        o.items.push_back(c);
      }
      break;
    }
    case simdjson::dom::element_type::OBJECT: {
      o.kind = PyKind::kDict;
      simdjson::dom::object obj;
      if (el.get(obj) != simdjson::SUCCESS) return false;
      for (simdjson::dom::key_value_pair field : obj) {
        PyObject key;
        key.kind = PyKind::kStr;
        key.s = std::string(field.key);
        uint32_t k = doc.Add(std::move(key)), v = 0;
        if (!Convert(field.value, doc, v, depth + 1)) return false;
        o.items.push_back(k);
        o.items.push_back(v);
      }
      break;
    }
  }
  out = doc.Add(std::move(o));
  return true;
}

}  // namespace

Result<PyDoc> ReadJson(std::string_view data, const std::string& path) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  simdjson::padded_string padded(data);
  if (auto err = parser.parse(padded).get(root); err != simdjson::SUCCESS)
    return MakeError(
        ErrorCode::kBadInput,
        std::string("Flight Recorder JSON dump is not valid JSON: ") + simdjson::error_message(err),
        {path});
  PyDoc doc;
  uint32_t top = 0;
  if (!Convert(root, doc, top, 0))
    return MakeError(ErrorCode::kBadInput, "Flight Recorder JSON nests too deep", {path});
  doc.root = top;
  return doc;
}

}  // namespace commdx::ingest::flight_recorder
