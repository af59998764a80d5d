// Log lines split over several lines by a terminal or an editor, put back together. A console
// wraps a long line at its width, mid-word ("...collective opera" / "tion timeout: WorkNCCL(");
// text pasted into an issue or a mail is wrapped at spaces ("ran for" / "1099 milliseconds").
// A record is read from its logical line with its spaces removed (`squeezed`), so both kinds of
// break read the same; keys are matched in that form (Sq("ran for") == "ranfor").
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace commdx::ingest::job_log {

struct LogicalLine {
  size_t start = 0;      // offset of its first physical line
  size_t end = 0;        // offset just past its last physical line (before the '\n')
  uint32_t lines = 1;    // physical lines joined
  std::string text;      // for people: the lines joined with one space where a word ended
  std::string squeezed;  // for parsing: no spaces, tabs or line breaks
};

// `s` without spaces, tabs, '\r' and '\n'.
std::string Squeeze(std::string_view s);

// Does this physical line begin a log record of its own (a rank or glog prefix, a traceback
// line, an NCCL line, a blank line), rather than continue the one above it?
bool StartsRecord(std::string_view line);

// The logical line holding data[at]: its physical line, plus the lines above it that it
// continues and the lines below that continue it. A line continues the one above it when that
// one is long (a wrap happens only in a long line) and it does not start a record of its own;
// `done(squeezed)` says the record is complete, so nothing after it is joined. At most 16
// physical lines.
LogicalLine LogicalLineAt(std::string_view data, size_t at, bool (*done)(std::string_view));

// The logical lines holding any of `probes`, each once, in file order: a wrap can split one
// probe of a record, not all of them.
std::vector<LogicalLine> RecordsWith(std::string_view data,
                                     std::initializer_list<std::string_view> probes,
                                     bool (*done)(std::string_view));

// Where the last logical line of `data` (whole lines) starts when a line after `data` could
// still continue it: its last line is long, so the text that follows (the next window of a file
// read in windows) may hold the rest of a wrapped record. `data.size()` when nothing is open: the
// last line is short, `data` does not end in a line end (a line cut to fit a window), or the open
// lines pass `max_bytes` (no terminal wraps a record that long).
size_t OpenTailStart(std::string_view data, size_t max_bytes);

// The rank a squeezed line speaks for: the launcher's "[rank3]:" (global rank) when `launcher`
// and present, else PyTorch's own "[Rank 3]" / "... Rank 3]"; -1 when none. A line of the
// default process group (PG ID 0, default_pg) gives PyTorch's rank first: there it is the global
// rank, and a launcher's prefix may count ranks per node.
int SqRankOf(std::string_view s, bool launcher_first);

// PG ID and description of a squeezed "[PGID2PGGUID9(desc)Rank4]" or "[PG2Rank4]" prefix.
void SqPgOf(std::string_view s, std::string& pg, std::string& desc);

// The PG GUID of a squeezed "[PGID2PGGUID9(desc)Rank4]" prefix ("9"): unlike the PG ID, which
// numbers the groups one process created, it names the group on every rank. Empty when none.
std::string SqPgGuidOf(std::string_view s);

}  // namespace commdx::ingest::job_log
