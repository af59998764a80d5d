#include "bench/replay_runner.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <tuple>

#include "base/text.h"
#include "bench/coll_runner.h"
#include "bench/measure.h"
#include "bench/stats.h"

namespace commdx::bench {

namespace {

// What a call is replayed as, or why it is not.
struct Mapped {
  std::optional<CollSpec> spec;
  std::string why_not;
};

bool Replayable(CollectiveType t) {
  switch (t) {
    case CollectiveType::kAllReduce:
    case CollectiveType::kAllGather:
    case CollectiveType::kReduceScatter:
    case CollectiveType::kBroadcast:
    case CollectiveType::kReduce:
    case CollectiveType::kAllToAll:
    case CollectiveType::kSend:
    case CollectiveType::kRecv:
      return true;
    default:
      return false;
  }
}

// Where `global` sits in the group: its index among the group's ranks, else itself when the
// group's ranks are not listed (a group that spans the job); -1 when it is not in the group.
int GroupIndex(const ReplayGroup& g, int global) {
  if (g.ranks.empty()) return global;
  auto it = std::lower_bound(g.ranks.begin(), g.ranks.end(), global);
  return it != g.ranks.end() && *it == global ? static_cast<int>(it - g.ranks.begin()) : -1;
}

// How many ranks on the peer of a send (or the sender of a receive) is, in the group: the data
// flows from rank i to rank i + shift. Inputs name the peer by its global rank or by its rank
// in the group; the reading that is not the rank itself is taken. 0 when not known.
int PeerShift(const ReplayCall& c, const ReplayGroup& g) {
  const int size = g.size > 0 ? g.size : static_cast<int>(g.ranks.size());
  const int self = GroupIndex(g, g.source_rank);
  if (size <= 1 || self < 0 || self >= size || c.root < 0) return 0;
  int peer = GroupIndex(g, c.root);
  if (peer < 0 || peer == self) peer = c.root < size && c.root != self ? c.root : -1;
  if (peer < 0) return 0;
  const int d = c.type == CollectiveType::kSend ? peer - self : self - peer;
  return (d % size + size) % size;
}

Mapped Map(const ReplayCall& c, const ReplayGroup& g, int nranks, double scale) {
  if (!Replayable(c.type))
    return {std::nullopt,
            c.type == CollectiveType::kSendRecv
                ? "a send and a receive in one call, whose peers the input does not give"
                : std::string(CollectiveTypeName(c.type)) + " has no NCCL call to replay it with"};
  if (c.dtype < 0 || c.dtype > static_cast<int>(DataType::kFp8E5M2))
    return {std::nullopt, "the element type is not known"};
  if (c.count == 0) return {std::nullopt, "the size is not known"};
  CollSpec s;
  s.kind = c.type;
  if (IsPointToPoint(c.type)) {
    // Replayed as every rank sending `shift` ranks on and receiving from as many back, as the
    // stages of a pipeline do (send_recv; docs/replay.md).
    const int shift = PeerShift(c, g);
    if (shift == 0) return {std::nullopt, "its peer is not known"};
    if (shift % nranks == 0)
      return {std::nullopt,
              "its peer is not among the " + std::to_string(nranks) + " ranks replayed"};
    s.kind = CollectiveType::kSendRecv;
    s.shift = shift % nranks;
  }
  s.dtype = static_cast<DataType>(c.dtype);
  s.op = HasRedOp(c.type) && c.red_op >= 0 && c.red_op <= static_cast<int>(RedOp::kAvg)
             ? static_cast<RedOp>(c.red_op)
             : RedOp::kSum;
  if (HasRedOp(c.type) && c.red_op > static_cast<int>(RedOp::kAvg))
    return {std::nullopt, "a user-defined reduction cannot be replayed"};
  s.root = HasRoot(c.type) ? std::max(c.root, 0) : 0;
  if (s.root >= nranks)
    return {std::nullopt,
            "its root rank is not among the " + std::to_string(nranks) + " ranks replayed"};
  s.count = std::max<uint64_t>(1, static_cast<uint64_t>(static_cast<double>(c.count) * scale));
  s.nranks = nranks;
  return {s, ""};
}

using ShapeKey = std::tuple<int, int, int, int, int, uint64_t>;
ShapeKey KeyOf(const CollSpec& s) {
  return {static_cast<int>(s.kind),
          static_cast<int>(s.dtype),
          static_cast<int>(s.op),
          s.root,
          s.shift,
          s.count};
}

double MedianOf(std::vector<double> v) { return v.empty() ? 0 : Median(std::move(v)); }

std::string GroupLabel(const ReplayGroup& g) {
  return "group " + g.name + (g.desc.empty() ? "" : " (" + g.desc + ")");
}

// The step whose calls are replayed as the sequence: the one with the most calls (the
// first such), so that a step cut by the trace is not chosen. -1: the calls carry no steps.
int SequenceStep(const ReplayGroup& g) {
  std::map<int, int> per_step;
  for (const ReplayCall& c : g.calls)
    if (c.step >= 0) ++per_step[c.step];
  int best = -1, most = 0;
  for (const auto& [step, n] : per_step)
    if (n > most) best = step, most = n;
  return best;
}

// How far apart the group's ranks are: the step of its rank list when the list is evenly
// spaced (a data-parallel group across tensor-parallel ones), else 1.
int RankStride(const ReplayGroup& g) {
  if (g.ranks.size() < 2 || static_cast<int>(g.ranks.size()) != g.size) return 1;
  const int step = g.ranks[1] - g.ranks[0];
  for (size_t i = 2; i < g.ranks.size(); ++i)
    if (g.ranks[i] - g.ranks[i - 1] != step) return 1;
  return step > 0 ? step : 1;
}

// How this run forms a group: on all its ranks, or as sub-communicators side by side.
struct Formation {
  bool ok = false;
  int size = 0;  // ranks per sub-communicator; 0: every rank of this run
  int stride = 1;
};

// Whether this run can form the group, and the note or reason that goes with it. A group that
// spans the job runs on every rank here; a smaller one on sub-communicators of its size, as
// many side by side as this run holds (as a job's tensor- or pipeline-parallel groups run).
Formation CanForm(const ReplayGroup& g, int job_world, int n, ReplayResult& r) {
  bool spans_job = job_world <= 0 || g.size <= 0 || g.size >= job_world;
  if (g.size == n) return {true, 0, 1};
  if (spans_job) {
    r.notes.push_back(GroupLabel(g) + " has " + std::to_string(g.size) +
                      " ranks in the job and was replayed on " + std::to_string(n) +
                      ": per-call times are this run's, compare bus bandwidth, not time");
    return {true, 0, 1};
  }
  if (g.size > 1 && g.size < n && n % g.size == 0) {
    int stride = RankStride(g);
    if (n % (g.size * stride) != 0) stride = 1;
    std::string how = stride == 1 ? "consecutive ranks"
                                  : "ranks " + std::to_string(stride) + " apart, as in the job";
    r.notes.push_back(GroupLabel(g) + " (" + std::to_string(g.size) + " of the job's " +
                      std::to_string(job_world) + " ranks) was replayed on " +
                      std::to_string(n / g.size) + " sub-communicators of " +
                      std::to_string(g.size) + " " + how +
                      ", side by side, as the job's groups of that size run");
    return {true, g.size, stride};
  }
  r.left_out.push_back(GroupLabel(g) + " (" + std::to_string(g.size) + " of the job's " +
                       std::to_string(job_world) + " ranks): this run has " + std::to_string(n) +
                       " ranks; run the replay with " + std::to_string(g.size) +
                       " processes (or a multiple) to replay it");
  return {};
}

class GroupReplay {
 public:
  GroupReplay(Backend& b, Watchdog* wd, const ReplayOptions& o, ReplayResult& r)
      : b_(b), wd_(wd), o_(o), result_(r) {}

  Result<ReplayGroupResult> Run(const ReplayGroup& g, const Formation& f, bool first_group);

 private:
  Status MeasureSequence(const std::vector<CollSpec>& seq, ReplayGroupResult& out,
                         const std::map<ShapeKey, size_t>& shape_of);

  Backend& b_;
  Watchdog* wd_;
  const ReplayOptions& o_;
  ReplayResult& result_;
};

Result<ReplayGroupResult> GroupReplay::Run(const ReplayGroup& g, const Formation& f,
                                           bool first_group) {
  const int world = b_.Info().world_size;
  const int n = f.size > 0 ? f.size : world;
  ReplayGroupResult out;
  out.name = g.name;
  out.desc = g.desc;
  out.job_ranks = g.size;
  out.replay_ranks = n;
  out.side_by_side = world / n;
  out.steps = g.steps;

  std::map<std::string, int> dropped;  // reason -> calls
  std::map<ShapeKey, size_t> shape_of;
  std::vector<CollSpec> shape_specs;
  std::vector<std::vector<double>> job_us, wait_us;
  const int seq_step = SequenceStep(g);
  std::vector<CollSpec> seq;
  bool seq_timed = true, seq_waits = true;
  double job_seq = 0, job_wait_seq = 0;
  for (const ReplayCall& c : g.calls) {
    Mapped m = Map(c, g, n, o_.scale);
    if (!m.spec) {
      ++dropped[m.why_not];
      continue;
    }
    auto [it, added] = shape_of.emplace(KeyOf(*m.spec), shape_specs.size());
    if (added) {
      shape_specs.push_back(*m.spec);
      job_us.emplace_back();
      wait_us.emplace_back();
      ReplayShape s;
      s.type = m.spec->kind;
      s.count = m.spec->count;
      s.bytes = m.spec->SizeBytes();
      s.dtype = DataTypeName(m.spec->dtype);
      s.redop = HasRedOp(c.type) ? RedOpName(m.spec->op) : "none";
      s.root = HasRoot(c.type)                             ? m.spec->root
               : m.spec->kind == CollectiveType::kSendRecv ? m.spec->shift
                                                           : -1;
      out.shapes.push_back(std::move(s));
    }
    ReplayShape& s = out.shapes[it->second];
    ++s.job_calls;
    if (c.in_job_ns >= 0) job_us[it->second].push_back(static_cast<double>(c.in_job_ns) / 1e3);
    if (c.wait_ns >= 0) wait_us[it->second].push_back(static_cast<double>(c.wait_ns) / 1e3);
    if ((seq_step < 0 || c.step == seq_step) && static_cast<int>(seq.size()) < o_.max_calls) {
      seq.push_back(*m.spec);
      seq_timed = seq_timed && c.in_job_ns >= 0;
      seq_waits = seq_waits && c.wait_ns >= 0;
      job_seq += static_cast<double>(std::max<int64_t>(c.in_job_ns, 0)) / 1e3;
      job_wait_seq += static_cast<double>(std::max<int64_t>(c.wait_ns, 0)) / 1e3;
    }
  }
  for (const auto& [why, calls] : dropped)
    result_.left_out.push_back(std::to_string(calls) + " call" + (calls == 1 ? "" : "s") + " of " +
                               GroupLabel(g) + ": " + why);
  if (seq_step < 0 && static_cast<int>(g.calls.size()) > o_.max_calls)
    result_.notes.push_back(GroupLabel(g) +
                            ": no steps are known, so the sequence replayed is its " + "first " +
                            std::to_string(o_.max_calls) + " calls");
  out.sequence_calls = static_cast<int>(seq.size());
  if (seq_timed && !seq.empty()) out.job_sequence_us = job_seq;
  if (seq_waits && !seq.empty()) out.job_wait_sequence_us = job_wait_seq;
  if (shape_specs.empty()) return out;
  COMMDX_TRY(b_.UseGroup(f.size, f.stride));

  uint64_t send = 0, recv = 0;
  for (const CollSpec& s : shape_specs) {
    send = std::max(send, s.SendElems() * DataTypeBytes(s.dtype));
    recv = std::max(recv, s.RecvElems() * DataTypeBytes(s.dtype));
  }
  COMMDX_TRY(b_.Reserve(send, recv));
  for (size_t i = 0; i < shape_specs.size(); ++i) {
    ReplayShape& s = out.shapes[i];
    s.job_us = MedianOf(job_us[i]);
    if (!wait_us[i].empty()) s.job_wait_us = MedianOf(wait_us[i]);
    COMMDX_ASSIGN_OR_RETURN(
        s.alone, MeasureCollPoint(b_, wd_, shape_specs[i], i, o_.run, first_group && i == 0));
    if (o_.run.progress)
      o_.run.progress("replay " + GroupLabel(g) + ": " + shape_specs[i].Describe() + " (" +
                      std::to_string(i + 1) + "/" + std::to_string(shape_specs.size()) + ")");
  }
  COMMDX_TRY(MeasureSequence(seq, out, shape_of));
  COMMDX_TRY(b_.UseGroup(0, 1));
  return out;
}

Status GroupReplay::MeasureSequence(const std::vector<CollSpec>& seq, ReplayGroupResult& out,
                                    const std::map<ShapeKey, size_t>& shape_of) {
  if (seq.empty()) return Ok{};
  std::string what = "replayed sequence of " + std::to_string(seq.size()) + " calls";
  if (wd_) wd_->Arm(what + " (warm-up)");
  COMMDX_TRY(b_.TimeSequence(seq, 1));
  if (wd_) wd_->Arm(what);
  // Adaptive on whole sequences (each iteration one pass, its time the sum of its calls),
  // keeping every call's time for the per-shape medians.
  TimeMatrix calls;
  const size_t per = seq.size();
  auto batch = [&](int iters) -> Result<TimeMatrix> {
    COMMDX_ASSIGN_OR_RETURN(TimeMatrix t, b_.TimeSequence(seq, iters));
    AppendBatch(calls, t);
    TimeMatrix sums(t.size());
    for (size_t r = 0; r < t.size(); ++r)
      for (size_t k = 0; k + per <= t[r].size(); k += per) {
        double sum = 0;
        for (size_t c = 0; c < per; ++c) sum += t[r][k + c];
        sums[r].push_back(sum);
      }
    return sums;
  };
  RunOptions o = o_.run;
  o.max_iters = std::min(o.max_iters, 200);
  COMMDX_ASSIGN_OR_RETURN(TimeMatrix sums, MeasureAdaptive(batch, o));
  out.replay_sequence_us = Summarize(sums).median_ns / 1e3;
  // Per shape: the slowest rank's median of its calls in the sequence.
  std::vector<std::vector<std::vector<double>>> by_shape(
      out.shapes.size(), std::vector<std::vector<double>>(calls.size()));
  for (size_t r = 0; r < calls.size(); ++r)
    for (size_t k = 0; k < calls[r].size(); ++k)
      by_shape[shape_of.at(KeyOf(seq[k % per]))][r].push_back(calls[r][k]);
  for (size_t i = 0; i < out.shapes.size(); ++i)
    if (!by_shape[i].empty() && !by_shape[i][0].empty())
      out.shapes[i].sequence_us = Summarize(by_shape[i]).median_ns / 1e3;
  return Ok{};
}

}  // namespace

Result<ReplayResult> RunReplay(Backend& b, Watchdog* wd, const ReplayPlan& plan,
                               const ReplayOptions& o) {
  auto t0 = std::chrono::steady_clock::now();
  if (!(o.scale > 0 && o.scale <= 1))
    return MakeError(ErrorCode::kUsage, "--scale must be in (0, 1]");
  const BackendInfo& info = b.Info();
  ReplayResult r;
  r.source = plan.source;
  r.files = plan.files;
  r.nccl_version = info.nccl_version;
  r.nccl_library = info.nccl_library;
  r.launch = info.launch;
  r.job_world_size = plan.world_size;
  r.nranks = info.world_size;
  r.topology = info.topology;
  r.rank_gpus = info.rank_gpus;
  r.left_out = plan.left_out;
  r.notes = plan.assumed;
  if (o.scale < 1)
    r.notes.push_back("every call's size was scaled by " + std::to_string(o.scale).substr(0, 5) +
                      " (--scale): in-job and replayed times are not comparable, bus bandwidth is");
  GroupReplay replay(b, wd, o, r);
  bool first = true;
  for (const ReplayGroup& g : plan.groups) {
    if (g.calls.empty()) continue;
    const Formation f = CanForm(g, plan.world_size, info.world_size, r);
    if (!f.ok) continue;
    COMMDX_ASSIGN_OR_RETURN(ReplayGroupResult gr, replay.Run(g, f, first));
    if (!gr.shapes.empty()) first = false;
    r.groups.push_back(std::move(gr));
  }
  if (wd) wd->Disarm();
  if (plan.groups.empty())
    return MakeError(ErrorCode::kBadInput, "the inputs hold no collective to replay");
  if (r.groups.empty())
    return MakeError(
        ErrorCode::kEnvironment,
        "none of the job's process groups can be replayed here: " +
            (r.left_out.empty() ? std::string("they hold no calls") : r.left_out.back()));
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace commdx::bench
