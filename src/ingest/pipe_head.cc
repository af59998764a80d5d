#include "ingest/pipe_head.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "base/text_input.h"

namespace commdx::ingest {

Result<std::unique_ptr<PipeInput>> PipeInput::Open(const std::string& path, size_t bytes) {
  COMMDX_ASSIGN_OR_RETURN(OpenedInput in, OpenInput(path));
  std::unique_ptr<PipeInput> p(new PipeInput(path, std::move(in)));
  p->raw_.resize(bytes);
  size_t got = 0;
  while (got < bytes) {
    const ssize_t n = read(p->in_.fd(), p->raw_.data() + got, bytes - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return MakeError(ErrorCode::kBadInput, std::string("cannot read: ") + std::strerror(errno),
                       {path});
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  p->raw_.resize(got);
  p->raw_bytes_ = got;
  if (LooksGzip(p->raw_)) {
    // Inflate what the compressed head holds, and no more: the rest is still in the pipe.
    GzipStream gz(path, [](char*, size_t) -> Result<size_t> { return size_t{0}; }, p->raw_);
    p->head_.resize(bytes);
    size_t made = 0;
    while (made < bytes) {
      auto n = gz.Read(p->head_.data() + made, bytes - made);
      if (!n || *n == 0) break;  // corrupt data is named when the whole pipe is read
      made += *n;
    }
    p->head_.resize(made);
  } else {
    p->head_ = p->raw_;
  }
  p->converted_ = NormalizeInputText(p->head_) != nullptr;
  return p;
}

Result<size_t> PipeInput::ReadRaw(char* dst, size_t n) {
  while (true) {
    const ssize_t got = read(in_.fd(), dst, n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      return MakeError(ErrorCode::kBadInput, std::string("read error: ") + std::strerror(errno),
                       {path_});
    raw_bytes_ += static_cast<uint64_t>(got);
    return static_cast<size_t>(got);
  }
}

Result<FileText> PipeInput::ReadRest(uint64_t max_bytes) {
  FileText file;
  file.path = path_;
  if (LooksGzip(raw_)) {
    gz_ = std::make_unique<GzipStream>(
        path_, [this](char* dst, size_t n) { return ReadRaw(dst, n); }, raw_);
    file.was_gzip = true;
    COMMDX_TRY(InflateInto(*gz_, path_, max_bytes, text_, &file.gzip_cut));
  } else {
    text_ = std::move(raw_);
    char buf[1 << 16];
    for (size_t got = 0;; text_.append(buf, got)) {
      if (text_.size() > max_bytes)
        return MakeError(ErrorCode::kTooLarge,
                         "larger than the limit of " + std::to_string(max_bytes) +
                             " bytes for a file read whole (docs/inputs.md)",
                         {path_});
      COMMDX_ASSIGN_OR_RETURN(got, ReadRaw(buf, sizeof buf));
      if (got == 0) break;
      GrowFor(text_, got, max_bytes);
    }
  }
  raw_.clear();
  file.compressed_bytes = raw_bytes_;
  file.data = std::move(text_);
  file.converted_from = NormalizeInputText(file.data);
  return file;
}

WindowedRead PipeInput::ReadWindows(size_t window,
                                    const std::function<void(const FileText&)>& visit) {
  size_t at = 0;
  auto read = [&](char* dst, size_t n) -> Result<size_t> {
    if (at < text_.size()) {
      const size_t k = std::min(n, text_.size() - at);
      std::memcpy(dst, text_.data() + at, k);
      at += k;
      if (at == text_.size()) std::string().swap(text_), at = 0;  // handed over: let go
      return k;
    }
    return gz_ ? gz_->Read(dst, n) : ReadRaw(dst, n);
  };
  WindowedRead out = ReadTextWindows(path_, window, read, visit);
  out.file.was_gzip = gz_ != nullptr;
  out.file.gzip_cut = gz_ && gz_->cut_short();
  out.file.compressed_bytes = raw_bytes_;
  return out;
}

}  // namespace commdx::ingest
