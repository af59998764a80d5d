// A trace rank's digest (analysis::RankDigest: its GPU timeline and per-rank measures) as a
// summary holds it instead of the rank's events (docs/summary-format.md, "digest"). The summary
// format is the ingest layer's, the digest the analysis layer's: this codec joins them, and is
// installed before any summary is written or read (Load, RunSummarize).
#pragma once

#include "ingest/summary/digest_codec.h"

namespace commdx::pipeline {

const ingest::summary::DigestCodec& SummaryDigestCodec();
// Installs SummaryDigestCodec() as the summaries' codec (ingest::summary::InstallDigestCodec).
void UseSummaryDigests();

}  // namespace commdx::pipeline
