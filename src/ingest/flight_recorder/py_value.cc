#include "ingest/flight_recorder/py_value.h"

#include <cmath>

namespace commdx::ingest::flight_recorder {

std::optional<uint32_t> PyDoc::Get(uint32_t dict, std::string_view key) const {
  const PyObject& d = at(dict);
  if (d.kind != PyKind::kDict) return std::nullopt;
  for (size_t k = 0; k + 1 < d.items.size(); k += 2) {
    const PyObject& kobj = at(d.items[k]);
    if (kobj.kind == PyKind::kStr && kobj.s == key) return d.items[k + 1];
  }
  return std::nullopt;
}

std::optional<int64_t> PyDoc::Int(uint32_t v) const {
  const PyObject& o = at(v);
  if (o.kind == PyKind::kInt || o.kind == PyKind::kBool) return o.i;
  if (o.kind == PyKind::kFloat && std::isfinite(o.f) && std::floor(o.f) == o.f &&
      std::fabs(o.f) < 9.0e18)
    return static_cast<int64_t>(o.f);
  return std::nullopt;
}

std::optional<double> PyDoc::Float(uint32_t v) const {
  const PyObject& o = at(v);
  if (o.kind == PyKind::kFloat) return o.f;
  if (o.kind == PyKind::kInt) return static_cast<double>(o.i);
  return std::nullopt;
}

const std::string* PyDoc::Str(uint32_t v) const {
  const PyObject& o = at(v);
  return o.kind == PyKind::kStr ? &o.s : nullptr;
}

const std::vector<uint32_t>* PyDoc::Items(uint32_t v) const {
  const PyObject& o = at(v);
  return o.kind == PyKind::kList || o.kind == PyKind::kTuple ? &o.items : nullptr;
}

}  // namespace commdx::ingest::flight_recorder
