#include "ingest/summary/digest_codec.h"

#include <atomic>

namespace commdx::ingest::summary {

namespace {
std::atomic<const DigestCodec*> installed{nullptr};
}  // namespace

void InstallDigestCodec(const DigestCodec* codec) { installed.store(codec); }
const DigestCodec* InstalledDigestCodec() { return installed.load(); }

}  // namespace commdx::ingest::summary
