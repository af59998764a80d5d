#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#include "base/file_windows.h"
#include "ingest/load_slot.h"
#include "ingest/nsys/nsys_rep.h"
#include "ingest/own_report.h"
#include "ingest/pipe_head.h"

namespace commdx::ingest::load {

namespace {

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

// Whether a text's first byte past blanks (and a UTF-8 byte-order mark) opens a JSON object.
bool StartsAsJsonObject(std::string_view head) {
  if (head.starts_with("\xEF\xBB\xBF")) head.remove_prefix(3);
  const size_t at = head.find_first_not_of(" \t\r\n");
  return at == std::string_view::npos || head[at] == '{';
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
  static constexpr std::string_view kWords[] = {"NCCL",
                                                " INFO ",
                                                " WARN ",
                                                "busbw",
                                                "nccl-tests",
                                                "Collective test",
                                                "Heartbeat",
                                                "dump debug info",
                                                "monitoredBarrier",
                                                "between collectives",
                                                "Collective sequence",
                                                "collective entry",
                                                "ranks joining",
                                                "Input/output mismatch",
                                                "Missing dump files",
                                                "Test CUDA failure",
                                                "GPU0"};
  // memmem: glibc's is several times string_view::find's speed.
  for (std::string_view word : kWords)
    if (memmem(w.data(), w.size(), word.data(), word.size())) return true;
  return false;
}

// Whether a format that shares a file may be read (`commdx trace` reads none: a text file given
// to it is not scanned to its end, 1.5 s for 300 MB, before it is refused).
bool SharedFormatAllowed(const LoadOptions& options) {
  return std::any_of(Importers().begin(), Importers().end(), [&](const Importer& imp) {
    return imp.shares_file && Allowed(options, imp.kind);
  });
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

}  // namespace

bool Allowed(const LoadOptions& options, InputKind kind) {
  if (std::find(options.skip.begin(), options.skip.end(), kind) != options.skip.end()) return false;
  return options.only.empty() ||
         std::find(options.only.begin(), options.only.end(), kind) != options.only.end();
}

bool ReadsInWindows(const Slot& s) {
  return !s.streamed && !s.imps.empty() && !s.imps.front()->stream &&
         std::any_of(s.imps.begin(), s.imps.end(), [](const Importer* i) { return i->windows; });
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
  std::unique_ptr<PipeInput> pipe;  // its start read and kept: the rest only once it is known
  if (s.pipe) {
    auto opened = PipeInput::Open(s.path, kSniffBytes);
    if (!opened) return void(s.error = opened.error());
    pipe = std::move(opened).value();
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
  // ncclras prints NCCL's version line, which alone would pass for an NCCL log: a RAS report
  // shares its file with the lines pasted after it (a watchdog timeout), not with that reading.
  if (!s.imps.empty() && s.imps.front()->kind == InputKind::kRas)
    std::erase_if(s.imps, [](const Importer* imp) { return imp->kind == InputKind::kNcclLog; });
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
  if (s.imps.empty() && head.size() >= kSniffBytes && LooksLikeText(head) &&
      SharedFormatAllowed(options))
    SniffWindows(s, options);
  // An Nsight Systems report has no documented signature: known by its name, converted by nsys.
  if (s.imps.empty() && nsys::IsReportName(s.path) && Allowed(options, InputKind::kNsys))
    s.imps.push_back(FindImporter(InputKind::kNsys));
  // A named file is read as the first kind anyway (its reader names the broken place), unless
  // it is an archive or a compression commdx does not open: then that is the answer.
  if (s.imps.empty() && options.force_single && s.named && !options.only.empty() &&
      PackedHint(head).empty()) {
    const Importer* imp = FindImporter(options.only.front());
    // A pipe that does not even start as JSON is not read on to be parsed: the reader's error
    // about its start is the answer (300 MB of junk piped to `commdx trace -` was held whole).
    if (imp && pipe && imp->kind == InputKind::kKineto && !StartsAsJsonObject(head)) {
      Job scratch;
      FileText start{s.path, head};
      if (Status st = imp->parse(start, scratch); !st) return void(s.error = st.error());
    }
    if (imp) s.imps.push_back(imp);
  }
  if (s.imps.empty()) return void(s.skip = WhyNotRead(head, options));
  if (pipe) {  // a format reads it: now the rest of the pipe
    auto text = pipe->ReadRest(options.max_text_bytes ? options.max_text_bytes : DefaultMaxBytes());
    // A console log past the limit goes on in windows from what was read (UTF-16 is converted
    // only in a text held whole).
    if (!text && text.error().code == ErrorCode::kTooLarge && ReadsInWindows(s) &&
        !pipe->converted())
      return void(s.pipe_over = std::move(pipe));
    if (!text) return void(s.error = text.error());
    s.text = std::move(text).value();
  }
}

}  // namespace commdx::ingest::load
