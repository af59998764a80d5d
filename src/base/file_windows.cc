#include "base/file_windows.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

#include "base/front_reader.h"
#include "base/gzip_stream.h"
#include "base/input_path.h"

namespace commdx {

namespace {

// How a pass over a file's windows went.
struct Pass {
  uint64_t bytes = 0;  // text handed over
  uint64_t windows = 0;
  uint64_t cut_lines = 0;
  uint64_t compressed_bytes = 0;
  uint64_t dropped_tail_bytes = 0;
  bool gzip = false;
  bool gzip_cut = false;
  std::optional<Error> stopped;
};

using TextRead = std::function<Result<size_t>(char*, size_t)>;

// The one loop of every reader: text from `read`, in windows of whole lines of about `window`
// bytes, each handed to `visit` with its offset in the text; `visit` returns true to stop. At the
// end, an unfinished last line is left out when `drop_unfinished` says so (the file grew: its
// writer is halfway through that line).
void WindowLoop(const TextRead& read, size_t window, const std::function<bool()>& drop_unfinished,
                const std::function<bool(std::string_view, uint64_t)>& visit, Pass& pass) {
  std::string buf(2 * window, '\0');
  size_t have = 0;
  bool end = false;
  while (!end || have > 0) {
    while (!end && have < buf.size()) {
      Result<size_t> got = read(buf.data() + have, buf.size() - have);
      if (!got) {  // corrupt or unreadable further on: what came before is handed over
        pass.stopped = std::move(got).error();
        end = true;
        break;
      }
      if (*got == 0) end = true;
      have += *got;
    }
    // Up to `window` bytes, ending after a line's end where there is one.
    size_t take = std::min(have, window);
    bool last = end && take == have;
    if (!last) {
      const size_t nl = std::string_view(buf.data(), take).find_last_of('\n');
      if (nl != std::string_view::npos)
        take = nl + 1;
      else
        ++pass.cut_lines;
    } else if (take > 0 && buf[take - 1] != '\n' && drop_unfinished && drop_unfinished()) {
      const size_t nl = std::string_view(buf.data(), take).find_last_of('\n');
      const size_t keep = nl == std::string_view::npos ? 0 : nl + 1;
      pass.dropped_tail_bytes = take - keep;
      take = keep;
      have = keep;  // the unfinished line is not handed over
    }
    if (take == 0) break;
    if (visit(std::string_view(buf.data(), take), pass.bytes)) break;
    pass.bytes += take;
    ++pass.windows;
    std::memmove(buf.data(), buf.data() + take, have - take);
    have -= take;
  }
}

// A regular file's text (gzip inflated), no further than `raw_end` bytes of the file, through
// WindowLoop.
Status EachWindow(const OpenedInput& in, const std::string& path, size_t window, uint64_t raw_end,
                  const std::function<bool()>& drop_unfinished,
                  const std::function<bool(std::string_view, uint64_t)>& visit, Pass& pass) {
  FrontReader front(in, path);
  front.end = raw_end;
  COMMDX_ASSIGN_OR_RETURN(size_t have_magic, front.Magic());
  auto read_raw = [&front](char* dst, size_t n) { return front.Read(dst, n); };
  std::unique_ptr<GzipStream> gz;
  size_t magic_left = have_magic;  // a plain file's first bytes, read to look for gzip's
  if (LooksGzip(std::string_view(front.magic, have_magic))) {
    gz = std::make_unique<GzipStream>(path, read_raw, std::string_view(front.magic, have_magic));
    pass.gzip = true;
    magic_left = 0;
  }
  WindowLoop(
      [&](char* dst, size_t n) -> Result<size_t> {
        if (gz) return gz->Read(dst, n);
        if (magic_left == 0) return read_raw(dst, n);
        const size_t give = std::min(n, magic_left);
        std::memcpy(dst, front.magic + (have_magic - magic_left), give);
        magic_left -= give;
        return give;
      },
      window, drop_unfinished, visit, pass);
  pass.gzip_cut = gz && gz->cut_short();
  pass.compressed_bytes = front.at;
  return Ok{};
}

uint64_t CountLines(std::string_view s) {
  uint64_t n = 0;
  for (size_t at = 0; at < s.size(); ++at, ++n) {
    const void* nl = std::memchr(s.data() + at, '\n', s.size() - at);
    if (!nl) break;
    at = static_cast<size_t>(static_cast<const char*>(nl) - s.data());
  }
  return n;
}

}  // namespace

Status ScanWindows(const std::string& path, size_t window,
                   const std::function<bool(std::string_view)>& visit) {
  COMMDX_ASSIGN_OR_RETURN(OpenedInput in, OpenInput(path));
  if (in.pipe()) return MakeError(ErrorCode::kInternal, "ScanWindows on a pipe", {path});
  Pass pass;
  return EachWindow(
      in, path, window, UINT64_MAX, nullptr,
      [&](std::string_view text, uint64_t) { return visit(text); }, pass);
}

namespace {

// The windows of a pass as FileTexts that know their first line and byte, and what the pass read.
// `run` makes the pass, handing its windows to the function it is given.
WindowedRead Windows(
    const std::string& path, const std::function<void(const FileText&)>& visit,
    const std::function<void(const std::function<bool(std::string_view, uint64_t)>&, Pass&)>& run) {
  FileText w;
  w.path = path;
  uint64_t line = 1;
  Pass pass;
  run(
      [&](std::string_view text, uint64_t offset) {
        w.data.assign(text);
        w.first_line = line;
        w.first_offset = offset;
        visit(w);
        line += CountLines(text);
        return false;
      },
      pass);
  WindowedRead out;
  out.file.path = path;
  out.file.was_gzip = pass.gzip;
  out.file.compressed_bytes = pass.compressed_bytes;
  out.file.gzip_cut = pass.gzip_cut;
  out.file.dropped_tail_bytes = pass.dropped_tail_bytes;
  out.bytes = pass.bytes;
  out.windows = pass.windows;
  out.cut_lines = pass.cut_lines;
  if (pass.stopped) {
    SourceLoc at{path};
    at.line = static_cast<uint32_t>(std::min<uint64_t>(line, UINT32_MAX));  // the next line
    at.offset = pass.bytes;
    at.has_offset = true;
    out.stopped = MakeError(ErrorCode::kBadInput,
                            "unreadable after " + std::to_string(pass.bytes) +
                                " bytes of text (" + pass.stopped->message +
                                "): the text before was read",
                            at);
  }
  return out;
}

}  // namespace

Result<WindowedRead> ReadWindows(const std::string& path, size_t window,
                                 const std::function<void(const FileText&)>& visit) {
  COMMDX_ASSIGN_OR_RETURN(OpenedInput in, OpenInput(path));
  if (in.pipe()) return MakeError(ErrorCode::kInternal, "ReadWindows on a pipe", {path});
  auto size_now = [&]() -> uint64_t {
    struct stat now {};
    return fstat(in.fd(), &now) == 0 ? static_cast<uint64_t>(now.st_size) : 0;
  };
  Status opened = Ok{};
  WindowedRead out = Windows(path, visit, [&](const auto& each, Pass& pass) {
    opened = EachWindow(in, path, window, in.size(), [&] { return size_now() > in.size(); }, each,
                        pass);
  });
  COMMDX_TRY(opened);
  if (const uint64_t now = size_now(); now > in.size()) out.file.grew_bytes = now - in.size();
  return out;
}

WindowedRead ReadTextWindows(const std::string& path, size_t window, const TextRead& read,
                             const std::function<void(const FileText&)>& visit) {
  return Windows(path, visit, [&](const auto& each, Pass& pass) {
    WindowLoop(read, window, nullptr, each, pass);
  });
}

}  // namespace commdx
