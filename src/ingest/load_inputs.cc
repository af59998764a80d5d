#include "ingest/load_inputs.h"

#include <algorithm>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string_view>
#include <utility>

#include "base/file.h"
#include "base/file_windows.h"
#include "base/input_path.h"
#include "base/parallel.h"
#include "ingest/job_merge.h"
#include "ingest/load_slot.h"
#include "ingest/read_progress.h"

namespace commdx::ingest {

namespace {

using load::Allowed;
using load::NoteText;
using load::ParseWindows;
using load::ReadsInWindows;
using load::Slot;

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
  return !s.error && !s.text && !s.pipe_over && !s.imps.empty() && s.imps.front()->stream;
}

// Every importer of the file reads it into a part of its own (Importer::in_parts).
bool InParts(const Slot& s) {
  return !s.error && !s.imps.empty() &&
         std::all_of(s.imps.begin(), s.imps.end(), [](const Importer* i) { return i->in_parts; });
}

void NotePartial(const Importer& imp, const Error& e, Job& job) {
  job.quality.Add(QualityFamily("load.partial_"), imp.name(), DiagSeverity::kNote,
                  "part of the file looked like " + std::string(imp.name()) +
                      " but did not parse: " + e.message,
                  e.where);
}

// Hands the file's text to each importer that reads it from memory. A format that does not parse
// is the file's error when no other format of it reads it; otherwise it is noted (console text
// holds several formats: the tail of an nccl-tests run's output without its table beside the
// NCCL lines of its processes is a valid NCCL log). With `merge`, an importer that reads into
// parts parses into an empty Job that is merged at once (so the Job's order is the files');
// without, everything goes into `job` (a worker's part).
Status ParseText(Slot& s, Job& job, JobMerge* merge, const LoadOptions& options) {
  std::optional<Error> first_error;
  bool read_any = s.streamed;  // a streaming format has read it already
  for (size_t i = 0; i < s.imps.size(); ++i) {
    const Importer& imp = *s.imps[i];
    if (i == 0 && s.streamed) continue;
    if (!s.text) {
      if (s.pipe_over || s.over_limit) return ParseWindows(s, job, merge, options);
      Result<FileText> text = ReadFile(s.path, {options.max_text_bytes});
      if (!text && text.error().code == ErrorCode::kTooLarge && i == 0 && ReadsInWindows(s)) {
        if (merge) return ParseWindows(s, job, merge, options);
        // On a worker: read once the copies among the inputs are known (ReadInParallel).
        s.over_limit = true;
        load::DigestHead(s);
        return Ok{};
      }
      if (!text) return std::move(text).error();
      s.text = std::move(text).value();
    }
    load::Digest(s);
    Status st = Ok{};
    if (merge && imp.in_parts) {
      Job part;
      st = imp.parse(*s.text, part);
      if (st || i > 0) merge->Add(std::move(part));
    } else {
      st = imp.parse(*s.text, job);
    }
    if (!st) {
      if (s.imps.size() == 1) return st;
      if (i == 0)
        first_error = st.error();
      else
        NotePartial(imp, st.error(), job);
      continue;
    }
    if (!read_any) {
      s.bytes = s.text->data.size();
      NoteText(*s.text, job);
    }
    read_any = true;
    s.kinds.push_back(imp.kind);
  }
  if (first_error && !read_any) return *first_error;
  if (first_error) NotePartial(*s.imps.front(), *first_error, job);
  return Ok{};
}

// The files read on workers, in parallel: those whose format streams, and those whose importers
// all read into parts (their text is dropped once parsed); then, the copies among them known,
// those whose text is over the limit of a text held whole, in windows.
void ReadInParallel(std::vector<Slot>& slots, const LoadOptions& options) {
  std::vector<Slot*> todo;
  for (auto& s : slots)
    if (Streams(s) || InParts(s)) todo.push_back(&s);
  // The progress line on a terminal counts every file of the set from the start: a trace's
  // reader as it goes, any other file when it is parsed.
  std::vector<uint64_t> sizes(slots.size(), 0);
  uint64_t planned = 0;
  for (size_t i = 0; i < slots.size(); ++i)
    if (Streams(slots[i]) || InParts(slots[i]))
      if (auto stamp = StampOf(slots[i].path)) planned += sizes[i] = stamp->size;
  ReadProgress::Plan(planned, todo.size());
  auto settle = [&](const Slot& s) {
    if (!(Streams(s) && s.imps.front()->kind == InputKind::kKineto)) {
      const uint64_t size = sizes[&s - slots.data()];
      ReadProgress::Begin(size);
      ReadProgress::Advance(size);
    }
    ReadProgress::FileDone();
  };
  ParallelFor(todo.size(), options.threads, [&](size_t i) {
    Slot& s = *todo[i];
    NamingMemory(s, [&] {
      if (Streams(s)) {
        Stream(s, options);
      } else {
        s.in_part = true;
        if (Status st = ParseText(s, s.part, nullptr, options); !st) s.error = st.error();
        s.text.reset();
      }
      if (options.rank_built)
        for (RankTrace& t : s.part.trace.ranks) options.rank_built(t);
    });
    if (!s.over_limit) settle(s);
  });
  load::MarkCopies(slots, options);
  // Texts over the limit, copies left out: read in windows.
  std::vector<Slot*> over;
  for (auto& s : slots)
    if (s.over_limit && !s.error && s.copy_of.empty()) over.push_back(&s);
  ParallelFor(over.size(), options.threads, [&](size_t i) {
    Slot& s = *over[i];
    NamingMemory(s, [&] {
      if (Status st = ParseText(s, s.part, nullptr, options); !st) s.error = st.error();
    });
    settle(s);
  });
  ReadProgress::End();
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
  ParallelFor(slots.size(), options.threads, [&](size_t i) {
    NamingMemory(slots[i], [&] { load::Recognise(slots[i], options); });
  });
  ReadInParallel(slots, options);
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
    if (!s.in_part && !s.streamed && !s.text && !s.pipe_over) {
      NamingMemory(s, [&] {
        if (auto text = ReadFile(s.path, {options.max_text_bytes})) {
          s.text = std::move(text).value();
          load::Digest(s);
        } else if (text.error().code == ErrorCode::kTooLarge && ReadsInWindows(s)) {
          // Read in windows below unless a copy: hashed first (a copy has the same formats, so
          // it is read here too, not on a worker).
          s.over_limit = true;
          load::DigestWhole(s, options.window_bytes);
        }  // else ParseText reports the error
      });
      if (s.error) continue;
    }
    if (!s.copy_of.empty()) continue;  // found by MarkCopies, noted below
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
      if (Status st = ParseText(s, job, &merge, options); !st) s.error = st.error();
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
      const std::string what = s.prefix_copy
                                   ? "the start of " + s.copy_of +
                                         " (a shorter copy, made while it was "
                                         "still being written?)"
                                   : "the same text as " + s.copy_of + " (a copy of an input)";
      job.quality.Add("load.same_file_twice", DiagSeverity::kNote, what + ": read once", {s.path});
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
