// The analyzer logs through Python's logging with format "%(message)s", one field a line
// (components/types.py EntryState.log, components/utils.py error_analysis; PyTorch 2.11):
//
//   Not all ranks joining collective, sequence number: 8        headline (2.7 - 2.11)
//   Not all ranks joining collective: sequence number: 31117    (2.6)
//   Not all ranks joining collective 5 at entry 4               (2.5)
//   Collective sequence number: 8 has errors
//   Input/output mismatch in the collective sequence number: 8
//   internal record id: 7
//   group info: 0:default_pg
//   collective: nccl:all_reduce
//   missing ranks: {1}
//   input sizes: [[1048576]]
//   world size: 2
//   expected ranks: {0, 1}                                      ("expected ranks: 2" in 2.5)
//   collective state: scheduled
//   error msg: Culprit rank 1; Error type: COLLECTIVE_STATE_MISMATCH, Expected state:
//     'scheduled' does not match found state: 'completed'  (", Culprit rank ..." for more)
//   collective stack trace:
//    all_reduce at /x/torch/distributed/distributed_c10d.py:3068
//   We cannot decide what's wrong with this collective entry because we missed FR dumps from
//     ranks ({3}) so we don't have enough information. If you want to ...
//   No errors found for this collective entry, There could be some other reasons why we see
//     collective timeout.
//   AssertionError: Missing dump files from ranks {1}
#include "ingest/flight_recorder/analyzer_text.h"

#include <optional>

#include "base/text.h"

namespace commdx::ingest {

namespace {

constexpr std::string_view kNotJoined = "Not all ranks joining collective";
constexpr std::string_view kErrorsHead = "Collective sequence number:";
constexpr std::string_view kSizeHead = "Input/output mismatch in the collective";
constexpr std::string_view kUndecided = "We cannot decide what's wrong with this collective entry";
constexpr std::string_view kNoErrors = "No errors found for this collective entry";
constexpr std::string_view kMissingDumps = "Missing dump files from ranks";

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::optional<int64_t> IntAfter(std::string_view s, std::string_view key) {
  size_t at = s.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = TrimLeft(s.substr(at + key.size()));
  auto v = ConsumeInt(rest);
  if (!v || *v < 0) return std::nullopt;
  return v;
}

// "{0, 1, 3}" (a Python set) or "0, 1": the ranks; nullopt when anything else is in it.
std::optional<std::vector<int>> RankSet(std::string_view s) {
  s = Trim(s);
  if (!s.empty() && s.front() == '{') s.remove_prefix(1);
  if (!s.empty() && s.back() == '}') s.remove_suffix(1);
  std::vector<int> out;
  while (!(s = TrimLeft(s)).empty()) {
    auto v = ConsumeInt(s);
    if (!v || *v < 0 || *v >= (1 << 24)) return std::nullopt;
    out.push_back(static_cast<int>(*v));
    s = TrimLeft(s);
    if (!s.empty() && s.front() == ',')
      s.remove_prefix(1);
    else if (!s.empty())
      return std::nullopt;
  }
  return out;
}

// "Culprit rank 1; Error type: COLLECTIVE_STATE_MISMATCH, Expected state: ..." (several joined
// by ", Culprit rank ").
std::optional<std::vector<FrCulprit>> Culprits(std::string_view s) {
  std::vector<FrCulprit> out;
  constexpr std::string_view kKey = "Culprit rank ";
  for (size_t at = s.find(kKey); at != std::string_view::npos;) {
    size_t next = s.find(kKey, at + kKey.size());
    std::string_view one =
        s.substr(at + kKey.size(),
                 next == std::string_view::npos ? std::string_view::npos : next - at - kKey.size());
    FrCulprit c;
    auto r = ConsumeInt(one);
    if (!r || *r < 0 || *r >= (1 << 24)) return std::nullopt;
    c.rank = static_cast<int>(*r);
    size_t type = one.find("Error type: ");
    if (type == std::string_view::npos) return std::nullopt;
    std::string_view t = one.substr(type + 12);
    size_t comma = t.find(", ");
    c.error_type = std::string(Trim(t.substr(0, comma)));
    if (comma != std::string_view::npos) {
      std::string_view d = Trim(t.substr(comma + 2));
      if (!d.empty() && d.back() == ',') d.remove_suffix(1);
      c.detail = std::string(d.substr(0, 300));
    }
    out.push_back(std::move(c));
    at = next;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

class Reader {
 public:
  Reader(const FileText& f, Job& job) : f_(f), job_(job) {}

  Status Run() {
    std::string_view data = f_.data;
    size_t pos = 0;
    uint32_t line_no = 0;
    while (pos < data.size()) {
      size_t nl = data.find('\n', pos);
      std::string_view raw = data.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
      ++line_no;
      Line(Trim(raw), raw, line_no, pos);
      if (nl == std::string_view::npos) break;
      pos = nl + 1;
    }
    Flush();
    if (found_ == 0 && first_bad_.line != 0)
      return MakeError(ErrorCode::kBadInput, first_bad_msg_, first_bad_);
    return Ok{};
  }

 private:
  SourceLoc Loc(uint32_t line, size_t offset) const {
    SourceLoc loc{f_.path};
    loc.line = line;
    loc.offset = offset;
    loc.has_offset = true;
    return loc;
  }

  void Bad(QualityId id, std::string msg, const SourceLoc& where) {
    if (first_bad_.line == 0) first_bad_ = where, first_bad_msg_ = msg;
    job_.quality.Add(id, DiagSeverity::kWarning, msg, where);
  }

  void Flush() {
    in_frames_ = false;
    if (!cur_) return;
    job_.job_log.fr_analysis.push_back(std::move(*cur_));
    cur_.reset();
    ++found_;
  }

  // A headline with a sequence number: "... sequence number: 8 ..." or "... 5 at entry 4".
  void Headline(FrVerdict v, std::string_view line, std::string_view after, const SourceLoc& at) {
    Flush();
    FrAnalyzerEntry e;
    e.verdict = v;
    e.loc = at;
    e.line = std::string(line.substr(0, 300));
    if (auto seq = IntAfter(line, "sequence number:")) {
      e.seq = *seq;
    } else {
      std::string_view rest = TrimLeft(after);
      auto seq2 = ConsumeInt(rest);
      if (!seq2 || *seq2 < 0) {
        Bad("fr_analysis.bad_headline",
            "expected a collective sequence number in the analyzer's headline '" +
                std::string(line.substr(0, 80)) + "': entry skipped",
            at);
        return;
      }
      e.seq = *seq2;
      if (auto rec = IntAfter(rest, "at entry")) e.record_id = *rec;
    }
    cur_ = std::move(e);
  }

  void Ranks(std::string_view text, std::vector<int>& into, const SourceLoc& at) {
    auto set = RankSet(text);
    if (!set) {
      Bad("fr_analysis.bad_rank_set",
          "expected a set of ranks like {1, 3}, got '" + std::string(text.substr(0, 60)) + "'", at);
      return;
    }
    into = std::move(*set);
  }

  void Field(std::string_view line, const SourceLoc& at) {
    FrAnalyzerEntry& e = *cur_;
    auto value = [&](std::string_view key) { return Trim(line.substr(key.size())); };
    if (StartsWith(line, "internal record id:")) {
      if (auto v = IntAfter(line, "id:")) e.record_id = *v;
    } else if (StartsWith(line, "group info:")) {
      e.group = std::string(value("group info:"));
    } else if (StartsWith(line, "collective state:")) {
      e.state = std::string(value("collective state:"));
    } else if (StartsWith(line, "collective stack trace:")) {
      in_frames_ = true;
      std::string_view rest = value("collective stack trace:");
      if (!rest.empty()) e.frames.push_back(std::string(rest));
    } else if (StartsWith(line, "collective:")) {
      e.collective = std::string(value("collective:"));
    } else if (StartsWith(line, "missing ranks:")) {
      Ranks(value("missing ranks:"), e.missing_ranks, at);
    } else if (StartsWith(line, "expected ranks:")) {
      std::string_view v = value("expected ranks:");
      if (!v.empty() && v.front() == '{') {
        Ranks(v, e.expected_ranks, at);
        if (e.world_size < 0) e.world_size = static_cast<int>(e.expected_ranks.size());
      } else if (auto n = IntAfter(line, "ranks:")) {
        e.world_size = static_cast<int>(std::min<int64_t>(*n, 1 << 24));
      }
    } else if (StartsWith(line, "world size:")) {
      if (auto n = IntAfter(line, "size:"))
        e.world_size = static_cast<int>(std::min<int64_t>(*n, 1 << 24));
    } else if (StartsWith(line, "input sizes:")) {
      e.input_sizes = std::string(value("input sizes:").substr(0, 200));
    } else if (StartsWith(line, "output sizes:")) {
      e.output_sizes = std::string(value("output sizes:").substr(0, 200));
    } else if (StartsWith(line, "error msg:")) {
      auto c = Culprits(value("error msg:"));
      if (!c) {
        Bad("fr_analysis.bad_error_msg",
            "expected 'Culprit rank N; Error type: T' after 'error msg:', got '" +
                std::string(value("error msg:").substr(0, 60)) + "'",
            at);
      } else {
        e.culprits = std::move(*c);
      }
    } else if (in_frames_ && line.find(" at ") != std::string_view::npos) {
      if (e.frames.size() < 16) e.frames.push_back(std::string(line.substr(0, 300)));
    } else if (!line.empty()) {
      in_frames_ = false;
    }
  }

  void Line(std::string_view line, std::string_view raw, uint32_t line_no, size_t offset) {
    (void)raw;
    SourceLoc at = Loc(line_no, offset);
    if (size_t p = line.find(kNotJoined); p != std::string_view::npos) {
      return Headline(FrVerdict::kNotJoined, line, line.substr(p + kNotJoined.size()), at);
    }
    if (StartsWith(line, kErrorsHead) && line.find("has errors") != std::string_view::npos)
      return Headline(FrVerdict::kErrors, line, line.substr(kErrorsHead.size()), at);
    if (size_t p = line.find(kSizeHead); p != std::string_view::npos)
      return Headline(FrVerdict::kSizeMismatch, line, line.substr(p + kSizeHead.size()), at);
    auto alone = [&](FrVerdict v, std::string_view ranks_text) {
      Flush();
      FrAnalyzerEntry e;
      e.verdict = v;
      e.loc = at;
      e.line = std::string(line.substr(0, 300));
      if (!ranks_text.empty()) Ranks(ranks_text, e.missing_ranks, at);
      cur_ = std::move(e);
      Flush();
    };
    if (line.find(kUndecided) != std::string_view::npos) {
      size_t open = line.find("ranks (");
      size_t close = open == std::string_view::npos ? open : line.find(')', open);
      if (close == std::string_view::npos) {
        Bad("fr_analysis.bad_rank_set",
            "expected the ranks without dumps in 'from ranks ({...})': line cut", at);
        return;
      }
      return alone(FrVerdict::kUndecided, line.substr(open + 7, close - open - 7));
    }
    if (line.find(kNoErrors) != std::string_view::npos) return alone(FrVerdict::kNoErrors, {});
    // The assertion's message, not the traceback's echo of its source line
    // (assert len(missing) == 0, f"Missing dump files from ranks {missing}").
    if (size_t p = line.find(kMissingDumps);
        p != std::string_view::npos && (p == 0 || StartsWith(line, "AssertionError")))
      return alone(FrVerdict::kMissingDumps, line.substr(p + kMissingDumps.size()));
    if (cur_) Field(line, at);
  }

  const FileText& f_;
  Job& job_;
  std::optional<FrAnalyzerEntry> cur_;
  bool in_frames_ = false;
  size_t found_ = 0;
  SourceLoc first_bad_;
  std::string first_bad_msg_;
};

}  // namespace

bool SniffFrAnalysis(std::string_view head) {
  return Contains(head, kNotJoined) ||
         (Contains(head, kErrorsHead) && Contains(head, "has errors")) ||
         Contains(head, kSizeHead) || Contains(head, kUndecided) || Contains(head, kNoErrors) ||
         (Contains(head, kMissingDumps) && Contains(head, "flight_recorder"));
}

Status ParseFrAnalysis(const FileText& file, Job& job) { return Reader(file, job).Run(); }

}  // namespace commdx::ingest
