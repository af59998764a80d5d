#include "ingest/load_inputs.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <new>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "base/file.h"
#include "base/input_path.h"
#include "base/parallel.h"
#include "ingest/job_merge.h"
#include "ingest/kineto/json/progress.h"
#include "ingest/nsys/nsys_rep.h"
#include "ingest/own_report.h"
#include "ingest/pipe_head.h"

namespace commdx::ingest {

namespace {

constexpr size_t kSniffBytes = 64 * 1024;
// Windows of a text file whose start and end were not recognised (SniffWindows).
constexpr size_t kScanWindowBytes = 256 * 1024;

// One file on its way in.
struct Slot {
  std::string path;
  bool named = false;                 // given on the command line, not found in a folder
  bool pipe = false;                  // read once, whole, into text
  bool streamed = false;              // read by the format's stream(), not from text
  bool in_part = false;               // parsed on a worker into `part` (Importer::in_parts)
  std::vector<const Importer*> imps;  // the format, then others that share the file
  std::optional<FileText> text;       // read when a text importer needs it
  std::optional<Error> error;
  std::string skip;  // why it is not read, when imps is empty
  Job part;          // what a streaming importer, or a worker's parse, read
  uint64_t bytes = 0;
  std::vector<InputKind> kinds;  // what it was read as
  // The size and a hash of its text, where it was read as text (a copy of another input has
  // the same: the job's folder copied twice, `gzip -k` beside the original).
  std::optional<std::pair<uint64_t, size_t>> digest;
  // A hash of its text's first kHeadDigestBytes: a shorter copy of another input (a job's logs
  // copied while it ran, then again at its end) starts the same.
  std::optional<size_t> head_digest;
  std::string copy_of;  // the earlier input with the same text: this one is not read
  bool prefix_copy = false;  // copy_of holds all of its text and more
  std::vector<std::string> summarised_from;  // a summary: the files it was made from
};

constexpr size_t kHeadDigestBytes = 4096;

void Digest(Slot& s) {
  if (s.text && !s.digest) {
    const std::string_view data = s.text->data;
    s.digest = std::make_pair(static_cast<uint64_t>(data.size()),
                              std::hash<std::string_view>{}(data));
    if (data.size() >= kHeadDigestBytes)
      s.head_digest = std::hash<std::string_view>{}(data.substr(0, kHeadDigestBytes));
  }
}

// Inputs read on the workers whose text is the start of another's (same first 4 KiB, then the
// shorter read again and compared): each is marked a copy of the longest, and not merged. The
// NCCL logs of a job copied while it ran and again at its end counted each process twice.
void MarkPrefixCopies(std::vector<Slot>& slots) {
  std::unordered_map<size_t, std::vector<Slot*>> by_head;
  for (auto& s : slots)
    if (s.in_part && !s.error && s.head_digest) by_head[*s.head_digest].push_back(&s);
  for (auto& [hash, group] : by_head) {
    if (group.size() < 2) continue;
    std::stable_sort(group.begin(), group.end(),
                     [](const Slot* a, const Slot* b) { return a->digest->first > b->digest->first; });
    for (size_t i = 0; i + 1 < group.size(); ++i) {
      Slot& longer = *group[i];
      if (!longer.copy_of.empty()) continue;
      std::optional<FileText> long_text;
      for (size_t j = i + 1; j < group.size(); ++j) {
        Slot& shorter = *group[j];
        if (!shorter.copy_of.empty() || shorter.digest->first == longer.digest->first) continue;
        if (!long_text) {
          auto t = ReadFile(longer.path);
          if (!t) break;  // changed or gone since: nothing is marked
          long_text = std::move(t).value();
        }
        auto t = ReadFile(shorter.path);
        if (t && long_text->data.starts_with(t->data)) {
          shorter.copy_of = longer.path;
          shorter.prefix_copy = true;
        }
      }
    }
  }
}

bool Allowed(const LoadOptions& options, InputKind kind) {
  if (std::find(options.skip.begin(), options.skip.end(), kind) != options.skip.end()) return false;
  return options.only.empty() ||
         std::find(options.only.begin(), options.only.end(), kind) != options.only.end();
}

std::vector<Slot> SlotsOf(const ExpandedInputs& found) {
  std::vector<Slot> slots(found.files.size());
  for (size_t i = 0; i < slots.size(); ++i) {
    slots[i].path = found.files[i].path;
    slots[i].named = found.files[i].named;
    slots[i].pipe = found.files[i].pipe;
  }
  return slots;
}

// What the folders held that is not read: unreadable entries are input-quality notes, the rest
// (FIFOs, devices, links to folders, files met twice) are listed as skipped with the reason.
void NoteUnread(const ExpandedInputs& found, Job& job) {
  for (const auto& n : found.notes) {
    if (n.unreadable)
      job.quality.Add("load.unreadable", DiagSeverity::kWarning, "not read: " + n.reason, {n.path});
    else
      job.skipped.push_back({n.path, n.reason});
  }
  for (const auto& n : found.repeated) job.skipped.push_back({n.path, n.reason});
}

// An archive or a compression commdx does not open, by its magic bytes (for a .tar.gz, in the
// inflated head): what to run instead. "" for anything else.
std::string PackedHint(std::string_view head) {
  auto at = [&head](size_t pos, std::string_view magic) {
    return head.size() >= pos + magic.size() && head.substr(pos, magic.size()) == magic;
  };
  if (at(257, "ustar")) return "a tar archive: unpack it (tar xf) and pass the folder";
  if (at(0, "PK\x03\x04")) return "a zip archive: unpack it (unzip) and pass the folder";
  if (at(0, "\x28\xB5\x2F\xFD")) return "zstd-compressed: decompress it (zstd -d) first";
  if (at(0,
         "\xFD"
         "7zXZ"))
    return "xz-compressed: decompress it (xz -d) first";
  if (at(0, "BZh")) return "bzip2-compressed: decompress it (bunzip2) first";
  if (at(0, "7z\xBC\xAF\x27\x1C")) return "a 7-Zip archive: unpack it (7z x) first";
  return "";
}

std::string WhyNotRead(std::string_view head, const LoadOptions& options) {
  if (head.empty()) return "empty file";
  if (std::string packed = PackedHint(head); !packed.empty())
    return "not a format commdx reads: " + packed + " (commdx reads plain and gzip files)";
  if (options.only.empty()) return "not a format commdx reads";
  std::string why = "not recognised as";
  for (size_t i = 0; i < options.only.size(); ++i)
    why += (i ? " or " : " ") + std::string(InputKindName(options.only[i]));
  return why;
}

// Folders that gave no file at all: the folder that could not be listed (or the entry that could
// not be read) with the OS reason, or the empty folder, rather than "none of 0 files".
Status NothingFound(const ExpandedInputs& found, const std::vector<std::string>& paths) {
  size_t unreadable = 0;
  const PathNote* first = nullptr;
  for (const auto& n : found.notes)
    if (n.unreadable && !unreadable++) first = &n;
  if (first)
    return MakeError(ErrorCode::kBadInput,
                     first->reason + (unreadable > 1 ? " (and " + std::to_string(unreadable - 1) +
                                                           " more entries not readable)"
                                                     : std::string()),
                     {first->path});
  if (found.notes.empty() && found.repeated.empty() && !paths.empty())
    return MakeError(ErrorCode::kBadInput,
                     "no file in it (an empty folder; hidden entries, starting with '.', are not "
                     "read)",
                     {paths.front()});
  return Ok{};
}

// What was done to a file's text to read it, in input quality: converted from UTF-16, or read as
// it was when opened because it was still growing.
void NoteText(const FileText& t, Job& job) {
  if (t.converted_from)
    job.quality.Add("load.converted_text", DiagSeverity::kNote,
                    std::string(t.converted_from) + " text" +
                        (std::string_view(t.converted_from) == "UTF-16LE"
                             ? " (as Windows PowerShell's `>` writes it)"
                             : "") +
                        ", converted to UTF-8",
                    {t.path});
  if (t.gzip_cut)
    job.quality.Add("load.gzip_cut", DiagSeverity::kWarning,
                    "the gzip stream ends before its end (cut short while written or sent): read "
                    "up to the cut",
                    {t.path});
  if (t.grew_bytes > 0)
    job.quality.Add("load.growing", DiagSeverity::kNote,
                    "still being written (it grew while read): read as it was when opened; the " +
                        std::to_string(t.grew_bytes) + " bytes added since are not" +
                        (t.dropped_tail_bytes ? ", nor its unfinished last line (" +
                                                    std::to_string(t.dropped_tail_bytes) + " bytes)"
                                              : std::string()),
                    {t.path});
}

// A summary's part names the files it was made from (ingest/summary): its row of job.inputs lists
// them and the kinds they were read as.
void TakeSummarised(Slot& s) {
  for (auto& in : s.part.inputs) {
    for (InputKind k : in.kinds)
      if (std::find(s.kinds.begin(), s.kinds.end(), k) == s.kinds.end()) s.kinds.push_back(k);
    s.summarised_from.push_back(std::move(in.path));
  }
  s.part.inputs.clear();
}

// Text, not binary: no NUL byte in its start (every binary format commdx meets has some there).
bool LooksLikeText(std::string_view head) { return head.find('\0') == std::string_view::npos; }

// Words without which no format that shares a file recognises a window: NCCL's lines ("NCCL",
// and " INFO " / " WARN " before NCCL 2.3 put its name in them), the job log's
// (ProcessGroupNCCL, WorkNCCL, the heartbeat monitor, monitoredBarrier, the collective
// fingerprint check), nccl-tests' tables, the Flight Recorder analyzer's text and nvidia-smi's
// matrices. A cheap look first: asking the formats themselves parses every line (1 GB of
// training output: 5.1 s of CPU, 1.5 s with this look first, on the 2-vCPU build VM).
bool MayHoldKnownLines(std::string_view w) {
  static constexpr std::string_view kWords[] = {
      "NCCL",          " INFO ",           " WARN ",
      "busbw",         "nccl-tests",       "Collective test",
      "Heartbeat",     "dump debug info",  "monitoredBarrier",
      "between collectives", "Collective sequence", "collective entry",
      "ranks joining", "Input/output mismatch", "Missing dump files",
      "GPU0"};
  for (std::string_view word : kWords)  // memmem: glibc's is several times string_view::find's speed
    if (memmem(w.data(), w.size(), word.data(), word.size())) return true;
  return false;
}

// The formats that share a file, asked about each window of its text in turn (held whole where
// it was read whole, streamed from the file otherwise); the first window one of them knows ends
// the look.
void SniffWindows(Slot& s, const LoadOptions& options) {
  auto ask = [&](std::string_view window) {
    if (!MayHoldKnownLines(window)) return false;
    for (const auto& imp : Importers())
      if (imp.shares_file && Allowed(options, imp.kind) && imp.sniff(window))
        s.imps.push_back(&imp);
    return !s.imps.empty();
  };
  if (s.text) {
    std::string_view all = s.text->data;
    for (size_t at = 0; at < all.size();) {
      size_t end = std::min(all.size(), at + kScanWindowBytes);
      if (end < all.size())
        if (size_t nl = all.substr(at, end - at).find_last_of('\n'); nl != all.npos)
          end = at + nl + 1;
      if (ask(all.substr(at, end - at))) return;
      at = end;
    }
    return;
  }
  if (s.pipe) return;  // its start was all that could be held before knowing what it is
  (void)ScanWindows(s.path, kScanWindowBytes, ask);  // unreadable further on: not recognised
}

// Reads the start of the file once and picks the importers that read it.
void Recognise(Slot& s, const LoadOptions& options) {
  if (options.force_single && options.only.size() == 1 && s.named) {
    // An archive given by name: say what it is rather than how it fails to parse.
    const char* utf16 = nullptr;
    if (auto head =
            s.pipe ? Result<std::string>(std::string()) : ReadHead(s.path, kSniffBytes, &utf16))
      if (std::string packed = PackedHint(*head); !packed.empty())
        return void(s.error = MakeError(ErrorCode::kBadInput,
                                        packed + " (commdx reads plain and gzip files)", {s.path}));
    if (s.pipe || utf16) {  // read once / converted: parsed from memory
      auto text = ReadFile(s.path);
      if (!text) return void(s.error = text.error());
      s.text = std::move(text).value();
    }
    if (const Importer* imp = FindImporter(options.only.front())) s.imps.push_back(imp);
    return;
  }
  std::string head;
  std::optional<PipeInput> pipe;  // its start read and kept: the rest only once it is known
  if (s.pipe) {
    auto opened = PipeInput::Open(s.path, kSniffBytes);
    if (!opened) return void(s.error = opened.error());
    pipe.emplace(std::move(opened).value());
    head = pipe->head();
  } else if (const char* utf16 = nullptr; auto h = ReadHead(s.path, kSniffBytes, &utf16)) {
    head = std::move(h).value();
    if (utf16) {  // converted text: every importer, a streaming one too, reads it from memory
      auto text = ReadFile(s.path);
      if (!text) return void(s.error = text.error());
      s.text = std::move(text).value();
    }
  } else if (options.force_single && s.named && !options.only.empty()) {
    // A named file is read as the first kind anyway: its reader names the broken place.
    if (const Importer* imp = FindImporter(options.only.front())) s.imps.push_back(imp);
    return;
  } else {  // reading it whole names the place that is broken
    auto text = ReadFile(s.path);
    if (!text) return void(s.error = text.error());
    head = text->data.substr(0, kSniffBytes);
    s.text = std::move(text).value();
  }
  if (std::string own = OwnReportKind(head); !own.empty())
    return void(s.skip = "a commdx report (" + own + "), its own output: not read back");
  for (const auto& imp : Importers()) {
    // Once a format that keeps its file to itself has it, the rest are not asked (sniffing a
    // text format parses the head: on a 26 KB Flight Recorder pickle of a 4,096-rank job the
    // NCCL log's and job log's sniffers took a third of the load).
    if (!s.imps.empty() && !(s.imps.front()->shares_file && imp.shares_file)) continue;
    if (!Allowed(options, imp.kind) || !imp.sniff(head)) continue;
    s.imps.push_back(&imp);
  }
  // Console text whose start is hours of training output and whose recognisable lines (a
  // watchdog timeout, NCCL's errors) come at the end: the formats that share a file are asked
  // about its last bytes too.
  if (s.imps.empty() && !s.pipe && !s.text)
    if (auto tail = ReadTail(s.path, kSniffBytes); tail && !tail->empty())
      for (const auto& imp : Importers())
        if (imp.shares_file && Allowed(options, imp.kind) && imp.sniff(*tail))
          s.imps.push_back(&imp);
  // ...and, for text longer than those two looks, about every window of it: the telling lines of
  // a job's console can sit anywhere (an NCCL error between two hours of training output).
  if (s.imps.empty() && head.size() >= kSniffBytes && LooksLikeText(head))
    SniffWindows(s, options);
  // An Nsight Systems report has no documented signature: known by its name, converted by nsys.
  if (s.imps.empty() && nsys::IsReportName(s.path) && Allowed(options, InputKind::kNsys))
    s.imps.push_back(FindImporter(InputKind::kNsys));
  // A named file is read as the first kind anyway (its reader names the broken place), unless
  // it is an archive or a compression commdx does not open: then that is the answer.
  if (s.imps.empty() && options.force_single && s.named && !options.only.empty() &&
      PackedHint(head).empty())
    if (const Importer* imp = FindImporter(options.only.front())) s.imps.push_back(imp);
  if (s.imps.empty()) return void(s.skip = WhyNotRead(head, options));
  if (pipe) {  // a format reads it: now the rest of the pipe
    auto text = pipe->ReadRest();
    if (!text) return void(s.error = text.error());
    s.text = std::move(text).value();
  }
}

// Out of memory while one input is read names that input (a worker's exception would end the
// process with no word of which file it was).
template <class Fn>
void NamingMemory(Slot& s, Fn fn) {
  try {
    fn();
  } catch (const std::bad_alloc&) {
    s.text.reset();
    s.part = Job();
    s.error = MakeError(ErrorCode::kEnvironment,
                        "out of memory while reading it: free memory, raise the limit "
                        "(ulimit -v), or give commdx fewer files at once",
                        {s.path});
  }
}

// A file whose format streams: read from disk by the format's stream() into its part.
void Stream(Slot& s, const LoadOptions& options) {
  s.streamed = true;
  auto before = StampOf(s.path);
  auto r = s.imps.front()->stream(s.path, options.stream, s.part);
  auto after = StampOf(s.path);
  // Appended to while read (a file still being written): what was read is a prefix of it.
  const bool grew = before && after && before->SameFile(*after) && after->size > before->size;
  if (grew && r && r->not_ours.empty())
    s.part.quality.Add("load.growing", DiagSeverity::kNote,
                       "still being written (it grew while read): read as it was when "
                       "opened; the " +
                           std::to_string(after->size - before->size) +
                           " bytes added since are not",
                       {s.path});
  if (!grew && (!before || !after || !(*before == *after))) {
    s.error = MakeError(ErrorCode::kBadInput,
                        "changed while reading (its size or time changed; read it again "
                        "once it is complete)",
                        {s.path});
  } else if (!r) {
    s.error = r.error();
  } else if (!r->not_ours.empty()) {
    s.imps.clear();
    s.skip = r->not_ours;
  } else {
    s.bytes = r->bytes;
    s.kinds.push_back(s.imps.front()->kind);
  }
}

bool Streams(const Slot& s) {
  return !s.error && !s.text && !s.imps.empty() && s.imps.front()->stream;
}

// Every importer of the file reads it into a part of its own (Importer::in_parts).
bool InParts(const Slot& s) {
  return !s.error && !s.imps.empty() &&
         std::all_of(s.imps.begin(), s.imps.end(), [](const Importer* i) { return i->in_parts; });
}

// Hands the file's text to each importer that reads it from memory. The first format's errors
// are the error; a part that does not parse as a further format is noted, not fatal. With
// `merge`, an importer that reads into parts parses into an empty Job that is merged at once (so
// the Job's order is the files'); without, everything goes into `job` (a worker's part).
Status ParseText(Slot& s, Job& job, JobMerge* merge) {
  for (size_t i = 0; i < s.imps.size(); ++i) {
    const Importer& imp = *s.imps[i];
    if (i == 0 && s.streamed) continue;
    if (!s.text) {
      COMMDX_ASSIGN_OR_RETURN(FileText text, ReadFile(s.path));
      s.text = std::move(text);
    }
    Digest(s);
    Status st = Ok{};
    if (merge && imp.in_parts) {
      Job part;
      st = imp.parse(*s.text, part);
      if (st || i > 0) merge->Add(std::move(part));
    } else {
      st = imp.parse(*s.text, job);
    }
    if (!st && i == 0) return st;
    if (!st) {
      job.quality.Add(QualityFamily("load.partial_"), imp.name(), DiagSeverity::kNote,
                      "part of the file looked like " + std::string(imp.name()) +
                          " but did not parse: " + st.error().message,
                      st.error().where);
      continue;
    }
    if (i == 0) {
      s.bytes = s.text->data.size();
      NoteText(*s.text, job);
    }
    s.kinds.push_back(imp.kind);
  }
  return Ok{};
}

// The files read on workers, in parallel: those whose format streams, and those whose importers
// all read into parts (their text is dropped once parsed).
void ReadInParallel(std::vector<Slot>& slots, const LoadOptions& options) {
  std::vector<Slot*> todo;
  for (auto& s : slots)
    if (Streams(s) || InParts(s)) todo.push_back(&s);
  // The progress line on a terminal counts every trace of the set from the start.
  uint64_t planned = 0;
  for (const Slot* s : todo)
    if (Streams(*s) && s->imps.front()->kind == InputKind::kKineto)
      if (auto stamp = StampOf(s->path)) planned += stamp->size;
  kineto::ReadProgress::Plan(planned);
  ParallelFor(todo.size(), options.threads, [&](size_t i) {
    Slot& s = *todo[i];
    NamingMemory(s, [&] {
      if (Streams(s)) return Stream(s, options);
      s.in_part = true;
      if (Status st = ParseText(s, s.part, nullptr); !st) s.error = st.error();
      s.text.reset();
    });
  });
  kineto::ReadProgress::End();
}

// The error that stands for all when nothing usable was read: a streaming format's first, then
// the first in order.
std::optional<Error> FirstError(const std::vector<Slot>& slots) {
  for (const auto& s : slots)
    if (s.error && s.streamed) return s.error;
  for (const auto& s : slots)
    if (s.error) return s.error;
  return std::nullopt;
}

}  // namespace

LoadOptions ForcedKind(InputKind kind) {
  LoadOptions o;
  o.only = {kind};
  o.force_single = true;
  return o;
}

LoadOptions ForcedKinds(std::vector<InputKind> kinds) {
  LoadOptions o;
  o.only = std::move(kinds);
  o.force_single = true;
  return o;
}

Result<Job> LoadInputs(const std::vector<std::string>& paths, const LoadOptions& options) {
  COMMDX_ASSIGN_OR_RETURN(ExpandedInputs found, ExpandInputs(paths));
  if (found.files.empty()) COMMDX_TRY(NothingFound(found, paths));
  std::vector<Slot> slots = SlotsOf(found);
  ParallelFor(slots.size(), options.threads,
              [&](size_t i) { NamingMemory(slots[i], [&] { Recognise(slots[i], options); }); });
  ReadInParallel(slots, options);
  MarkPrefixCopies(slots);
  Job job;
  JobMerge merge(job);
  // A file whose text is another's (same size and hash) is read once, the first in order.
  std::map<std::pair<uint64_t, size_t>, const Slot*> seen;
  auto copy_of = [&](Slot& s) -> const Slot* {
    if (!s.digest) return nullptr;
    auto [it, fresh] = seen.emplace(*s.digest, &s);
    return fresh ? nullptr : it->second;
  };
  // Importers report structural errors before they add to the Job (a trace is added whole, a
  // JSON document is parsed before it is read), so a broken file leaves nothing half-read.
  for (auto& s : slots) {
    if (s.error || s.imps.empty()) continue;
    if (!s.in_part && !s.streamed && !s.text) {
      NamingMemory(s, [&] {
        if (auto text = ReadFile(s.path)) {
          s.text = std::move(text).value();
          Digest(s);
        }  // else ParseText reports the error
      });
      if (s.error) continue;
    }
    if (s.prefix_copy) continue;  // noted with the copies below
    if (const Slot* first = copy_of(s)) {
      s.copy_of = first->path;
      s.text.reset();
      continue;
    }
    if (s.in_part) {
      TakeSummarised(s);
      merge.Add(std::move(s.part));
      continue;
    }
    NamingMemory(s, [&] {
      if (Status st = ParseText(s, job, &merge); !st) s.error = st.error();
    });
    s.text.reset();
  }
  std::optional<Error> first = FirstError(slots);
  if (first && slots.size() == 1) return *first;
  for (auto& s : slots) {
    if (s.error) {
      job.quality.Add("load.broken_input", DiagSeverity::kError,
                      "not read: " + s.error->message + " (the other inputs are diagnosed)",
                      s.error->where);
      job.skipped.push_back({s.path, "not read: " + s.error->message});
      continue;
    }
    if (!s.copy_of.empty()) {
      const std::string what =
          s.prefix_copy ? "the start of " + s.copy_of + " (a shorter copy, made while it was "
                                                        "still being written?)"
                        : "the same text as " + s.copy_of + " (a copy of an input)";
      job.quality.Add("load.same_file_twice", DiagSeverity::kNote, what + ": read once",
                      {s.path});
      job.skipped.push_back({s.path, what + ": read once"});
      continue;
    }
    if (s.streamed) merge.Add(std::move(s.part));
    if (s.imps.empty())
      job.skipped.push_back({s.path, s.skip});
    else
      job.inputs.push_back({s.path, s.kinds, s.bytes, std::move(s.summarised_from)});
  }
  if (first && job.inputs.empty()) return *first;  // nothing usable was read
  merge.Finish();
  NoteUnread(found, job);
  if (!options.finish) return job;
  std::vector<void (*)(Job&)> finished;
  for (const auto& imp : Importers()) {
    if (!imp.finish || !Allowed(options, imp.kind)) continue;
    if (std::find(finished.begin(), finished.end(), imp.finish) != finished.end()) continue;
    finished.push_back(imp.finish);
    imp.finish(job);
  }
  return job;
}

}  // namespace commdx::ingest
