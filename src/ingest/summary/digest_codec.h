// How a summary holds a trace rank's digest: what the analyses derived from the rank's events
// right after it was built (RankTrace::derived, the analysis layer's type, opaque here), which
// a summary keeps instead of the events (docs/summary-format.md, "digest"). The layer that owns
// the digest supplies the codec (pipeline/summary_digest.h) and installs it before summaries are
// written or read; the summary reads and writes the rest of the trace itself.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "base/json_writer.h"
#include "base/result.h"
#include "ingest/summary/summary_read.h"
#include "model/trace.h"

namespace commdx::ingest::summary {

class DigestCodec {
 public:
  virtual ~DigestCodec() = default;
  // The RankTrace::names indexes the digest holds (the summary keeps only the names something
  // refers to, renumbered).
  virtual void NameRefs(const RankDerived& d, std::vector<uint32_t>& out) const = 0;
  // Writes the digest as one JSON object, each name index passed through `name`.
  virtual void Write(const RankDerived& d, const std::function<uint32_t(uint32_t)>& name,
                     JsonWriter& w) const = 0;
  // Reads what Write wrote, for the trace `t` whose facts and names are read: name indexes are
  // checked against t.names, times against the trace's span [t.first_ns, t.last_ns].
  virtual Result<std::shared_ptr<const RankDerived>> Read(simdjson::dom::element e, const Place& p,
                                                          const RankTrace& t) const = 0;
};

// The codec summaries are written and read with (nullptr: none yet; a summary with traces is
// then refused, naming the missing codec).
void InstallDigestCodec(const DigestCodec* codec);
const DigestCodec* InstalledDigestCodec();

}  // namespace commdx::ingest::summary
