// A small streaming JSON writer: correct escaping, fixed float precision (stable golden files).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace commdx {

// A key escaped and quoted once, for a key written many times (a table's columns, once per row
// of a report with tens of thousands of rows).
struct JsonKey {
  explicit JsonKey(std::string_view key);
  std::string quoted;  // "key"
};

class JsonWriter {
 public:
  explicit JsonWriter(int indent = 2) : indent_(indent) {}

  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);
  JsonWriter& Key(const JsonKey& key);
  JsonWriter& String(std::string_view value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Uint(uint64_t value);
  // Non-finite doubles are written as null (JSON has no NaN).
  JsonWriter& Double(double value, int decimals = 3);
  // The shortest decimal that reads back as the same double (data written to be read again,
  // not shown); non-finite as null.
  JsonWriter& Exact(double value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();

  const std::string& str() const { return out_; }

  static std::string Escape(std::string_view s);

 private:
  void BeforeValue();
  void Newline();

  std::string out_;
  int indent_;
  struct Frame {
    bool is_object;
    bool empty;
  };
  std::vector<Frame> stack_;
  bool after_key_ = false;
};

}  // namespace commdx
