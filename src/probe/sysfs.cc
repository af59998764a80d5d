#include "probe/sysfs.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

#include "base/text.h"

namespace commdx::probe {

namespace fs = std::filesystem;

SysRoot::SysRoot(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  if (root_.empty()) root_ = "/";
}

std::string SysRoot::Path(std::string_view rel) const {
  while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
  if (root_ == "/") return "/" + std::string(rel);
  return root_ + "/" + std::string(rel);
}

std::optional<std::string> SysRoot::Read(std::string_view rel) const {
  // sysfs files report a size of 4096 whatever they hold; read until EOF, capped.
  std::ifstream in(Path(rel), std::ios::binary);
  if (!in) return std::nullopt;
  std::string s;
  char buf[4096];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    s.append(buf, static_cast<size_t>(in.gcount()));
    if (s.size() > (1u << 20)) break;
  }
  if (in.bad()) return std::nullopt;
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

std::optional<std::string> SysRoot::ReadBinary(std::string_view rel, size_t max_bytes) const {
  std::ifstream in(Path(rel), std::ios::binary);
  if (!in) return std::nullopt;
  std::string s(max_bytes, '\0');
  in.read(s.data(), static_cast<std::streamsize>(max_bytes));
  if (in.bad()) return std::nullopt;
  s.resize(static_cast<size_t>(in.gcount()));
  return s;
}

std::optional<int64_t> SysRoot::ReadInt(std::string_view rel) const {
  auto s = Read(rel);
  if (!s) return std::nullopt;
  return ParseInt(Trim(*s));
}

std::optional<uint64_t> SysRoot::ReadHex(std::string_view rel) const {
  auto s = Read(rel);
  if (!s) return std::nullopt;
  return ParseHex(Trim(*s));
}

bool SysRoot::Exists(std::string_view rel) const {
  std::error_code ec;
  return fs::exists(Path(rel), ec);
}

std::vector<std::string> SysRoot::List(std::string_view rel) const {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(Path(rel), ec), end; !ec && it != end; it.increment(ec))
    out.push_back(it->path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> SysRoot::Resolve(std::string_view rel) const {
  std::error_code ec;
  fs::path p = fs::canonical(Path(rel), ec);
  if (ec) return std::nullopt;
  std::string s = p.string();
  fs::path root_canon = fs::canonical(root_, ec);
  std::string r = ec ? root_ : root_canon.string();
  if (r == "/") return s.size() > 1 ? s.substr(1) : s;
  if (StartsWith(s, r + "/")) return s.substr(r.size() + 1);
  return s;
}

std::optional<std::string> SysRoot::ReadLink(std::string_view rel) const {
  std::error_code ec;
  fs::path p = fs::read_symlink(Path(rel), ec);
  if (ec) return std::nullopt;
  return p.string();
}

std::optional<std::string> StatusField(std::string_view text, std::string_view key) {
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == text.npos ? text.npos : nl - pos);
    if (StartsWith(line, key) && line.size() > key.size() && line[key.size()] == ':')
      return std::string(Trim(line.substr(key.size() + 1)));
    if (nl == text.npos) break;
    pos = nl + 1;
  }
  return std::nullopt;
}

std::string DriverVersionFromProc(std::string_view text) {
  std::string_view line = text.substr(0, text.find('\n'));
  if (!StartsWith(line, "NVRM version:")) return "";
  for (std::string_view w : SplitWhitespace(line.substr(13))) {
    bool digits_and_dots =
        std::all_of(w.begin(), w.end(), [](char c) { return IsDigit(c) || c == '.'; });
    if (digits_and_dots && Contains(w, ".") && IsDigit(w.front())) return std::string(w);
  }
  return "";
}

}  // namespace commdx::probe
