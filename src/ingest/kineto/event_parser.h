// Turns the pieces of a Kineto document into RankBuilder calls: the small top-level values with
// simdjson ondemand (one parser per file reader, reused), the parts of traceEvents with the
// hand-written EventScanner; each field read once into a RawEvent.
#pragma once

#include <memory>
#include <string>

#include "ingest/kineto/json/document_reader.h"
#include "ingest/kineto/json/json_values.h"  // ParseMicrosToNs
#include "ingest/trace_build/rank_builder.h"

namespace commdx::ingest::kineto {

class EventParser final : public DocumentSink {
 public:
  EventParser(std::string file, trace_build::RankBuilder& builder);
  ~EventParser() override;

  Status TopLevel(std::string_view key, std::string_view value_json, uint64_t offset) override;
  Status EventPart(const char* json, size_t len, size_t capacity, uint64_t offset,
                   size_t& done) override;
  void Checkpoint() override { builder_.Checkpoint(); }
  void Rollback() override { builder_.Rollback(); }
  Status StrictItem(const char* json, size_t len, uint64_t offset) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  trace_build::RankBuilder& builder_;
};

}  // namespace commdx::ingest::kineto
