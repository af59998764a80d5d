// The one gzip reader: inflates a gzip stream piece by piece as its compressed bytes are read,
// so nothing has to be held whole. Every member is read (`cat a.gz b.gz` is valid gzip); a
// stream that ends before its last member's end-of-stream mark and trailer (a file cut short
// while a job wrote it) is not an error: what it inflates to is read, then the end, and
// cut_short() says so. Whole-file reads (base/file.h Gunzip, ReadHead) and the streaming trace
// reader (ingest/kineto/json/byte_source.h) all use it.
//
// The inflater is ISA-L's igzip where the library was found at build time (Debian's libisal:
// about 3x zlib's speed on one core, 526 MB of trace JSON from a 27 MB .gz in 0.12 s of CPU
// against 0.37 s), zlib otherwise; both check each member's CRC-32 and size.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"

namespace commdx {

class GzipStream {
 public:
  // Reads up to `n` compressed bytes into `dst`; 0 means the input ended.
  using RawRead = std::function<Result<size_t>(char* dst, size_t n)>;

  // `head`: compressed bytes already read from the input (to sniff it), inflated first. `name`
  // names the input in errors.
  GzipStream(std::string name, RawRead raw, std::string_view head = {});
  ~GzipStream();
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  // Inflates up to `n` bytes into `dst`; 0 means the end of the data (cut_short() tells whether
  // the stream was complete). Corrupt data is an error "corrupt gzip data: WHY at compressed
  // byte N", placed at the decompressed offset it was found at; raw read errors pass through.
  Result<size_t> Read(char* dst, size_t n);

  bool cut_short() const;
  // Compressed bytes inflated so far (for a progress line), and decompressed bytes made.
  uint64_t compressed_read() const;
  uint64_t inflated() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace commdx
