#include "base/file.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <system_error>
#include <vector>

#include "base/front_reader.h"
#include "base/gzip_stream.h"
#include "base/text_input.h"

namespace commdx {

bool LooksGzip(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
         static_cast<unsigned char>(data[1]) == 0x8b;
}

namespace {

// A gzip error's place: the decompressed text's line:col (what an editor shows after gunzip);
// the compressed offset is in `what`.
Error GzipError(const std::string& name, const std::string& what, std::string_view out) {
  LineCol lc = LocateOffset(out, out.size());
  SourceLoc loc{name};
  loc.line = lc.line;
  loc.col = lc.col;
  loc.offset = out.size();
  loc.has_offset = true;
  return MakeError(ErrorCode::kBadInput,
                   what + " (" + std::to_string(out.size()) + " bytes decompressed)", loc);
}

std::string Mib(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

uint64_t DefaultMaxBytes() {
  uint64_t mem =
      static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  struct rlimit as {};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    mem = std::min<uint64_t>(mem, static_cast<uint64_t>(as.rlim_cur));
  return std::clamp<uint64_t>(mem / 4, 256ull << 20, 4ull << 30);
}

void GrowFor(std::string& out, size_t more, uint64_t max_bytes) {
  if (out.capacity() - out.size() >= more) return;
  uint64_t cap = std::max<uint64_t>(2 * out.capacity(), out.size() + more);
  // Past half the limit, straight to the limit (and a read's worth): each doubling copies the
  // text, old and new held at once, and one past the limit would ask for twice what may be held.
  if (max_bytes && cap >= max_bytes / 2)
    cap = std::max<uint64_t>(max_bytes + (1 << 18), out.size() + more);
  out.reserve(static_cast<size_t>(cap));
}

Status InflateInto(GzipStream& gz, const std::string& name, uint64_t max_bytes, std::string& out,
                   bool* cut) {
  std::vector<char> buf(1 << 18);
  while (true) {
    Result<size_t> got = gz.Read(buf.data(), buf.size());
    if (!got) {  // corrupt: placed by line:col in what was decompressed
      Error e = std::move(got).error();
      return GzipError(name, e.message, out);
    }
    if (*got == 0) break;
    GrowFor(out, *got, max_bytes);
    out.append(buf.data(), *got);
    if (max_bytes && out.size() > max_bytes)
      return MakeError(ErrorCode::kTooLarge,
                       "decompression stopped after " + Mib(out.size()) + " from " +
                           std::to_string(gz.compressed_read()) +
                           " compressed bytes: over the limit of " + Mib(max_bytes) +
                           " for a file read whole (a quarter of memory or of `ulimit -v`; "
                           "docs/inputs.md): a gzip bomb, or a log too large to hold",
                       {name});
  }
  if (gz.cut_short() && cut) {
    *cut = true;
    return Ok{};
  }
  if (gz.cut_short())
    return GzipError(name, "truncated gzip stream: compressed data ends at compressed byte " +
                               std::to_string(gz.compressed_read()),
                     out);
  return Ok{};
}

Result<std::string> Gunzip(std::string_view compressed, const std::string& name, uint64_t max_bytes,
                           bool* cut) {
  std::string out;
  out.reserve(std::min<uint64_t>(compressed.size() * 4, std::min<uint64_t>(max_bytes, 1ull << 30)));
  size_t pos = 0;
  GzipStream gz(name, [&](char* dst, size_t n) -> Result<size_t> {
    const size_t k = std::min(n, compressed.size() - pos);
    std::memcpy(dst, compressed.data() + pos, k);
    pos += k;
    return k;
  });
  COMMDX_TRY(InflateInto(gz, name, max_bytes, out, cut));
  return out;
}

Result<std::string> ReadAll(const OpenedInput& in, const std::string& path, uint64_t max_bytes,
                            uint64_t* grew_bytes) {
  auto too_large = [&] {
    return MakeError(ErrorCode::kTooLarge,
                     "larger than the limit of " + std::to_string(max_bytes) +
                         " bytes for a file read whole (docs/inputs.md)",
                     {path});
  };
  // A regular file over the limit is refused before a byte is read: reading it up to the limit
  // first cost that much memory and time (for each such file on each worker at once).
  if (!in.pipe() && in.size() > max_bytes) return too_large();
  std::string raw;
  if (!in.pipe()) raw.reserve(static_cast<size_t>(in.size()));
  char buf[1 << 16];
  // A regular file is read up to the size it had when opened: a log the job is still writing
  // keeps growing, and what was there then is a consistent snapshot to diagnose.
  while (in.pipe() || raw.size() < in.size()) {
    size_t want = sizeof buf;
    if (!in.pipe()) want = static_cast<size_t>(std::min<uint64_t>(want, in.size() - raw.size()));
    ssize_t got = read(in.fd(), buf, want);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      return MakeError(ErrorCode::kBadInput, std::string("read error: ") + std::strerror(errno),
                       {path});
    if (got == 0) break;
    raw.append(buf, static_cast<size_t>(got));
    if (raw.size() > max_bytes) return too_large();
  }
  if (!in.pipe() && raw.size() != in.size())
    return MakeError(ErrorCode::kBadInput,
                     "changed while reading: " + std::to_string(in.size()) +
                         " bytes when opened, " + std::to_string(raw.size()) +
                         " read (cut short or replaced)",
                     {path});
  struct stat now {};
  if (!in.pipe() && grew_bytes && fstat(in.fd(), &now) == 0 &&
      static_cast<uint64_t>(now.st_size) > in.size())
    *grew_bytes = static_cast<uint64_t>(now.st_size) - in.size();
  return raw;
}

Result<FileText> ReadFile(const std::string& path, const ReadOptions& options) {
  const uint64_t limit = options.max_bytes ? options.max_bytes : DefaultMaxBytes();
  COMMDX_ASSIGN_OR_RETURN(OpenedInput in, OpenInput(path));
  uint64_t grew = 0;
  COMMDX_ASSIGN_OR_RETURN(std::string raw, ReadAll(in, path, limit, &grew));
  COMMDX_ASSIGN_OR_RETURN(FileText file, TextFromBytes(path, std::move(raw), options));
  if (grew > 0) {
    file.grew_bytes = grew;
    // The writer may be halfway through the last line: it ends at the last newline read.
    size_t end = file.data.rfind('\n');
    if (end != std::string::npos && end + 1 < file.data.size()) {
      file.dropped_tail_bytes = file.data.size() - (end + 1);
      file.data.resize(end + 1);
    }
  }
  return file;
}

Result<FileText> TextFromBytes(const std::string& path, std::string raw,
                               const ReadOptions& options) {
  const uint64_t limit = options.max_bytes ? options.max_bytes : DefaultMaxBytes();
  FileText file;
  file.path = path;
  file.compressed_bytes = raw.size();
  if (LooksGzip(raw)) {
    COMMDX_ASSIGN_OR_RETURN(file.data, Gunzip(raw, path, limit, &file.gzip_cut));
    file.was_gzip = true;
  } else {
    file.data = std::move(raw);
  }
  file.converted_from = NormalizeInputText(file.data);
  return file;
}

Result<std::string> ReadTail(const std::string& path, size_t bytes) {
  COMMDX_ASSIGN_OR_RETURN(OpenedInput in, OpenInput(path));
  if (in.pipe()) return std::string();
  struct stat st;
  if (fstat(in.fd(), &st) != 0) return MakeError(ErrorCode::kBadInput, OsReason(errno), {path});
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size <= bytes) return std::string();
  char magic[2] = {0, 0};
  if (pread(in.fd(), magic, 2, 0) == 2 && LooksGzip(std::string_view(magic, 2)))
    return std::string();
  std::string tail(bytes, '\0');
  size_t have = 0;
  while (have < bytes) {
    ssize_t got =
        pread(in.fd(), tail.data() + have, bytes - have, static_cast<off_t>(size - bytes + have));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return MakeError(ErrorCode::kBadInput, OsReason(errno), {path});
    if (got == 0) break;
    have += static_cast<size_t>(got);
  }
  tail.resize(have);
  const size_t nl = tail.find('\n');
  return nl == std::string::npos ? std::string() : tail.substr(nl + 1);
}


Result<std::string> ReadHead(const std::string& path, size_t bytes, const char** converted_from) {
  COMMDX_ASSIGN_OR_RETURN(OpenedInput in, OpenInput(path));
  if (in.pipe())  // a pipe's head would be used up: read it whole instead (LoadInputs does)
    return MakeError(ErrorCode::kInternal, "ReadHead on a pipe", {path});
  FrontReader front(in, path);
  COMMDX_ASSIGN_OR_RETURN(size_t have_magic, front.Magic());
  const char* magic = front.magic;
  auto read_raw = [&front](char* dst, size_t n) { return front.Read(dst, n); };
  std::string head(bytes, '\0');
  size_t have = 0;
  if (LooksGzip(std::string_view(magic, have_magic))) {
    GzipStream gz(path, read_raw, std::string_view(magic, have_magic));
    while (have < bytes) {
      Result<size_t> got = gz.Read(head.data() + have, bytes - have);
      if (!got) {
        // Corrupt after some text: the start read is still the start.
        if (have > 0) break;
        return std::move(got).error();
      }
      if (*got == 0) break;
      have += *got;
    }
    // A gzip stream cut short (a job killed while it wrote): its start is still its start.
    if (have == 0 && gz.cut_short())
      return MakeError(ErrorCode::kBadInput, "corrupt start of file: the gzip stream ends first",
                       {path});
  } else {
    std::memcpy(head.data(), magic, std::min(have_magic, bytes));
    have = std::min(have_magic, bytes);
    while (have < bytes) {
      COMMDX_ASSIGN_OR_RETURN(size_t got, read_raw(head.data() + have, bytes - have));
      if (got == 0) break;
      have += got;
    }
  }
  head.resize(have);
  const char* converted = NormalizeInputText(head);
  if (converted_from) *converted_from = converted;
  return head;
}

LineCol LocateOffset(std::string_view data, uint64_t offset) {
  LineCol lc;
  uint64_t end = std::min<uint64_t>(offset, data.size());
  uint64_t line_start = 0;
  for (uint64_t i = 0; i < end; ++i) {
    if (data[i] == '\n') {
      ++lc.line;
      line_start = i + 1;
    }
  }
  lc.col = static_cast<uint32_t>(end - line_start + 1);
  return lc;
}

SourceLoc LineLocator::At(uint64_t offset) {
  std::string_view data = file_.data;
  uint64_t end = std::min<uint64_t>(offset, data.size());
  if (end < pos_) pos_ = line_start_ = 0, line_ = 1;
  while (pos_ < end) {
    const void* nl = std::memchr(data.data() + pos_, '\n', end - pos_);
    if (!nl) {
      pos_ = end;
      break;
    }
    pos_ = static_cast<uint64_t>(static_cast<const char*>(nl) - data.data()) + 1;
    line_start_ = pos_;
    ++line_;
  }
  SourceLoc loc{file_.path};
  loc.line = WholeTextLine(file_, line_);
  loc.col = static_cast<uint32_t>(end - line_start_ + 1);
  loc.offset = file_.first_offset + offset;
  loc.has_offset = true;
  return loc;
}

SourceLoc LocAt(const FileText& file, uint64_t offset) {
  SourceLoc loc{file.path};
  auto lc = LocateOffset(file.data, offset);
  loc.line = WholeTextLine(file, lc.line);
  loc.col = lc.col;
  loc.offset = file.first_offset + offset;
  loc.has_offset = true;
  return loc;
}

}  // namespace commdx
