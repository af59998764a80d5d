#include "base/json_writer.h"

#include <charconv>
#include <cmath>

#include "base/str_format.h"
#include "base/text.h"

namespace commdx {

namespace {

// Valid UTF-8 (SanitizeUtf8's) appended to `out` as JSON string content: runs of bytes that need
// nothing are copied whole (a report of many steps writes hundreds of thousands of strings).
void AppendEscaped(std::string& out, std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    size_t run = i;
    for (; run < s.size(); ++run) {
      auto u = static_cast<unsigned char>(s[run]);
      if (u < 0x20 || u == '"' || u == '\\' || u == '<') break;
    }
    out.append(s.data() + i, run - i);
    i = run;
    if (i == s.size()) break;
    const char c = s[i++];
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '<':  // keeps "</script>" inert when JSON is embedded in HTML
        out += "\\u003c";
        break;
      default:  // the other control bytes
        out += StrFormat("\\u%04x", c);
    }
  }
}

// Any text as JSON string content: printable ASCII with nothing to escape (report keys and most
// values) is appended as it is, without SanitizeUtf8's copy.
void AppendText(std::string& out, std::string_view s) {
  for (char ch : s) {
    auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u >= 0x7f || u == '"' || u == '\\' || u == '<') {
      AppendEscaped(out, SanitizeUtf8(s));
      return;
    }
  }
  out.append(s);
}

}  // namespace

std::string JsonWriter::Escape(std::string_view raw) {
  std::string out;
  AppendText(out, raw);
  return out;
}

void JsonWriter::Newline() {
  if (indent_ <= 0) return;
  out_ += '\n';
  out_.append(stack_.size() * static_cast<size_t>(indent_), ' ');
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!stack_.empty()) {
    if (!stack_.back().empty) out_ += ',';
    stack_.back().empty = false;
    Newline();
  }
}

JsonWriter& JsonWriter::BeginObject() {
  BeforeValue();
  out_ += '{';
  stack_.push_back({true, true});
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) Newline();
  out_ += '}';
  return *this;
}

JsonWriter& JsonWriter::BeginArray() {
  BeforeValue();
  out_ += '[';
  stack_.push_back({false, true});
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) Newline();
  out_ += ']';
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  BeforeValue();
  out_ += '"';
  AppendText(out_, key);
  out_ += indent_ > 0 ? "\": " : "\":";
  after_key_ = true;
  return *this;
}

JsonKey::JsonKey(std::string_view key) : quoted("\"") {
  AppendText(quoted, key);
  quoted += '"';
}

JsonWriter& JsonWriter::Key(const JsonKey& key) {
  BeforeValue();
  out_ += key.quoted;
  out_ += indent_ > 0 ? ": " : ":";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view value) {
  BeforeValue();
  out_ += '"';
  AppendText(out_, value);
  out_ += '"';
  return *this;
}

JsonWriter& JsonWriter::Int(int64_t value) {
  BeforeValue();
  out_ += std::to_string(value);
  return *this;
}

JsonWriter& JsonWriter::Uint(uint64_t value) {
  BeforeValue();
  out_ += std::to_string(value);
  return *this;
}

JsonWriter& JsonWriter::Double(double value, int decimals) {
  if (!std::isfinite(value)) return Null();
  BeforeValue();
  AppendFixed(out_, value, decimals);
  return *this;
}

JsonWriter& JsonWriter::Exact(double value) {
  if (!std::isfinite(value)) return Null();
  BeforeValue();
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);  // shortest round trip
  out_.append(buf, ec == std::errc() ? end : buf);
  return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
  BeforeValue();
  out_ += value ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
  return *this;
}

}  // namespace commdx
