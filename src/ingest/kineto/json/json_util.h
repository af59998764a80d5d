// Small helpers over simdjson ondemand values for the header parser (the events are read by the
// hand-written scanner, event_scanner.cc): values are read from their raw tokens, so that a
// value of an unexpected type never throws the iterator off (a wrong type is a bad record, not
// a broken file).
#pragma once

#include <simdjson.h>

#include <cstring>
#include <string>
#include <string_view>

#include "base/text.h"
#include "ingest/kineto/json/json_values.h"  // IntFromToken

namespace commdx::ingest::kineto {

namespace od = simdjson::ondemand;

// A key as its raw bytes after the opening quote: compares without unescaping.
template <size_t N>
inline bool KeyIs(const char* k, const char (&lit)[N]) {
  return std::memcmp(k, lit, N - 1) == 0 && k[N - 1] == '"';
}

// `end`: the end of the document being parsed. simdjson measures a token up to the next
// structural character, which a broken document may not have: the view is clamped to `end`.
inline std::string_view Token(od::value& v, const char* end) {
  std::string_view tok = v.raw_json_token();
  if (tok.data() == nullptr || tok.data() >= end) return {};
  if (tok.size() > static_cast<size_t>(end - tok.data())) tok = tok.substr(0, end - tok.data());
  while (!tok.empty() && IsSpace(tok.back())) tok.remove_suffix(1);
  return tok;
}

// A string value's raw content between its quotes, escapes left as written (for names the
// interner unescapes once per distinct name, and for keywords that never hold escapes).
inline std::string_view RawStr(od::value& v, const char* end) {
  std::string_view tok = Token(v, end);
  if (tok.size() >= 2 && tok.front() == '"') return tok.substr(1, tok.size() - 2);
  return tok;
}

// A string value without copying when it has no escapes; numbers come back as their text.
inline std::string_view Str(od::value& v, const char* end) {
  std::string_view tok = Token(v, end);
  if (tok.size() < 2 || tok.front() != '"') return tok;
  std::string_view inner = tok.substr(1, tok.size() - 2);
  if (std::memchr(inner.data(), '\\', inner.size()) == nullptr) return inner;
  std::string_view out;
  if (v.get_string().get(out)) return inner;
  return out;
}

// The event scanner's reading of an integer (IntFromToken): a double past int64's range is
// `fallback`, not a float-to-int overflow (UBSan, found by fuzzing a 2.9e23 header value).
inline int64_t Int(od::value& v, const char* end, int64_t fallback = -1) {
  return IntFromToken(Token(v, end), fallback);
}

// A list written as a JSON array or as a string "[0, 1]", flattened to "0,1" in `scratch`.
inline std::string_view ListText(od::value& v, const char* end, std::string& scratch) {
  od::json_type type;
  if (v.type().get(type)) return {};
  if (type != od::json_type::array) return Str(v, end);
  od::array arr;
  if (v.get_array().get(arr)) return {};
  scratch.clear();
  for (auto el : arr) {
    od::value item;
    if (std::move(el).get(item)) break;
    if (!scratch.empty()) scratch += ',';
    scratch += Token(item, end);
  }
  return scratch;
}

}  // namespace commdx::ingest::kineto
