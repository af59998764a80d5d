#include "base/gzip_stream.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <vector>

#ifdef COMMDX_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

namespace commdx {

namespace {

constexpr size_t kInputBlock = 1 << 20;  // compressed bytes read at a time
constexpr size_t kMaxOut = 1u << 30;     // both libraries count output in 32 bits

enum class Rc { kOk, kMemberEnd, kError };

#ifdef COMMDX_HAVE_ISAL
const char* IsalErrorText(int rc) {
  switch (rc) {
    case ISAL_INVALID_BLOCK:
      return "invalid deflate block";
    case ISAL_INVALID_SYMBOL:
      return "invalid code in deflate data";
    case ISAL_INVALID_LOOKBACK:
      return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER:
      return "incorrect gzip header";
    case ISAL_UNSUPPORTED_METHOD:
      return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM:
      return "incorrect data check";
    default:
      return "inflate error";
  }
}

// One gzip member at a time with igzip (header parsed, CRC-32 and size checked).
class Inflater {
 public:
  Inflater() { Reset(); }
  bool ok() const { return true; }
  // The next member; the unread input stays.
  void Reset() {
    uint8_t* in = s_.next_in;
    uint32_t avail = s_.avail_in;
    isal_inflate_init(&s_);
    s_.crc_flag = ISAL_GZIP;
    s_.next_in = in;
    s_.avail_in = avail;
  }
  void SetInput(const char* in, size_t n) {
    s_.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(in));
    s_.avail_in = static_cast<uint32_t>(n);
  }
  size_t avail_in() const { return s_.avail_in; }
  const unsigned char* next_in() const { return s_.next_in; }
  Rc Inflate(char* dst, size_t n, size_t& made) {
    s_.next_out = reinterpret_cast<uint8_t*>(dst);
    s_.avail_out = static_cast<uint32_t>(n);
    const int rc = isal_inflate(&s_);
    made = n - s_.avail_out;
    if (rc < 0) {
      error_ = IsalErrorText(rc);
      return Rc::kError;
    }
    if (rc == ISAL_NEED_DICT) {
      error_ = "a preset dictionary is needed";
      return Rc::kError;
    }
    return s_.block_state == ISAL_BLOCK_FINISH ? Rc::kMemberEnd : Rc::kOk;
  }
  const char* error() const { return error_; }

 private:
  inflate_state s_{};
  const char* error_ = "";
};
#else
// One gzip member at a time with zlib (windowBits 15 + 16: gzip wrapper, CRC-32 and size checked).
class Inflater {
 public:
  Inflater() { ok_ = inflateInit2(&zs_, 15 + 16) == Z_OK; }
  ~Inflater() { inflateEnd(&zs_); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  bool ok() const { return ok_; }
  void Reset() { inflateReset(&zs_); }  // keeps next_in / avail_in
  void SetInput(const char* in, size_t n) {
    zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in));
    zs_.avail_in = static_cast<uInt>(n);
  }
  size_t avail_in() const { return zs_.avail_in; }
  const unsigned char* next_in() const { return zs_.next_in; }
  Rc Inflate(char* dst, size_t n, size_t& made) {
    zs_.next_out = reinterpret_cast<Bytef*>(dst);
    zs_.avail_out = static_cast<uInt>(n);
    const int rc = inflate(&zs_, Z_NO_FLUSH);
    made = n - zs_.avail_out;
    if (rc == Z_STREAM_END) return Rc::kMemberEnd;
    if (rc == Z_OK || rc == Z_BUF_ERROR) return Rc::kOk;  // Z_BUF_ERROR: needs more input
    error_ = zs_.msg ? zs_.msg : "inflate error " + std::to_string(rc);
    return Rc::kError;
  }
  const char* error() const { return error_.c_str(); }

 private:
  z_stream zs_{};
  bool ok_ = false;
  std::string error_;
};
#endif

bool GzipMagicAt(const unsigned char* p, size_t n) {
  return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

}  // namespace

struct GzipStream::Impl {
  std::string name;
  RawRead raw;
  std::vector<char> in = std::vector<char>(kInputBlock);
  Inflater inflater;
  bool eof = false;
  bool done = false;
  bool cut = false;
  uint64_t consumed = 0;  // compressed bytes handed to the inflater, the head included
  uint64_t out = 0;

  // Keeps the unread input (a few bytes after a member's end) in front of the new bytes.
  Status Refill() {
    const size_t keep = inflater.avail_in();
    std::memmove(in.data(), inflater.next_in(), keep);
    COMMDX_ASSIGN_OR_RETURN(size_t got, raw(in.data() + keep, in.size() - keep));
    if (got == 0) eof = true;
    consumed += got;
    inflater.SetInput(in.data(), keep + got);
    return Ok{};
  }
};

GzipStream::GzipStream(std::string name, RawRead raw, std::string_view head)
    : impl_(std::make_unique<Impl>()) {
  impl_->name = std::move(name);
  impl_->raw = std::move(raw);
  if (head.size() > impl_->in.size()) impl_->in.resize(head.size());
  if (!head.empty()) std::memcpy(impl_->in.data(), head.data(), head.size());
  impl_->inflater.SetInput(impl_->in.data(), head.size());
  impl_->consumed = head.size();
}

GzipStream::~GzipStream() = default;

Result<size_t> GzipStream::Read(char* dst, size_t n) {
  Impl& s = *impl_;
  if (!s.inflater.ok())
    return MakeError(ErrorCode::kInternal, "zlib inflateInit2 failed", {s.name});
  const size_t want = std::min(n, kMaxOut);
  size_t got = 0;
  while (got == 0 && !s.done && want > 0) {
    if (s.inflater.avail_in() == 0 && !s.eof) COMMDX_TRY(s.Refill());
    size_t made = 0;
    const Rc rc = s.inflater.Inflate(dst, want, made);
    got += made;
    if (rc == Rc::kError) {
      SourceLoc loc{s.name};
      loc.offset = s.out + got;  // a place in the decompressed text
      loc.has_offset = true;
      return MakeError(ErrorCode::kBadInput,
                       std::string("corrupt gzip data: ") + s.inflater.error() +
                           " at compressed byte " + std::to_string(compressed_read()),
                       loc);
    }
    if (rc == Rc::kMemberEnd) {
      if (s.inflater.avail_in() < 2 && !s.eof) COMMDX_TRY(s.Refill());
      if (GzipMagicAt(s.inflater.next_in(), s.inflater.avail_in())) {
        s.inflater.Reset();  // another member follows
        continue;
      }
      s.done = true;  // bytes after the last member that are not gzip are not read
    } else if (made == 0 && s.inflater.avail_in() == 0 && s.eof) {
      s.cut = true;  // what was inflated is read; the stream never reached its end
      s.done = true;
    }
  }
  s.out += got;
  return got;
}

bool GzipStream::cut_short() const { return impl_->cut; }

uint64_t GzipStream::compressed_read() const {
  return impl_->consumed - impl_->inflater.avail_in();
}

uint64_t GzipStream::inflated() const { return impl_->out; }

}  // namespace commdx
