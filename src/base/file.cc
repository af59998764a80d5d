#include "base/file.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "base/text_input.h"

namespace commdx {

bool LooksGzip(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
         static_cast<unsigned char>(data[1]) == 0x8b;
}

namespace {

// A gzip error's place: the decompressed text's line:col (what an editor shows after gunzip);
// the compressed offset goes in the message.
Error GzipError(const std::string& name, const std::string& what, uint64_t compressed_at,
                std::string_view out) {
  LineCol lc = LocateOffset(out, out.size());
  SourceLoc loc{name};
  loc.line = lc.line;
  loc.col = lc.col;
  loc.offset = out.size();
  loc.has_offset = true;
  return MakeError(ErrorCode::kBadInput,
                   what + " at compressed byte " + std::to_string(compressed_at) + " (" +
                       std::to_string(out.size()) + " bytes decompressed)",
                   loc);
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

Result<std::string> Gunzip(std::string_view compressed, const std::string& name,
                           uint64_t max_bytes) {
  std::string out;
  out.reserve(std::min<uint64_t>(compressed.size() * 4, std::min<uint64_t>(max_bytes, 1ull << 30)));
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK)
    return MakeError(ErrorCode::kInternal, "zlib inflateInit2 failed", {name});
  size_t pos = 0;
  char buf[1 << 16];
  int rc = Z_OK;
  while (true) {
    if (zs.avail_in == 0 && pos < compressed.size()) {
      size_t chunk = std::min<size_t>(compressed.size() - pos, 1u << 30);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data() + pos));
      zs.avail_in = static_cast<uInt>(chunk);
      pos += chunk;
    }
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof buf - zs.avail_out);
    const uint64_t consumed = pos - zs.avail_in;
    if (max_bytes && out.size() > max_bytes) {
      inflateEnd(&zs);
      return MakeError(ErrorCode::kBadInput,
                       "decompression stopped after " + Mib(out.size()) + " from " +
                           std::to_string(consumed) + " compressed bytes: over the limit of " +
                           Mib(max_bytes) +
                           " for a file read whole (a quarter of memory or of `ulimit -v`; "
                           "docs/inputs.md): a gzip bomb, or a log too large to hold",
                       {name});
    }
    if (rc == Z_STREAM_END) {
      // Concatenated gzip members (e.g. `cat a.gz b.gz`) are valid gzip: keep going.
      if (consumed < compressed.size() && LooksGzip(compressed.substr(consumed))) {
        inflateReset(&zs);
        continue;
      }
      break;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && pos >= compressed.size()) {
      inflateEnd(&zs);
      return GzipError(name, "truncated gzip stream: compressed data ends", pos, out);
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      std::string why = zs.msg ? zs.msg : "inflate error " + std::to_string(rc);
      inflateEnd(&zs);
      return GzipError(name, "corrupt gzip data: " + why, consumed, out);
    }
  }
  inflateEnd(&zs);
  return out;
}

Result<std::string> ReadAll(const OpenedInput& in, const std::string& path, uint64_t max_bytes,
                            uint64_t* grew_bytes) {
  std::string raw;
  if (!in.pipe()) raw.reserve(static_cast<size_t>(std::min<uint64_t>(in.size(), max_bytes)));
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
    if (raw.size() > max_bytes)
      return MakeError(ErrorCode::kBadInput,
                       "larger than the limit of " + std::to_string(max_bytes) +
                           " bytes for a file read whole (docs/inputs.md)",
                       {path});
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
    COMMDX_ASSIGN_OR_RETURN(file.data, Gunzip(raw, path, limit));
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
    ssize_t got = pread(in.fd(), tail.data() + have, bytes - have,
                        static_cast<off_t>(size - bytes + have));
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
  int fd = dup(in.fd());
  if (fd < 0) return MakeError(ErrorCode::kBadInput, OsReason(errno), {path});
  gzFile f = gzdopen(fd, "rb");  // reads plain files as they are
  if (!f) {
    close(fd);
    return MakeError(ErrorCode::kBadInput, "cannot open file for reading", {path});
  }
  std::string head(bytes, '\0');
  size_t have = 0;
  int errnum = Z_OK;
  while (have < bytes) {
    unsigned want = static_cast<unsigned>(std::min<size_t>(bytes - have, 1u << 30));
    int got = gzread(f, head.data() + have, want);
    if (got <= 0) {
      const char* msg = gzerror(f, &errnum);
      // A gzip stream cut short (a job killed while it wrote): its start is still its start.
      if (errnum == Z_BUF_ERROR && have > 0) {
        errnum = Z_OK;
        break;
      }
      if (got < 0 || errnum != Z_OK) {
        std::string why = msg ? msg : "read error";
        gzclose(f);
        return MakeError(ErrorCode::kBadInput, why, {path});
      }
      break;
    }
    have += static_cast<size_t>(got);
  }
  gzerror(f, &errnum);
  gzclose(f);
  if (errnum != Z_OK && !(errnum == Z_BUF_ERROR && have > 0))
    return MakeError(ErrorCode::kBadInput, "corrupt start of file", {path});
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
  loc.line = line_;
  loc.col = static_cast<uint32_t>(end - line_start_ + 1);
  loc.offset = offset;
  loc.has_offset = true;
  return loc;
}

SourceLoc LocAt(const FileText& file, uint64_t offset) {
  SourceLoc loc{file.path};
  auto lc = LocateOffset(file.data, offset);
  loc.line = lc.line;
  loc.col = lc.col;
  loc.offset = offset;
  loc.has_offset = true;
  return loc;
}

}  // namespace commdx
