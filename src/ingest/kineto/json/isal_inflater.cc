#include "ingest/kineto/json/isal_inflater.h"

#ifdef COMMDX_HAVE_ISAL
#include <isa-l/igzip_lib.h>

namespace commdx::ingest::kineto {

namespace {

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

}  // namespace

struct IsalInflater::State {
  inflate_state s;
};

IsalInflater::IsalInflater() : st_(std::make_unique<State>()) { Reset(); }
IsalInflater::~IsalInflater() = default;

void IsalInflater::Reset() {
  uint8_t* in = st_->s.next_in;
  uint32_t avail = st_->s.avail_in;
  isal_inflate_init(&st_->s);
  st_->s.crc_flag = ISAL_GZIP;
  st_->s.next_in = in;
  st_->s.avail_in = avail;
}

void IsalInflater::SetInput(const char* in, size_t n) {
  st_->s.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(in));
  st_->s.avail_in = static_cast<uint32_t>(n);
}

size_t IsalInflater::avail_in() const { return st_->s.avail_in; }
const unsigned char* IsalInflater::next_in() const { return st_->s.next_in; }

IsalInflater::Rc IsalInflater::Inflate(char* dst, size_t n, size_t& made) {
  st_->s.next_out = reinterpret_cast<uint8_t*>(dst);
  st_->s.avail_out = static_cast<uint32_t>(n);
  int rc = isal_inflate(&st_->s);
  made = n - st_->s.avail_out;
  if (rc < 0) {
    error_ = IsalErrorText(rc);
    return Rc::kError;
  }
  if (rc == ISAL_NEED_DICT) {
    error_ = "a preset dictionary is needed";
    return Rc::kError;
  }
  return st_->s.block_state == ISAL_BLOCK_FINISH ? Rc::kMemberEnd : Rc::kOk;
}

}  // namespace commdx::ingest::kineto
#endif  // COMMDX_HAVE_ISAL
