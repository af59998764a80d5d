#include "ingest/pipe_head.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "base/gzip_stream.h"
#include "base/text_input.h"

namespace commdx::ingest {

Result<PipeInput> PipeInput::Open(const std::string& path, size_t bytes) {
  COMMDX_ASSIGN_OR_RETURN(OpenedInput in, OpenInput(path));
  PipeInput p(path, std::move(in));
  p.raw_.resize(bytes);
  size_t got = 0;
  while (got < bytes) {
    const ssize_t n = read(p.in_.fd(), p.raw_.data() + got, bytes - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return MakeError(ErrorCode::kBadInput, std::string("cannot read: ") + std::strerror(errno),
                       {path});
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  p.raw_.resize(got);
  if (LooksGzip(p.raw_)) {
    // Inflate what the compressed head holds, and no more: the rest is still in the pipe.
    GzipStream gz(path, [](char*, size_t) -> Result<size_t> { return size_t{0}; }, p.raw_);
    p.head_.resize(bytes);
    size_t made = 0;
    while (made < bytes) {
      auto n = gz.Read(p.head_.data() + made, bytes - made);
      if (!n || *n == 0) break;  // corrupt data is named when the whole pipe is read
      made += *n;
    }
    p.head_.resize(made);
  } else {
    p.head_ = p.raw_;
  }
  NormalizeInputText(p.head_);
  return p;
}

Result<FileText> PipeInput::ReadRest() {
  const uint64_t limit = DefaultMaxBytes();
  const uint64_t held = raw_.size();
  COMMDX_ASSIGN_OR_RETURN(std::string rest,
                          ReadAll(in_, path_, limit > held ? limit - held : 1));
  raw_ += rest;
  return TextFromBytes(path_, std::move(raw_));
}

}  // namespace commdx::ingest
