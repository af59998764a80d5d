#include "ingest/snapshot/snapshot_replay_schema.h"
#include "ingest/snapshot/snapshot_schema.h"

namespace commdx::ingest::snapshot {

PathType PathFrom(const std::string& s) {
  if (s == "NV") return PathType::kNvLink;
  return ParsePathType(s).value_or(PathType::kUnknown);
}

P2PStatus P2PFrom(const std::string& s) {
  return ParseP2PStatusCode(s).value_or(P2PStatus::kUnknown);
}

NicKind NicKindFrom(const std::string& s) {
  for (NicKind k : {NicKind::kInfiniband, NicKind::kRoce, NicKind::kEthernet})
    if (s == NicKindName(k)) return k;
  return NicKind::kUnknown;
}

// The reader sets "snapshot" itself; an unknown word reads as no source.
TopoSource TopoSourceFrom(const std::string& s) {
  return ParseTopoSource(s).value_or(TopoSource::kNone);
}

// A snapshot written by another version may name a search step this one does not know: it is a
// library found on the loader path as far as this reader can tell.
NcclOrigin NcclOriginFrom(const std::string& s) {
  return ParseNcclOrigin(s).value_or(NcclOrigin::kLoader);
}

BenchLink BenchLinkFrom(const std::string& s) {
  for (BenchLink l : {BenchLink::kNvLink, BenchLink::kPcie, BenchLink::kHost})
    if (s == BenchLinkName(l)) return l;
  return BenchLink::kUnknown;
}

NcclPluginKind NcclPluginKindFrom(const std::string& s) {
  for (auto k : {NcclPluginKind::kNet, NcclPluginKind::kProfiler, NcclPluginKind::kTuner,
                 NcclPluginKind::kEnv, NcclPluginKind::kGin, NcclPluginKind::kRma})
    if (s == NcclPluginKindName(k)) return k;
  return NcclPluginKind::kOther;
}

}  // namespace commdx::ingest::snapshot
