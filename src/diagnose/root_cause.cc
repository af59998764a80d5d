#include <algorithm>
#include <cstdio>
#include <set>

#include "analysis/catalogue.h"
#include "base/text.h"
#include "diagnose/causes.h"
#include "diagnose/diagnosis.h"

namespace commdx::diagnose {

namespace {

const CauseRule* RuleFor(std::string_view id) {
  for (const auto& r : CauseRules())
    if (id == r.cause) return &r;
  return nullptr;
}

Source SourceOfId(std::string_view id) {
  const analysis::CatalogueEntry* e = analysis::FindCatalogueEntry(id);
  return e ? e->source : Source::kNone;
}

// The analysis run stamps the catalogue's source; a finding built by hand may leave it out.
Source SourceOf(const Finding& f) {
  return f.source != Source::kNone ? f.source : SourceOfId(f.id);
}

bool IsContext(std::string_view id) { return analysis::RoleOf(id) == analysis::Role::kContext; }

struct Candidate {
  size_t index;
  std::vector<size_t> explained;
  double cost_ns;
  std::set<Source> sources;
};

Candidate Evaluate(const std::vector<Finding>& v, size_t i) {
  Candidate c{i, {}, v[i].cost_ns_per_step.value_or(0), {SourceOf(v[i])}};
  const CauseRule* rule = RuleFor(v[i].id);
  if (!rule) return c;
  for (size_t j = 0; j < v.size(); ++j) {
    if (j == i || v[j].severity == Severity::kInfo) continue;  // info explains nothing away
    auto names = [&](const std::vector<const char*>& ids) {
      return std::any_of(ids.begin(), ids.end(), [&](const char* s) { return v[j].id == s; });
    };
    const bool by_size = names(rule->explains_if_larger);
    if (!names(rule->explains) && !by_size) continue;
    if (by_size && v[i].cost_ns_per_step.value_or(0) < v[j].cost_ns_per_step.value_or(0)) continue;
    if (rule->same_rank && v[i].rank && v[j].rank && *v[i].rank != *v[j].rank) continue;
    c.explained.push_back(j);
    c.cost_ns = std::max(c.cost_ns, v[j].cost_ns_per_step.value_or(0));
    c.sources.insert(SourceOf(v[j]));
  }
  return c;
}

bool Better(const std::vector<Finding>& v, const Candidate& a, const Candidate& b) {
  Severity sa = v[a.index].severity, sb = v[b.index].severity;
  if (sa != sb) return MoreSevere(sa, sb);
  if (a.cost_ns != b.cost_ns) return a.cost_ns > b.cost_ns;
  if (a.explained.size() != b.explained.size()) return a.explained.size() > b.explained.size();
  return a.index < b.index;
}

bool IsHang(const Finding& f) {
  return f.severity != Severity::kInfo && StartsWith(f.id, "hang.");
}

}  // namespace

std::optional<RootCause> PickRootCause(std::vector<Finding>& v,
                                       const std::vector<Source>& sources_read) {
  // A job that hung asks why it hung: a slow transport or a launch-bound step beside it is not
  // the answer, so the root is taken among the hang findings when there are any.
  const bool hung = std::any_of(v.begin(), v.end(), IsHang);
  auto considered = [&](const Finding& f) { return !hung || IsHang(f); };
  std::optional<Candidate> best;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i].severity == Severity::kInfo || IsSymptom(v[i].id) || !considered(v[i])) continue;
    Candidate c = Evaluate(v, i);
    if (!best || Better(v, c, *best)) best = c;
  }
  // A cause that leaves a more severe symptom unexplained (a warning-level sync beside an
  // error-level arrival skew it does not account for) is not the root cause: the symptom is.
  if (best) {
    for (size_t i = 0; i < v.size(); ++i) {
      if (!IsSymptom(v[i].id) || IsContext(v[i].id) || !considered(v[i])) continue;
      if (!MoreSevere(v[i].severity, v[best->index].severity)) continue;
      if (std::find(best->explained.begin(), best->explained.end(), i) != best->explained.end())
        continue;
      best.reset();
      break;
    }
  }
  if (!best) {  // only symptoms: the strongest one is named, with its own confidence
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i].severity != Severity::kInfo && !IsContext(v[i].id) && considered(v[i])) {
        best = Evaluate(v, i);
        break;
      }
  }
  if (!best) return std::nullopt;

  Finding& root = v[best->index];
  RootCause rc;
  rc.id = root.id;
  // Each independent source that shows an effect of this cause raises the confidence.
  rc.confidence = std::min(0.98, root.confidence * (IsSymptom(root.id) ? 0.7 : 1.0) +
                                     0.1 * static_cast<double>(best->sources.size() - 1));
  for (size_t j : best->explained) rc.supporting.push_back(v[j].id);
  if (const CauseRule* rule = RuleFor(root.id)) {
    std::set<Source> predicted;
    for (const char* s : rule->explains) predicted.insert(SourceOfId(s));
    for (const char* s : rule->explains_if_larger) predicted.insert(SourceOfId(s));
    for (const auto& src : sources_read)
      if (predicted.count(src) && !best->sources.count(src) && src != SourceOfId(root.id))
        rc.contradicting.push_back(std::string(SourceName(src)) +
                                   " was read but shows no effect of " + root.id);
  }
  rc.summary = root.title;
  if (root.rank) rc.summary += " (rank " + std::to_string(*root.rank) + ")";
  if (!rc.supporting.empty()) {
    rc.summary += ". It explains: ";
    for (size_t k = 0; k < rc.supporting.size(); ++k)
      rc.summary += (k ? ", " : "") + rc.supporting[k];
  }
  if (best->cost_ns > 0)
    rc.summary += ". Costs about " + FormatDurationNs(best->cost_ns) + " per step";
  if (!root.fix.empty()) rc.summary += ". Fix: " + root.fix;

  if (!root.cost_ns_per_step && best->cost_ns > 0) root.cost_ns_per_step = best->cost_ns;
  for (size_t j : best->explained)
    v[j].detail +=
        (v[j].detail.empty() ? "" : " ") + std::string("(Explained by ") + root.id + ".)";
  std::rotate(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(best->index),
              v.begin() + static_cast<std::ptrdiff_t>(best->index) + 1);
  return rc;
}

std::vector<Source> SourcesRead(const Job& job) {
  std::set<Source> s;
  for (const auto& input : job.inputs)
    for (InputKind kind : input.kinds)
      if (InputKindSource(kind) != Source::kNone) s.insert(InputKindSource(kind));
  std::vector<Source> v(s.begin(), s.end());
  std::sort(v.begin(), v.end(), [](Source a, Source b) {
    return std::string_view(SourceName(a)) < std::string_view(SourceName(b));
  });
  return v;
}

}  // namespace commdx::diagnose
