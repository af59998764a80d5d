#include "ingest/kineto/json/byte_source.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "base/file.h"
#include "base/gzip_stream.h"
#include "base/mapped_file.h"

namespace commdx::ingest::kineto {

namespace {

// The decompressed size a gzip input will likely have, from the ISIZE field of its trailer (the
// last 4 bytes: the last member's size mod 2^32). Below the compressed size it has wrapped or
// names a small last member; then a typical trace's ratio (~10x) is the guess.
uint64_t ExpectedInflated(uint64_t compressed, std::string_view tail) {
  if (tail.size() != 4) return compressed * 10;
  uint32_t isize = 0;
  for (int i = 3; i >= 0; --i) isize = isize << 8 | static_cast<unsigned char>(tail[i]);
  return isize >= compressed ? isize : compressed * 10;
}

// Raw bytes: a FILE* or a memory span.
class RawReader {
 public:
  virtual ~RawReader() = default;
  virtual Result<size_t> Read(char* dst, size_t n) = 0;
};

class FileReader final : public RawReader {
 public:
  FileReader(std::FILE* f, std::string name) : f_(f), name_(std::move(name)) {}
  ~FileReader() override { std::fclose(f_); }
  Result<size_t> Read(char* dst, size_t n) override {
    size_t got = std::fread(dst, 1, n, f_);
    if (got < n && std::ferror(f_))
      return MakeError(ErrorCode::kBadInput, std::string("read error: ") + std::strerror(errno),
                       {name_});
    return got;
  }

 private:
  std::FILE* f_;
  std::string name_;
};

class SpanReader final : public RawReader {
 public:
  explicit SpanReader(std::string_view data) : data_(data) {}
  Result<size_t> Read(char* dst, size_t n) override {
    size_t k = std::min(n, data_.size() - pos_);
    if (k) std::memcpy(dst, data_.data() + pos_, k);
    pos_ += k;
    return k;
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

class PlainSource final : public ByteSource {
 public:
  PlainSource(std::unique_ptr<RawReader> raw, std::string_view head, uint64_t size)
      : raw_(std::move(raw)), head_(head), size_(size) {}
  Result<size_t> Read(char* dst, size_t n) override {
    if (head_pos_ < head_.size()) {  // the bytes already read to sniff gzip
      size_t k = std::min(n, head_.size() - head_pos_);
      std::memcpy(dst, head_.data() + head_pos_, k);
      head_pos_ += k;
      return k;
    }
    return raw_->Read(dst, n);
  }
  uint64_t size_hint() const override { return size_; }

 private:
  std::unique_ptr<RawReader> raw_;
  std::string head_;
  size_t head_pos_ = 0;
  uint64_t size_;
};

// Inflates gzip as it is read (base/gzip_stream.h: every member; a stream cut short ends the
// data, cut_short()).
class GzipSource final : public ByteSource {
 public:
  GzipSource(std::unique_ptr<RawReader> raw, std::string_view head, std::string name,
             uint64_t compressed, uint64_t expected)
      : raw_(std::move(raw)),
        compressed_(compressed),
        expected_(expected),
        gz_(
            std::move(name), [r = raw_.get()](char* dst, size_t n) { return r->Read(dst, n); },
            head) {}
  bool was_gzip() const override { return true; }
  uint64_t compressed_bytes() const override { return compressed_; }
  uint64_t compressed_read() const override { return gz_.compressed_read(); }
  uint64_t expected_bytes() const override { return expected_; }
  bool cut_short() const override { return gz_.cut_short(); }
  Result<size_t> Read(char* dst, size_t n) override { return gz_.Read(dst, n); }

 private:
  std::unique_ptr<RawReader> raw_;
  uint64_t compressed_;
  uint64_t expected_;
  GzipStream gz_;
};

// A plain file mapped whole; Read() still works (from the mapping) for callers that copy. The
// mapping survives the file being cut short (base/mapped_file.h): the loader then reports the
// file as changed while reading.
class MappedSource final : public ByteSource {
 public:
  explicit MappedSource(MappedFile map)
      : map_(std::move(map)), data_(map_.data()), size_(map_.size()) {}
  Result<size_t> Read(char* dst, size_t n) override {
    size_t k = std::min(n, size_ - pos_);
    std::memcpy(dst, data_ + pos_, k);
    pos_ += k;
    return k;
  }
  uint64_t size_hint() const override { return size_; }
  char* mapped() override { return data_; }
  void Release(uint64_t offset) override {
    const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    uint64_t upto = std::min<uint64_t>(offset, size_) / page * page;
    if (upto <= released_) return;
    madvise(data_ + released_, upto - released_, MADV_DONTNEED);
    released_ = upto;
  }

 private:
  MappedFile map_;
  char* data_;
  size_t size_;
  size_t pos_ = 0;
  uint64_t released_ = 0;
};

// Maps `path` if it is a non-empty regular file that is not gzip; null otherwise.
std::unique_ptr<ByteSource> TryMap(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return nullptr;
  struct stat st {};
  std::unique_ptr<ByteSource> out;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 2) {
    char magic[2];
    if (pread(fd, magic, 2, 0) == 2 && !LooksGzip(std::string_view(magic, 2))) {
      if (auto map = MappedFile::Map(fd, static_cast<size_t>(st.st_size), path)) {
        madvise(map->data(), map->size(), MADV_SEQUENTIAL);
        out = std::make_unique<MappedSource>(std::move(map).value());
      }
    }
  }
  close(fd);
  return out;
}

// `tail`: the input's last 4 bytes where they could be read (a gzip trailer's ISIZE).
std::unique_ptr<ByteSource> Wrap(std::unique_ptr<RawReader> raw, std::string_view head,
                                 const std::string& name, uint64_t size, std::string_view tail) {
  if (LooksGzip(head)) {
    const uint64_t expected = ExpectedInflated(size, tail);
    return std::make_unique<GzipSource>(std::move(raw), head, name, size, expected);
  }
  return std::make_unique<PlainSource>(std::move(raw), head, size);
}

}  // namespace

Result<std::unique_ptr<ByteSource>> OpenFileSource(const std::string& path, bool map) {
  if (map)
    if (auto m = TryMap(path)) return m;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f)
    return MakeError(ErrorCode::kBadInput, std::string("cannot open file: ") + std::strerror(errno),
                     {path});
  uint64_t size = 0;
  char tail[4];
  size_t tail_len = 0;
  if (std::fseek(f, 0, SEEK_END) == 0) {
    long s = std::ftell(f);
    if (s > 0) size = static_cast<uint64_t>(s);
    if (size >= sizeof tail && std::fseek(f, -static_cast<long>(sizeof tail), SEEK_END) == 0)
      tail_len = std::fread(tail, 1, sizeof tail, f);
    std::fseek(f, 0, SEEK_SET);
  }
  auto raw = std::make_unique<FileReader>(f, path);
  char head[2];
  COMMDX_ASSIGN_OR_RETURN(size_t got, raw->Read(head, 2));
  return Wrap(std::move(raw), std::string_view(head, got), path, size,
              std::string_view(tail, tail_len));
}

std::unique_ptr<ByteSource> MemorySource(std::string_view data, const std::string& name) {
  auto raw = std::make_unique<SpanReader>(data.substr(std::min<size_t>(2, data.size())));
  return Wrap(std::move(raw), data.substr(0, 2), name, data.size(),
              data.size() >= 4 ? data.substr(data.size() - 4) : std::string_view());
}

LineColResult LocateByRereading(ByteSource& src, uint64_t offset) {
  LineColResult lc{1, 1};
  std::vector<char> buf(1 << 20);
  uint64_t pos = 0;
  while (pos < offset) {
    auto got =
        src.Read(buf.data(), static_cast<size_t>(std::min<uint64_t>(buf.size(), offset - pos)));
    if (!got || *got == 0) break;
    for (size_t i = 0; i < *got; ++i) {
      if (buf[i] == '\n') {
        ++lc.line;
        lc.col = 1;
      } else {
        ++lc.col;
      }
    }
    pos += *got;
  }
  return lc;
}

}  // namespace commdx::ingest::kineto
