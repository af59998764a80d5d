#include "base/file.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "base/text_input.h"

namespace commdx {

namespace fs = std::filesystem;

bool LooksGzip(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
         static_cast<unsigned char>(data[1]) == 0x8b;
}

Result<std::string> Gunzip(std::string_view compressed, const std::string& name,
                           uint64_t max_bytes) {
  std::string out;
  out.reserve(std::min<uint64_t>(compressed.size() * 4, 1ull << 30));
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
    if (max_bytes && out.size() > max_bytes) {
      inflateEnd(&zs);
      return MakeError(ErrorCode::kBadInput,
                       "decompressed size exceeds the limit of " + std::to_string(max_bytes) +
                           " bytes",
                       {name});
    }
    if (rc == Z_STREAM_END) {
      // Concatenated gzip members (e.g. `cat a.gz b.gz`) are valid gzip: keep going.
      size_t consumed = pos - zs.avail_in;
      if (consumed < compressed.size() && LooksGzip(compressed.substr(consumed))) {
        inflateReset(&zs);
        continue;
      }
      break;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && pos >= compressed.size()) {
      uint64_t at = pos;
      inflateEnd(&zs);
      SourceLoc loc{name};
      loc.offset = at;
      loc.has_offset = true;
      return MakeError(ErrorCode::kBadInput,
                       "truncated gzip stream: compressed data ends after " +
                           std::to_string(at) + " bytes (" + std::to_string(out.size()) +
                           " bytes decompressed)",
                       loc);
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      uint64_t at = pos - zs.avail_in;
      std::string why = zs.msg ? zs.msg : "inflate error " + std::to_string(rc);
      inflateEnd(&zs);
      SourceLoc loc{name};
      loc.offset = at;
      loc.has_offset = true;
      return MakeError(ErrorCode::kBadInput, "corrupt gzip data: " + why, loc);
    }
  }
  inflateEnd(&zs);
  return out;
}

Result<FileText> ReadFile(const std::string& path, const ReadOptions& options) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    return MakeError(ErrorCode::kBadInput, "no such file", {path});
  if (fs::is_directory(path, ec))
    return MakeError(ErrorCode::kBadInput, "is a folder, expected a file", {path});
  std::ifstream in(path, std::ios::binary);
  if (!in) return MakeError(ErrorCode::kBadInput, "cannot open file for reading", {path});
  FileText file;
  file.path = path;
  in.seekg(0, std::ios::end);
  auto size = in.tellg();
  in.seekg(0, std::ios::beg);
  std::string raw;
  if (size > 0) {
    raw.resize(static_cast<size_t>(size));
    in.read(raw.data(), size);
    if (!in) return MakeError(ErrorCode::kBadInput, "read error", {path});
  } else {
    // Pipes and /proc files report size 0: read until EOF.
    raw.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  file.compressed_bytes = raw.size();
  if (LooksGzip(raw)) {
    auto inflated = Gunzip(raw, path, options.max_bytes);
    if (!inflated) return std::move(inflated).error();
    file.data = std::move(inflated).value();
    file.was_gzip = true;
  } else {
    if (options.max_bytes && raw.size() > options.max_bytes)
      return MakeError(ErrorCode::kBadInput,
                       "file is larger than the limit of " + std::to_string(options.max_bytes) +
                           " bytes",
                       {path});
    file.data = std::move(raw);
  }
  NormalizeInputText(file.data);
  return file;
}

Result<std::string> ReadHead(const std::string& path, size_t bytes) {
  gzFile f = gzopen(path.c_str(), "rb");  // reads plain files as they are
  if (!f) return MakeError(ErrorCode::kBadInput, "cannot open file for reading", {path});
  std::string head(bytes, '\0');
  size_t have = 0;
  int errnum = Z_OK;
  while (have < bytes) {
    unsigned want = static_cast<unsigned>(std::min<size_t>(bytes - have, 1u << 30));
    int got = gzread(f, head.data() + have, want);
    if (got <= 0) {
      const char* msg = gzerror(f, &errnum);
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
  if (errnum != Z_OK) return MakeError(ErrorCode::kBadInput, "corrupt start of file", {path});
  head.resize(have);
  NormalizeInputText(head);
  return head;
}

Result<std::vector<std::string>> ExpandInputPaths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::error_code ec;
    auto status = fs::status(p, ec);
    if (ec || !fs::exists(status))
      return MakeError(ErrorCode::kBadInput, "no such file or folder", {p});
    if (!fs::is_directory(status)) {
      out.push_back(p);
      continue;
    }
    std::vector<std::string> found;
    auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
    if (ec) return MakeError(ErrorCode::kBadInput, "cannot list folder: " + ec.message(), {p});
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) return MakeError(ErrorCode::kBadInput, "cannot list folder: " + ec.message(), {p});
      const auto name = it->path().filename().string();
      if (!name.empty() && name[0] == '.') {
        if (it->is_directory(ec)) it.disable_recursion_pending();
        continue;
      }
      if (it->is_regular_file(ec)) found.push_back(it->path().string());
    }
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
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
