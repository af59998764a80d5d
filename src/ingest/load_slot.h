// The parts of LoadInputs (load_inputs.cc) its files share: one input on its way in (Slot), how
// its format is recognised from its bytes (load_recognise.cc), how copies of one text among the
// inputs are found (load_copies.cc) and how a text too large to hold is read (load_windows.cc).
// Private to the loader.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/file.h"
#include "ingest/job_merge.h"
#include "ingest/load_inputs.h"
#include "ingest/pipe_head.h"
#include "ingest/registry.h"

namespace commdx::ingest::load {

inline constexpr size_t kSniffBytes = 64 * 1024;
// Windows of a text file whose start and end were not recognised (SniffWindows).
inline constexpr size_t kScanWindowBytes = 256 * 1024;

// One file on its way in.
struct Slot {
  std::string path;
  bool named = false;                 // given on the command line, not found in a folder
  bool pipe = false;                  // read once: whole into text, or in windows (pipe_over)
  bool streamed = false;              // read by the format's stream(), not from text
  bool in_part = false;               // parsed on a worker into `part` (Importer::in_parts)
  std::vector<const Importer*> imps;  // the format, then others that share the file
  std::optional<FileText> text;       // read when a text importer needs it
  // A pipe whose text passed the limit of a text held whole: what was read of it is held here,
  // and a console log's importers read it and the rest of the pipe in windows (ParseWindows).
  std::unique_ptr<PipeInput> pipe_over;
  // A file whose text is over the limit of a text held whole, on a worker: read in windows once
  // the copies among the inputs are known (MarkCopies), and not at all when it is one.
  bool over_limit = false;
  std::optional<Error> error;
  std::string skip;  // why it is not read, when imps is empty
  Job part;          // what a streaming importer, or a worker's parse, read
  uint64_t bytes = 0;
  std::vector<InputKind> kinds;  // what it was read as
  // The size and a hash of its text, where it was read as text (a copy of another input has
  // the same: the job's folder copied twice, `gzip -k` beside the original). The hash is
  // std::hash of a text held whole, TextHash of one over the limit (hashed window by window):
  // the sizes of the two kinds never meet.
  std::optional<std::pair<uint64_t, size_t>> digest;
  // A hash of its text's first kHeadDigestBytes: a shorter copy of another input (a job's logs
  // copied while it ran, then again at its end) starts the same.
  std::optional<size_t> head_digest;
  std::string copy_of;       // the earlier input with the same text: this one is not read
  bool prefix_copy = false;  // copy_of holds all of its text and more
  std::vector<std::string> summarised_from;  // a summary: the files it was made from
};

// Whether --only and --skip let a format be read.
bool Allowed(const LoadOptions& options, InputKind kind);

// Whether a text too large to hold can be read in windows: one of its formats' importers can, and
// none streams it.
bool ReadsInWindows(const Slot& s);

// Reads the start of the file once and picks the importers that read it; sets `skip` with the
// reason when none does, `error` when it cannot be read.
void Recognise(Slot& s, const LoadOptions& options);

// The size and hashes of a slot's text (whole, and its first kHeadDigestBytes), where it was read
// as text.
void Digest(Slot& s);

// The hash of the first kHeadDigestBytes of a text over the limit (over_limit), as Digest's.
void DigestHead(Slot& s);

// The size and TextHash of a text over the limit (over_limit), read in windows of `window` bytes
// one at a time; no digest when it cannot be read to its end.
void DigestWhole(Slot& s, size_t window);

// Copies among the inputs read on the workers, found before the texts over the limit are read in
// windows: a text over the limit whose start (first 4 KiB) another input shares is hashed whole,
// one window at a time; one with the size and hash of an earlier one is its copy. A text that is
// the start of another (same first 4 KiB, then compared, or hashed to its length where one is
// over the limit) is marked a copy of the longest. A copy is not read: the NCCL logs of a job
// copied twice, or while it ran and again at its end, counted each process twice.
void MarkCopies(std::vector<Slot>& slots, const LoadOptions& options);

// What was done to a file's text to read it, in input quality: converted from UTF-16, a gzip
// stream cut short, or read as it was when opened because it was still growing.
void NoteText(const FileText& t, Job& job);

// A text too large to hold whole, its format's importer reading it window by window: each
// importer that can (Importer::windows) into a part of its own, merged in order once the file is
// read (into `merge`, or else into `job`); the others are named as not read.
Status ParseWindows(Slot& s, Job& job, JobMerge* merge, const LoadOptions& options);

}  // namespace commdx::ingest::load
