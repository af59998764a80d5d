// A progress line on a terminal while inputs are read: shown on stderr only when it is a TTY
// and only once reading has taken over a second and is estimated to need more than another
// second, so short runs, pipes and CI logs never see it. Every file reader of the process feeds
// one line (bytes of input read of bytes known, files done of files planned), from any thread:
// trace readers as they go, the other formats' readers when a file is parsed.
#pragma once

#include <cstdint>
#include <string>

namespace commdx::ingest {

class ReadProgress {
 public:
  // A set of files is about to be read: `total` input bytes that their readers announce again
  // in Begin, so that the line counts the whole set from the start, not the files in flight
  // (64 ranks read two at a time would never look long).
  static void Plan(uint64_t total, uint64_t files = 0);
  // A reader starts: `total` more input bytes (compressed bytes for gzip) are expected; taken
  // from what was planned first.
  static void Begin(uint64_t total);
  // `bytes` more of them were read; the line is redrawn at most a few times a second. When every
  // expected byte is read the line is erased.
  static void Advance(uint64_t bytes);
  // One planned file is done (read, or given up).
  static void FileDone();

  // The set is read, or given up (a planned file that no reader took): the line is erased and
  // the counts start again.
  static void End();
  // Bytes read and expected in this round (for tests).
  static uint64_t DoneBytes();
  static uint64_t TotalBytes();
  static uint64_t FilesDone();

  // Whether a line is due after `elapsed_s` seconds with `done` of `total` bytes read.
  static bool Due(double elapsed_s, uint64_t done, uint64_t total);
  // The line's text, e.g. "reading inputs: 42% (1.2 of 2.9 GB, 310 of 1024 files), about 3 s
  // left"; without the files when none were planned.
  static std::string Text(double elapsed_s, uint64_t done, uint64_t total, uint64_t files_done = 0,
                          uint64_t files = 0);
};

}  // namespace commdx::ingest
