// The root cause is the finding whose fix would save the most (docs/diagnosis.md):
//  1. A job that failed (hung, crashed, could not connect) asks why it failed: the root is
//     taken among the failure findings, and a local error outranks its fallout (a peer that
//     exited, a connection closed, an abort after a timeout) in any line or file order.
//  2. Otherwise every finding with a measured saving competes by that saving. A cause explains
//     a symptom (causes.h) only when its saving accounts for the symptom's cost (at least
//     kAccountsFor of it); a cause with no measurement of its own (a setting read from a log)
//     explains what its rule names and is worth the largest saving it explains. A cheap cause
//     never outranks an expensive symptom: the symptom is then the root.
//  3. When no single finding explains most of the measured loss, the summary says so and names
//     the largest ones.
//  4. A bound of the platform (TCP between hosts with no RDMA device) is not a fault: it is the
//     root only when no finding the user can fix has a saving, and is named after the root
//     otherwise.
//  5. Inputs of the node alone (topology, environment) show no symptom: the root is then named
//     as the condition most likely to matter, with lower confidence.
#include <algorithm>
#include <set>

#include "analysis/catalogue.h"
#include "base/text.h"
#include "diagnose/causes.h"
#include "diagnose/diagnosis.h"

namespace commdx::diagnose {

namespace {

// A measured cause explains a symptom when it saves at least this share of the symptom's cost.
constexpr double kAccountsFor = 0.5;
// An info-level finding competes for the root only when it saves at least this share of a step
// and its saving is a measurement, not a bound (an upper bound has a confidence under this).
constexpr double kInfoRootShare = 0.2;
constexpr double kInfoRootConfidence = 0.35;
// A priced finding whose fix would give back less than this share of its step is listed, not
// named the root cause: a 0.1 ms sync in a 250 ms step is not why the step is slow.
constexpr double kMinRootShare = 0.02;
// "Most of the loss": the root's saving against the sum over the findings nothing explains.
constexpr double kMostOfLoss = 0.5;

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

double Saving(const Finding& f) { return f.saving_ns_per_step.value_or(0); }

bool Failed(const Finding& f) { return f.severity != Severity::kInfo && IsFailure(f.id); }

struct Candidate {
  size_t index = 0;
  std::vector<size_t> explained;
  double score_ns = 0;  // its own saving, or the largest saving it explains when unmeasured
  double step_ns = 0;   // the step of the finding the score comes from (0: unknown)
  std::set<Source> sources;
};

// The symptoms finding i explains among `v` (only those `eligible` says may be explained).
template <class Eligible>
Candidate Evaluate(const std::vector<Finding>& v, size_t i, const Eligible& eligible) {
  Candidate c{i, {}, Saving(v[i]), v[i].step_ns.value_or(0), {SourceOf(v[i])}};
  const CauseRule* rule = RuleFor(v[i].id);
  if (!rule) return c;
  const bool measured = v[i].saving_ns_per_step.has_value() && Saving(v[i]) > 0;
  for (size_t j = 0; j < v.size(); ++j) {
    if (j == i || !eligible(v[j])) continue;
    auto names = [&](const std::vector<const char*>& ids) {
      return std::any_of(ids.begin(), ids.end(), [&](const char* s) { return v[j].id == s; });
    };
    if (!names(rule->explains) && !names(rule->explains_if_larger)) continue;
    if (measured && Saving(v[i]) < kAccountsFor * Saving(v[j])) continue;
    if (rule->same_rank && v[i].rank && v[j].rank && *v[i].rank != *v[j].rank) continue;
    c.explained.push_back(j);
    c.sources.insert(SourceOf(v[j]));
    if (!measured && Saving(v[j]) > c.score_ns) {
      c.score_ns = Saving(v[j]);
      c.step_ns = v[j].step_ns.value_or(c.step_ns);
    }
  }
  return c;
}

bool Explains(const Candidate& a, const Candidate& b) {
  return std::find(a.explained.begin(), a.explained.end(), b.index) != a.explained.end();
}

// Largest saving first; on a tie the one that explains the other, a cause before a symptom, a
// limit the user set before the transport it sits on, then severity, then what it explains.
bool Better(const std::vector<Finding>& v, const Candidate& a, const Candidate& b) {
  if (a.score_ns != b.score_ns) return a.score_ns > b.score_ns;
  if (Explains(a, b) != Explains(b, a)) return Explains(a, b);
  const bool ca = !IsSymptom(v[a.index].id), cb = !IsSymptom(v[b.index].id);
  if (ca != cb) return ca;
  const bool ua = IsUserLimit(v[a.index]), ub = IsUserLimit(v[b.index]);
  if (ua != ub) return ua;
  Severity sa = v[a.index].severity, sb = v[b.index].severity;
  if (sa != sb) return MoreSevere(sa, sb);
  if (a.explained.size() != b.explained.size()) return a.explained.size() > b.explained.size();
  return a.index < b.index;
}

std::string Percent(double part, double whole) {
  return whole > 0
             ? " (" + std::to_string(static_cast<int>(100 * part / whole + 0.5)) + "% of the step)"
             : "";
}

}  // namespace

std::optional<RootCause> PickRootCause(std::vector<Finding>& v,
                                       const std::vector<Source>& sources_read) {
  const bool failed = std::any_of(v.begin(), v.end(), Failed);
  auto considered = [&](const Finding& f) { return !failed || Failed(f); };
  // What a cause may explain: any effect worth a share of the step, info included (exposed
  // communication measured as an upper bound still shows the effect of a slow transport).
  auto explainable = [&](const Finding& f) {
    if (!considered(f) || IsContext(f.id)) return false;
    const bool priced = f.saving_ns_per_step && f.step_ns && *f.step_ns > 0;
    return !(priced && Saving(f) < kMinRootShare * *f.step_ns);
  };
  // What may compete for the root: info only when it saves a real share of a step (a late rank
  // whose reason is unclear still costs the others).
  auto eligible = [&](const Finding& f) {
    if (!explainable(f)) return false;
    if (f.severity != Severity::kInfo) return true;
    return f.step_ns && Saving(f) >= kInfoRootShare * *f.step_ns &&
           f.confidence >= kInfoRootConfidence;
  };
  std::vector<Candidate> all;
  std::vector<bool> explained(v.size(), false);
  for (size_t i = 0; i < v.size(); ++i) {
    if (!eligible(v[i])) continue;
    all.push_back(Evaluate(v, i, explainable));
    for (size_t j : all.back().explained) explained[j] = true;
  }
  // A symptom some finding accounts for is that finding's, not a root of its own (a symptom may
  // explain another: a launch-bound rank is the late rank the others wait for).
  std::vector<Candidate> roots;
  for (auto& c : all)
    if (!(IsSymptom(v[c.index].id) && explained[c.index])) roots.push_back(std::move(c));
  if (roots.empty()) return std::nullopt;
  // A bound of the platform (hardware the job lacks) is the root only when nothing the user can
  // fix saves anything; otherwise it is named after the root, with what it bounds.
  std::optional<Candidate> bound;
  if (std::any_of(roots.begin(), roots.end(), [&](const Candidate& c) {
        return !v[c.index].platform_bound && c.score_ns > 0;
      })) {
    for (const Candidate& c : roots)
      if (v[c.index].platform_bound && (!bound || c.score_ns > bound->score_ns)) bound = c;
    roots.erase(std::remove_if(roots.begin(), roots.end(),
                               [&](const Candidate& c) { return v[c.index].platform_bound; }),
                roots.end());
  }
  // The best by a scan (Better's tie-breaks are not an ordering a sort may rely on), first;
  // the rest by saving.
  auto top = roots.begin();
  for (auto it = roots.begin(); it != roots.end(); ++it)
    if (Better(v, *it, *top)) top = it;
  std::iter_swap(roots.begin(), top);
  std::stable_sort(roots.begin() + 1, roots.end(),
                   [](const Candidate& a, const Candidate& b) { return a.score_ns > b.score_ns; });
  const Candidate best = roots.front();

  Finding& root = v[best.index];
  RootCause rc;
  rc.id = root.id;
  rc.saving_ns = best.score_ns;
  rc.step_ns = best.step_ns;
  // Each independent source that shows an effect of this cause raises the confidence.
  rc.confidence = std::min(0.98, root.confidence * (IsSymptom(root.id) ? 0.7 : 1.0) +
                                     0.1 * static_cast<double>(best.sources.size() - 1));
  for (size_t j : best.explained)
    if (std::find(rc.supporting.begin(), rc.supporting.end(), v[j].id) == rc.supporting.end())
      rc.supporting.push_back(v[j].id);
  if (const CauseRule* rule = RuleFor(root.id)) {
    std::set<Source> predicted;
    for (const char* s : rule->explains) predicted.insert(SourceOfId(s));
    for (const char* s : rule->explains_if_larger) predicted.insert(SourceOfId(s));
    for (const auto& src : sources_read)
      if (predicted.count(src) && !best.sources.count(src) && src != SourceOfId(root.id))
        rc.contradicting.push_back(std::string(SourceName(src)) +
                                   " was read but shows no effect of " + root.id);
  }
  // Most of the loss? Each loss counts once: what the root explains is the root's, and a cause
  // measured nowhere that is worth the same symptoms the root explains repeats the root's loss.
  std::vector<const Candidate*> rivals = {&roots.front()};
  for (size_t k = 1; k < roots.size(); ++k) {
    const Candidate& c = roots[k];
    if (c.score_ns <= 0) continue;
    auto in = [](const std::vector<size_t>& xs, size_t x) {
      return std::find(xs.begin(), xs.end(), x) != xs.end();
    };
    if (in(best.explained, c.index)) continue;
    const bool inherited = !(Saving(v[c.index]) > 0);
    if (inherited && std::any_of(c.explained.begin(), c.explained.end(),
                                 [&](size_t j) { return in(best.explained, j); }))
      continue;
    rivals.push_back(&c);
  }
  double loss_ns = 0;
  for (const Candidate* c : rivals) loss_ns += c->score_ns;
  if (rivals.size() > 1 && best.score_ns > 0 && best.score_ns < kMostOfLoss * loss_ns &&
      rivals[1]->score_ns >= kMostOfLoss * best.score_ns) {
    rc.single = false;
    for (size_t k = 0; k < rivals.size() && k < 3; ++k)
      rc.top.push_back({v[rivals[k]->index].id, v[rivals[k]->index].rank, rivals[k]->score_ns});
  }

  rc.summary = root.title;
  if (root.rank) rc.summary += " (rank " + std::to_string(*root.rank) + ")";
  if (!rc.supporting.empty()) {
    rc.summary += ". It explains: ";
    for (size_t k = 0; k < rc.supporting.size(); ++k)
      rc.summary += (k ? ", " : "") + rc.supporting[k];
  }
  if (best.score_ns > 0)
    rc.summary += ". Fixing it saves about " + FormatDurationNs(best.score_ns) + " per step" +
                  Percent(best.score_ns, best.step_ns);
  if (!rc.single) {
    rc.summary += ". No single cause explains most of the loss; the largest: ";
    for (size_t k = 0; k < rc.top.size(); ++k)
      rc.summary += (k ? ", " : "") + rc.top[k].id +
                    (rc.top[k].rank ? " (rank " + std::to_string(*rc.top[k].rank) + ")" : "") +
                    " " + FormatDurationNs(rc.top[k].saving_ns);
  }
  // Only the node's facts were read (topology, environment) and nothing failed or was measured:
  // the root is a condition that would slow communication, not a loss anyone saw.
  const bool conditions_only = !failed && best.score_ns <= 0 && !sources_read.empty() &&
                               std::all_of(sources_read.begin(), sources_read.end(), [](Source s) {
                                 return s == Source::kTopo || s == Source::kEnv;
                               });
  if (conditions_only) {
    std::string read;
    for (Source s : sources_read)
      read += std::string(read.empty() ? "" : " and ") +
              (s == Source::kTopo ? "topology" : "environment");
    rc.summary = "No symptom in these inputs (" + read +
                 " only: nothing failed, nothing was measured); the condition most likely to "
                 "slow communication: " +
                 rc.summary;
    rc.confidence = std::min(rc.confidence, 0.6);
  }
  if (!root.fix.empty()) {
    std::string_view fix = root.fix;
    while (!fix.empty() && fix.back() == '.') fix.remove_suffix(1);
    rc.summary += ". Fix: " + std::string(fix);
  }
  if (bound && bound->score_ns > best.score_ns)
    rc.summary +=
        ". Beyond what can be fixed here, the platform bounds more: " + v[bound->index].id + " (" +
        v[bound->index].title + ") would give back about " + FormatDurationNs(bound->score_ns) +
        " per step" + Percent(bound->score_ns, bound->step_ns) +
        " with hardware this job does not have";

  if (!root.saving_ns_per_step && best.score_ns > 0) {
    root.saving_ns_per_step = best.score_ns;
    if (best.step_ns > 0) root.step_ns = best.step_ns;
  }
  for (size_t j : best.explained)
    v[j].detail +=
        (v[j].detail.empty() ? "" : " ") + std::string("(Explained by ") + root.id + ".)";
  std::rotate(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(best.index),
              v.begin() + static_cast<std::ptrdiff_t>(best.index) + 1);
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
