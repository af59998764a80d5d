// `nvidia-smi topo -p2p r|w|n|a|p` (read, write, NVLink, atomics, PCIe):
//
//   $ nvidia-smi topo -p2p r
//   	GPU0	GPU1
//    GPU0	X	OK
//    GPU1	OK	X
//
//   Legend:
//     X    = Self
//     OK   = Status Ok
//     CNS  = Chipset not supported
//     ...
//     DR   = Disabled by regkey        (newer drivers)
//     U    = Unknown
//
// The output does not say which capability it shows: it is taken from a command line echoed
// above the matrix ("nvidia-smi topo -p2p w"), else from the file name ("p2p-w", "p2p_read"),
// else read is assumed and noted in the input-quality table. Several matrices may follow each
// other in one file, each under its own command line.
#include "base/text.h"
#include "ingest/smi_topo/smi_matrix.h"
#include "ingest/smi_topo/smi_topo.h"

namespace commdx::ingest {

namespace {

// 'r', 'w', 'n', 'a', 'p' from "... topo -p2p w ..." in text; 0 if absent.
char CapabilityInCommand(std::string_view text) {
  char found = 0;
  size_t at = 0;
  while ((at = text.find("-p2p", at)) != text.npos) {
    std::string_view rest = TrimLeft(text.substr(at + 4));
    if (!rest.empty() && Contains("rwnap", std::string_view(&rest[0], 1)) &&
        (rest.size() == 1 || !std::isalnum(static_cast<unsigned char>(rest[1]))))
      found = rest[0];
    at += 4;
  }
  return found;
}

char CapabilityInFileName(std::string_view path) {
  size_t slash = path.rfind('/');
  std::string name = ToLower(slash == path.npos ? path : path.substr(slash + 1));
  static constexpr struct {
    const char* token;
    char cap;
  } kTokens[] = {{"p2p-read", 'r'},   {"p2p_read", 'r'},   {"p2p-write", 'w'},  {"p2p_write", 'w'},
                 {"p2p-nvlink", 'n'}, {"p2p_nvlink", 'n'}, {"p2p-atomic", 'a'}, {"p2p_atomic", 'a'},
                 {"p2p-pci", 'p'},    {"p2p_pci", 'p'},    {"p2p-r", 'r'},      {"p2p_r", 'r'},
                 {"p2p-w", 'w'},      {"p2p_w", 'w'},      {"p2p-n", 'n'},      {"p2p_n", 'n'},
                 {"p2p-a", 'a'},      {"p2p_a", 'a'},      {"p2p-p", 'p'},      {"p2p_p", 'p'}};
  for (const auto& t : kTokens) {
    size_t at = name.find(t.token);
    if (at == name.npos) continue;
    size_t end = at + std::string_view(t.token).size();
    if (end == name.size() || !std::isalnum(static_cast<unsigned char>(name[end]))) return t.cap;
  }
  return 0;
}

P2PStatus& FieldFor(GpuPair& pair, char cap) {
  switch (cap) {
    case 'w':
      return pair.p2p_write;
    case 'n':
      return pair.p2p_nvlink;
    case 'a':
      return pair.p2p_atomics;
    case 'p':
      return pair.p2p_pci;
    default:
      return pair.p2p_read;
  }
}

// Keeps the worse of two readings when the matrix is not symmetric.
void Merge(P2PStatus& into, P2PStatus v) {
  if (into == P2PStatus::kUnknown || into == P2PStatus::kOk) into = v;
}

bool IsTopoLinkMatrix(const smi::Matrix& m) {
  for (const auto& c : m.extra_columns)
    if (StartsWith(c, "CPU") || StartsWith(c, "NUMA")) return true;
  return false;
}

}  // namespace

bool SniffSmiP2PMatrix(std::string_view head) {
  return Contains(head, "GPU0") && Contains(head, "= Status Ok") &&
         Contains(head, "= Chipset not supported");
}

Status ParseSmiP2PMatrix(const FileText& file, Job& job) {
  LineLocator at(file);  // a place for every row, without rescanning the file per row
  Topology& topo = job.topo;
  if (topo.source == TopoSource::kNone) topo.source = TopoSource::kNvidiaSmi;
  topo.files.push_back(file.path);
  std::string_view text = file.data;
  uint64_t from = 0;
  int matrices = 0;
  smi::Matrix m;
  while (from < text.size() && smi::ReadMatrix(text, from, m)) {
    // A `topo -m` matrix pasted beside the P2P one (its affinity columns say which it is) is
    // the topology importer's: its PIX/SYS cells are no P2P status.
    if (IsTopoLinkMatrix(m)) {
      if (m.end_offset <= from) break;
      from = m.end_offset;
      continue;
    }
    char cap = CapabilityInCommand(text.substr(from, m.header_offset - from));
    if (!cap) cap = CapabilityInFileName(file.path);
    if (!cap) {
      job.quality.Add("smi_p2p.capability_unknown", DiagSeverity::kNote,
                      "the P2P matrix does not say which capability it shows (r/w/n/a/p); read "
                      "assumed. Save it with the command line above it, e.g. `echo nvidia-smi "
                      "topo -p2p w; nvidia-smi topo -p2p w`",
                      at.At(m.header_offset));
      cap = 'r';
    }
    for (const auto& row : m.rows) {
      int gi = smi::GpuIndexOfLabel(row.label);
      if (gi < 0) continue;
      topo.GpuAt(gi);
      for (size_t c = 0; c < row.cells.size(); ++c) {
        int gj = smi::GpuIndexOfLabel(m.columns[c]);
        if (gj < 0 || gj == gi) continue;
        auto st = ParseP2PStatusCode(row.cells[c]);
        if (!st) {
          job.quality.Add(
              "smi_p2p.unknown_status", DiagSeverity::kWarning,
              "unknown P2P status '" + SanitizeUtf8(row.cells[c]) + "'; treated as unknown",
              at.At(row.offset));
          continue;
        }
        GpuPair& pair = topo.PairAt(gi, gj);
        Merge(FieldFor(pair, cap), *st);
        if (pair.loc.file.empty()) pair.loc = at.At(row.offset);
      }
    }
    ++matrices;
    if (m.end_offset <= from) break;
    from = m.end_offset;
  }
  if (matrices == 0)
    return MakeError(ErrorCode::kBadInput,
                     "no P2P matrix found (expected a header line naming GPU0 as `nvidia-smi "
                     "topo -p2p r` prints it)",
                     at.At(0));
  return Ok{};
}

}  // namespace commdx::ingest
