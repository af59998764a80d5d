// Lines of TORCH_DISTRIBUTED_DEBUG=DETAIL (ProcessGroupWrapper and ProcessGroupGloo, PyTorch
// 1.10 - 2.11), each repeated in the exception's what() and the launcher's traceback:
//
//   [rank0]:[I1202 02:23:16.498741707 ProcessGroupWrapper.cpp:620] [Rank 0] Running
//     collective: CollectiveFingerPrint(SequenceNumber=7, OpType=ALLREDUCE,
//     TensorShape=[1048576], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(...))
//   [rank0]:[E1202 02:23:21.525032713 ProcessGroupGloo.cpp:67] [Rank 0]: Ranks 1 failed to
//     pass monitoredBarrier in 5000 ms
//   [rank1]: RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running
//     collective: CollectiveFingerPrint(SequenceNumber=7, OpType=_ALLGATHER_BASE, ...), but
//     Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=7, OpType=ALLREDUCE,
//     ...).Collectives differ in the following aspects: 	 Op type: _ALLGATHER_BASEvs ALLREDUCE
#include "ingest/job_log/job_log_debug.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "base/text.h"
#include "ingest/job_log/job_log_text.h"

namespace commdx::ingest::job_log {

namespace {

constexpr std::string_view kBarrier = " failed to pass monitoredBarrier in ";
constexpr std::string_view kMismatch = "Detected mismatch between collectives on ranks.";
constexpr std::string_view kRunning = " is running collective: CollectiveFingerPrint(";

// The value after `key` up to the first of `stops`.
std::string Field(std::string_view s, std::string_view key, std::string_view stops) {
  size_t at = s.find(key);
  if (at == std::string_view::npos) return {};
  std::string_view v = s.substr(at + key.size());
  return std::string(v.substr(0, v.find_first_of(stops)));
}

CollectiveFingerprint ParseFingerprint(std::string_view s, int rank) {
  CollectiveFingerprint fp;
  fp.rank = rank;
  fp.seq = NumberAfter(s, "SequenceNumber=");
  fp.op = Field(s, "OpType=", ",)");
  std::string shape = Field(s, "TensorShape=", "]");
  if (!shape.empty()) fp.shape = shape + "]";
  fp.dtype = Field(s, "TensorDtypes=", ",)");
  return fp;
}

// "Ranks 1, 3" / "Rank 1" just before `at` (the barrier message).
std::vector<int> MissingRanks(std::string_view line, size_t at) {
  std::string_view head = line.substr(0, at);
  size_t word = head.rfind("Rank");
  std::vector<int> ranks;
  if (word == std::string_view::npos) return ranks;
  std::string_view list = head.substr(word);
  list.remove_prefix(list.find(' ') == std::string_view::npos ? list.size() : list.find(' '));
  while (!list.empty()) {
    list = TrimLeft(list);
    if (!list.empty() && list.front() == ',') {
      list.remove_prefix(1);
      continue;
    }
    auto v = ConsumeInt(list);
    if (!v || *v < 0 || *v >= (1 << 24)) break;
    ranks.push_back(static_cast<int>(*v));
  }
  return ranks;
}

constexpr std::string_view kRunningKey = "] Running collective: ";

// The fingerprint after data[at], the end of a "[Rank R] Running collective: ".
CollectiveFingerprint RunningAt(std::string_view data, size_t at, int rank) {
  size_t start = 0;
  std::string_view line = LineAround(data, at, start);
  return ParseFingerprint(line.substr(at - start), rank);
}

// The last "[Rank R] Running collective: CollectiveFingerPrint(...)" before `before`, else the
// last one of the text before this one.
CollectiveFingerprint LastRunning(std::string_view data, size_t before, int rank,
                                  const FileState& state) {
  if (rank < 0) return {};
  std::string key = "[Rank " + std::to_string(rank) + std::string(kRunningKey);
  size_t at = data.substr(0, before).rfind(key);
  if (at != std::string_view::npos) return RunningAt(data, at + key.size(), rank);
  auto it = state.last_running.find(rank);
  return it == state.last_running.end() ? CollectiveFingerprint{} : it->second;
}

}  // namespace

void ReadBarrierTimeouts(const FileText& f, JobLogFacts& out, FileState& state) {
  std::string_view data = f.data;
  auto& seen = state.barriers;
  LineCounter lines(f);
  for (size_t at = FindFrom(data, kBarrier, 0); at != std::string_view::npos;
       at = FindFrom(data, kBarrier, at + kBarrier.size())) {
    size_t start = 0;
    std::string_view line = LineAround(data, at, start);
    BarrierTimeout b;
    b.missing = MissingRanks(line, at - start);
    if (b.missing.empty()) continue;
    // The reporter's "[Rank 0]:" comes before the "Ranks 1" list.
    std::string_view head = line.substr(0, at - start);
    b.rank = RankOf(head.substr(0, head.rfind("Rank")));
    b.waited_ms = NumberAfter(line.substr(at - start), kBarrier);
    if (!seen.insert({b.rank, b.missing}).second) continue;
    b.entering = LastRunning(data, start, b.rank, state);
    b.loc = lines.At(f.path, start);
    b.line = std::string(Trim(line).substr(0, 400));
    out.barrier_timeouts.push_back(std::move(b));
  }
}

void ReadFingerprintMismatches(const FileText& f, JobLogFacts& out, FileState& state) {
  std::string_view data = f.data;
  auto& seen = state.mismatches;
  LineCounter lines(f);
  for (size_t at = FindFrom(data, kMismatch, 0); at != std::string_view::npos;
       at = FindFrom(data, kMismatch, at + kMismatch.size())) {
    size_t start = 0;
    std::string_view line = LineAround(data, at, start);
    std::string_view rest = line.substr(at - start + kMismatch.size());
    size_t first = rest.find(kRunning);
    if (first == std::string_view::npos) continue;  // cut before either fingerprint
    size_t second = rest.find(kRunning, first + kRunning.size());
    FingerprintMismatch m;
    m.a = ParseFingerprint(rest.substr(first + kRunning.size()), RankOf(rest.substr(0, first)));
    if (second == std::string_view::npos) {
      // Cut after the raising rank's fingerprint (a terminal or a post that truncated it): its
      // side is still a desync at that collective; the other side is unknown. Its OpType must
      // be whole (a ',' or ')' after it), else the cut went through the name.
      std::string_view a = rest.substr(first + kRunning.size());
      size_t op = a.find("OpType=");
      if (op == std::string_view::npos || a.find_first_of(",)", op) == std::string_view::npos)
        continue;
      m.cut = true;
    } else {
      size_t b_rank = rest.rfind(" Rank ", second);
      m.b = ParseFingerprint(rest.substr(second + kRunning.size()),
                             RankOf(rest.substr(b_rank, second - b_rank)));
      if (m.b.op.empty()) continue;
    }
    if (m.a.op.empty()) continue;
    if (size_t d = rest.find("differ in the following aspects:"); d != std::string_view::npos)
      m.aspects = std::string(Trim(rest.substr(d + 32)).substr(0, 200));
    // Each side raises it (rank 1 about rank 0, rank 0 about rank 1): one disagreement.
    if (!seen.insert({std::min(m.a.rank, m.b.rank), std::max(m.a.rank, m.b.rank), m.a.seq}).second)
      continue;
    m.loc = lines.At(f.path, start);
    m.line = std::string(Trim(line).substr(0, 600));
    out.mismatches.push_back(std::move(m));
  }
}

void NoteLastRunning(const FileText& f, FileState& state) {
  std::string_view data = f.data;
  std::unordered_map<int, size_t> last;  // rank: where its fingerprint starts
  for (size_t at = FindFrom(data, kRunningKey, 0); at != std::string_view::npos;
       at = FindFrom(data, kRunningKey, at + kRunningKey.size())) {
    size_t digits = at;
    while (digits > 0 && data[digits - 1] >= '0' && data[digits - 1] <= '9') --digits;
    if (digits == at || digits < 6 || data.substr(digits - 6, 6) != "[Rank ") continue;
    const int64_t rank = NumberAfter(data.substr(digits - 6, at - digits + 6), "[Rank ");
    if (rank < 0 || rank >= (1 << 24)) continue;
    last[static_cast<int>(rank)] = at + kRunningKey.size();
  }
  for (const auto& [rank, at] : last) state.last_running[rank] = RunningAt(data, at, rank);
}

}  // namespace commdx::ingest::job_log
