// Where the bytes of a trace come from, read piece by piece so that a trace never has to be held
// whole in memory: a plain file, a gzip file inflated as it is read, or a buffer already in memory.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"

namespace commdx::ingest::kineto {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `n` bytes into `dst`; 0 means end of input. Errors: I/O, corrupt gzip (placed
  // in the decompressed text; the compressed offset is in the message). A gzip stream that ends
  // early is not an error: what it inflates to is read, then the end (cut_short()).
  virtual Result<size_t> Read(char* dst, size_t n) = 0;
  // The compressed stream ended before its end-of-stream mark and trailer (a file cut short).
  virtual bool cut_short() const { return false; }
  virtual bool was_gzip() const { return false; }
  virtual uint64_t compressed_bytes() const { return 0; }
  // Compressed bytes inflated so far (gzip only; for the progress line).
  virtual uint64_t compressed_read() const { return 0; }
  // Size of the decompressed input if known in advance (plain files, memory), else 0.
  virtual uint64_t size_hint() const { return 0; }
  // The decompressed size to plan memory for: size_hint() where known; for gzip the size its
  // trailer states (exact for the usual one-member file under 4 GiB) or a guess. Never exact
  // by contract: readers stop at the end of the data, not at this size.
  virtual uint64_t expected_bytes() const { return size_hint(); }
  // A plain file mapped into memory (private, writable copy-on-write), or null: the reader then
  // parses in place instead of copying through Read().
  virtual char* mapped() { return nullptr; }
  // The caller is done with mapped bytes before `offset`: give their pages back (they stay in
  // the page cache), so resident memory stays bounded by what is being parsed.
  virtual void Release(uint64_t /*offset*/) {}
};

// Opens `path` and picks plain or gzip by the magic bytes, not by the name. With `map`, a plain
// regular file is memory-mapped (ByteSource::mapped()).
Result<std::unique_ptr<ByteSource>> OpenFileSource(const std::string& path, bool map = false);

// Reads from memory the caller keeps alive; gzip data is inflated as it is read.
std::unique_ptr<ByteSource> MemorySource(std::string_view data, const std::string& name);

// 1-based line and column of a decompressed byte offset, found by reading the input again from
// the start. Used only on the error path, so the fast path never counts lines.
struct LineColResult {
  uint32_t line = 0;
  uint32_t col = 0;
};
LineColResult LocateByRereading(ByteSource& fresh_source, uint64_t offset);

}  // namespace commdx::ingest::kineto
