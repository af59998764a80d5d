// A small tree of Python values (None, bool, int, float, str, bytes, list, tuple, dict), the
// subset PyTorch's Flight Recorder writes, read from its pickle (pickle.h) or JSON (json.cc)
// form. Values live in one arena and refer to each other by index, so that a pickle that shares
// or even cycles objects through its memo costs no copies and no leaks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace commdx::ingest::flight_recorder {

enum class PyKind : uint8_t {
  kNone,
  kBool,
  kInt,
  kFloat,
  kStr,
  kBytes,
  kList,
  kTuple,
  kDict,
  kGlobal
};

struct PyObject {
  PyKind kind = PyKind::kNone;
  int64_t i = 0;                // bool, int
  double f = 0;                 // float
  std::string s;                // str, bytes, global ("module.name")
  std::vector<uint32_t> items;  // list/tuple elements; dict keys and values interleaved
};

class PyDoc {
 public:
  uint32_t Add(PyObject o) {
    objects_.push_back(std::move(o));
    return static_cast<uint32_t>(objects_.size() - 1);
  }
  const PyObject& at(uint32_t i) const { return objects_[i]; }
  PyObject& at(uint32_t i) { return objects_[i]; }
  size_t size() const { return objects_.size(); }
  uint32_t root = 0;

  // Dict lookup by string key; nullopt when `dict` is not a dict or has no such key.
  std::optional<uint32_t> Get(uint32_t dict, std::string_view key) const;
  // Typed readers: nullopt when the value has another kind.
  std::optional<int64_t> Int(uint32_t v) const;   // int or bool; a float with no fraction
  std::optional<double> Float(uint32_t v) const;  // float or int
  const std::string* Str(uint32_t v) const;
  const std::vector<uint32_t>* Items(uint32_t v) const;  // list or tuple

 private:
  std::vector<PyObject> objects_;
};

}  // namespace commdx::ingest::flight_recorder
