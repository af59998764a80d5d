#include "diagnose/compare.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace commdx::diagnose {

namespace {

std::string FindingKey(const SavedFinding& f) { return f.id + "#" + std::to_string(f.rank); }

template <class V>
std::map<std::string, V> ToMap(const std::vector<std::pair<std::string, V>>& v) {
  return std::map<std::string, V>(v.begin(), v.end());
}

}  // namespace

Comparison Compare(const SavedResult& a, const SavedResult& b, const CompareOptions& options) {
  Comparison c;
  std::map<std::string, const SavedFinding*> fa, fb;
  for (const auto& f : a.findings) fa.emplace(FindingKey(f), &f);
  for (const auto& f : b.findings) fb.emplace(FindingKey(f), &f);
  for (const auto& [k, f] : fb)
    if (!fa.count(k)) c.added.push_back(*f);
  for (const auto& [k, f] : fa)
    if (!fb.count(k)) c.resolved.push_back(*f);
  // A finding in both whose severity, saving or confidence moved: a regression the lists of
  // added and gone findings would not show.
  auto number = [&](const std::string& path, double va, double vb) {
    if (va < 0 || vb < 0 || va == vb) return;
    double rel = va != 0 ? (vb - va) / std::fabs(va) : INFINITY;
    if (std::fabs(rel) >= options.threshold) c.numbers.push_back({path, va, vb, rel});
  };
  for (const auto& [k, f] : fa) {
    auto it = fb.find(k);
    if (it == fb.end()) continue;
    const SavedFinding& g = *it->second;
    const std::string at = "findings[id=" + f->id +
                           (f->rank >= 0 ? ",rank=" + std::to_string(f->rank) : "") + "]";
    if (f->severity != g.severity)
      c.strings.push_back({at + ".severity", SeverityName(f->severity), SeverityName(g.severity)});
    number(at + ".saving_per_step_ns", f->saving_ns_per_step, g.saving_ns_per_step);
    number(at + ".confidence", f->confidence, g.confidence);
  }

  auto na = ToMap(a.numbers), nb = ToMap(b.numbers);
  for (const auto& [path, va] : na) {
    auto it = nb.find(path);
    if (it == nb.end()) {
      c.only_in_a.push_back(path);
      continue;
    }
    double vb = it->second;
    if (va == vb) continue;
    double rel = va != 0 ? (vb - va) / std::fabs(va) : (vb > 0 ? INFINITY : -INFINITY);
    if (std::fabs(rel) >= options.threshold) c.numbers.push_back({path, va, vb, rel});
  }
  for (const auto& [path, vb] : nb)
    if (!na.count(path)) c.only_in_b.push_back(path);
  std::stable_sort(c.numbers.begin(), c.numbers.end(),
                   [](const NumberChange& x, const NumberChange& y) {
                     return std::fabs(x.relative) > std::fabs(y.relative);
                   });

  auto sa = ToMap(a.strings), sb = ToMap(b.strings);
  for (const auto& [path, va] : sa) {
    auto it = sb.find(path);
    if (it == sb.end()) {
      c.only_in_a.push_back(path);
    } else if (it->second != va) {
      c.strings.push_back({path, va, it->second});
    }
  }
  for (const auto& [path, vb] : sb)
    if (!sa.count(path)) c.only_in_b.push_back(path);
  return c;
}

}  // namespace commdx::diagnose
