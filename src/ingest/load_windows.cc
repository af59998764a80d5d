// Texts too large to hold whole read in windows (ParseWindows), and what was done to a text to
// read it (NoteText): parts of LoadInputs (load_inputs.cc), declared in load_slot.h.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/file_windows.h"
#include "ingest/job_merge.h"
#include "ingest/load_slot.h"

namespace commdx::ingest::load {

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

Status ParseWindows(Slot& s, Job& job, JobMerge* merge, const LoadOptions& options) {
  std::vector<Job> parts(s.imps.size());
  std::vector<std::unique_ptr<WindowReader>> readers;
  for (size_t i = 0; i < s.imps.size(); ++i)
    if (s.imps[i]->windows) readers.push_back(s.imps[i]->windows(s.path, parts[i]));
  auto each = [&](const FileText& window) {
    for (auto& r : readers) r->Read(window);
  };
  WindowedRead read;
  if (s.pipe_over) {  // its start is held: it and the rest of the pipe
    read = s.pipe_over->ReadWindows(options.window_bytes, each);
    s.pipe_over.reset();
  } else {
    COMMDX_ASSIGN_OR_RETURN(read, ReadWindows(s.path, options.window_bytes, each));
  }
  for (auto& r : readers) r->Finish();
  readers.clear();
  std::optional<JobMerge> own;
  if (!merge) own.emplace(job);
  JobMerge& into = merge ? *merge : *own;
  for (size_t i = 0; i < s.imps.size(); ++i) {
    if (!s.imps[i]->windows) {
      job.quality.Add("load.not_in_windows", DiagSeverity::kWarning,
                      std::string("also looks like ") + s.imps[i]->name() +
                          ", which is read only from a file held whole: not read",
                      {s.path});
      continue;
    }
    into.Add(std::move(parts[i]));
    s.kinds.push_back(s.imps[i]->kind);
  }
  if (own) own->Finish();
  const uint64_t limit = options.max_text_bytes ? options.max_text_bytes : DefaultMaxBytes();
  job.quality.Add("load.in_windows", DiagSeverity::kNote,
                  std::to_string(read.bytes >> 20) + " MiB of text, over the limit of " +
                      std::to_string(limit >> 20) + " MiB for a file held whole: read in " +
                      std::to_string(read.windows) + " windows of whole lines, one at a time" +
                      (read.cut_lines ? " (" + std::to_string(read.cut_lines) +
                                            " lines longer than a window read in pieces)"
                                      : std::string()),
                  {s.path});
  if (read.stopped)
    job.quality.Add("load.in_windows_stopped", DiagSeverity::kWarning, read.stopped->message,
                    read.stopped->where);
  NoteText(read.file, job);
  s.bytes = read.bytes;
  return Ok{};
}

}  // namespace commdx::ingest::load
