// `nvidia-smi topo -m`:
//
//   	GPU0	GPU1	NIC0	CPU Affinity	NUMA Affinity	GPU NUMA ID
//   GPU0	 X 	NV18	PXB	0-31	0		N/A
//   GPU1	NV18	 X 	SYS	0-31	0		N/A
//   NIC0	PXB	SYS	 X
//
//   Legend:
//     X    = Self
//     SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes ...
//     NV#  = Connection traversing a bonded set of # NVLinks
//
//   NIC Legend:
//     NIC0: mlx5_0
//
// Older drivers name NIC columns by device ("mlx5_0") and have no NIC legend or GPU NUMA ID.
#include <algorithm>

#include "base/text.h"
#include "ingest/smi_topo/smi_matrix.h"
#include "ingest/smi_topo/smi_topo.h"

namespace commdx::ingest {

namespace {


struct Cell {
  PathType path = PathType::kUnknown;
  int nvlinks = 0;
  bool ok = false;
};

// "X", "NV18", "PIX", "PXB", "PHB", "NODE", "SYS" ("SOC" in old drivers)
Cell ParseCell(std::string_view s) {
  Cell c;
  if (StartsWith(s, "NV")) {
    int64_t n = ParseInt(s.substr(2)).value_or(0);
    if (n > 0) {
      c.path = PathType::kNvLink;
      c.nvlinks = static_cast<int>(n);
      c.ok = true;
    }
    return c;
  }
  if (auto p = ParsePathType(s)) {
    c.path = *p;
    c.ok = true;
  }
  return c;
}

// "  NIC0: mlx5_0"
void ReadNicLegend(std::string_view text, std::vector<std::pair<std::string, std::string>>& out) {
  size_t at = text.find("NIC Legend:");
  if (at == text.npos) return;
  for (const auto& line : smi::SplitLines(text.substr(at))) {
    std::string_view l = Trim(line.text);
    size_t colon = l.find(':');
    if (colon == l.npos) continue;
    std::string_view label = Trim(l.substr(0, colon));
    if (!smi::IsDeviceLabel(label) || !StartsWith(label, "NIC")) continue;
    out.emplace_back(std::string(label), std::string(Trim(l.substr(colon + 1))));
  }
}

Nic& NicFor(Topology& topo, const std::string& label) {
  for (auto& n : topo.nics)
    if (n.legend == label || (n.legend.empty() && n.name == label)) return n;
  Nic n;
  if (StartsWith(label, "NIC"))
    n.legend = label;
  else
    n.name = label;
  topo.nics.push_back(std::move(n));
  return topo.nics.back();
}

// RDMA device names (mlx5_0, bnxt_re0, irdma0, efa0, ...); IB or RoCE is not told by topo -m.
void GuessNicKind(Nic& n) {
  for (const char* p : {"mlx", "ib", "bnxt_re", "irdma", "efa", "rdma", "hfi", "qedr", "erdma"})
    if (StartsWith(n.name, p)) n.kind = NicKind::kInfiniband;
}

void ApplyGpuExtras(const smi::Matrix& m, const smi::MatrixRow& row, Gpu& gpu) {
  for (size_t e = 0; e < row.extras.size() && e < m.extra_columns.size(); ++e) {
    const std::string& col = m.extra_columns[e];
    const std::string& v = row.extras[e];
    if (v == "N/A") continue;
    if (col == "CPU Affinity") gpu.cpu_affinity = v;
    if (col == "NUMA Affinity")
      if (auto n = ParseInt(v)) gpu.numa_node = static_cast<int>(*n);
  }
}

}  // namespace

bool SniffSmiTopoMatrix(std::string_view head) {
  if (!Contains(head, "GPU0")) return false;
  if (Contains(head, "X    = Self") &&
      (Contains(head, "NV#") || Contains(head, "PIX  =") || Contains(head, "SYS  =") ||
       Contains(head, "CPU Affinity")))
    return true;
  // The matrix without its legend (cut off, or pasted alone): the header names the affinity
  // column, and GPU0's row holds the "X" of the diagonal right after its label.
  if (!Contains(head, "CPU Affinity")) return false;
  for (const smi::Line& l : smi::SplitLines(head)) {
    std::string_view t = Trim(l.text);
    if (!StartsWith(t, "GPU0") || t.size() < 5 || (t[4] != ' ' && t[4] != '\t')) continue;
    if (Trim(t.substr(4)).substr(0, 2) == "X " || Trim(t.substr(4)).substr(0, 2) == "X\t")
      return true;
  }
  return false;
}

Status ParseSmiTopoMatrix(const FileText& file, Job& job) {
  LineLocator at(file);  // a place for every row, without rescanning the file per row
  smi::Matrix m;
  if (!smi::ReadMatrix(file.data, 0, m))
    return MakeError(ErrorCode::kBadInput,
                     "no GPU matrix found (expected a header line naming GPU0 as "
                     "`nvidia-smi topo -m` prints it)",
                     at.At(0));
  Topology& topo = job.topo;
  if (topo.source == TopoSource::kNone) topo.source = TopoSource::kNvidiaSmi;
  if (topo.gpu_source.empty()) topo.gpu_source = "nvidia-smi topo -m";
  topo.files.push_back(file.path);
  for (uint64_t off : m.realigned_rows)
    job.quality.Add("smi_topo.realigned_row", DiagSeverity::kNote,
                    "matrix row with fewer fields than the header (cells run together, as "
                    "\"NODENODE\" in a paste): split back into columns, its last values read as "
                    "the affinity columns",
                    at.At(off));
  for (uint64_t off : m.short_rows)
    job.quality.Add("smi_topo.short_row", DiagSeverity::kWarning,
                    "matrix row has fewer cells than the header has columns; missing cells are "
                    "unknown",
                    at.At(off));
  std::vector<std::pair<std::string, std::string>> legend;
  ReadNicLegend(file.data, legend);
  // NIC columns first, so that their names from the legend are known.
  for (const auto& col : m.columns) {
    if (smi::GpuIndexOfLabel(col) >= 0) continue;
    Nic& nic = NicFor(topo, col);
    for (const auto& [label, name] : legend)
      if (label == col) nic.name = name;
    GuessNicKind(nic);
  }
  for (const auto& row : m.rows) {
    int gi = smi::GpuIndexOfLabel(row.label);
    if (gi < 0) continue;
    Gpu& gpu = topo.GpuAt(gi);
    if (gpu.loc.file.empty()) gpu.loc = at.At(row.offset);
    ApplyGpuExtras(m, row, gpu);
    for (size_t c = 0; c < row.cells.size(); ++c) {
      Cell cell = ParseCell(row.cells[c]);
      if (!cell.ok) {
        job.quality.Add("smi_topo.unknown_cell", DiagSeverity::kWarning,
                        "unknown connection '" + SanitizeUtf8(row.cells[c]) +
                            "' in the matrix; treated as unknown",
                        at.At(row.offset));
        continue;
      }
      const std::string& col = m.columns[c];
      int gj = smi::GpuIndexOfLabel(col);
      if (gj >= 0) {
        if (gj == gi) continue;
        GpuPair& pair = topo.PairAt(gi, gj);
        pair.path = cell.path;
        pair.nvlinks = cell.nvlinks;
        if (cell.path != PathType::kNvLink) pair.pcie_path = cell.path;
        if (pair.loc.file.empty()) pair.loc = at.At(row.offset);
      } else {
        Nic& nic = NicFor(topo, col);
        if (nic.gpu_paths.size() <= static_cast<size_t>(gi))
          nic.gpu_paths.resize(gi + 1, PathType::kUnknown);
        nic.gpu_paths[gi] = cell.path;
        if (nic.loc.file.empty()) nic.loc = at.At(row.offset);
      }
    }
  }
  int n_gpus = 0;
  for (const auto& col : m.columns) n_gpus += smi::GpuIndexOfLabel(col) >= 0;
  if (n_gpus > 0) topo.GpuAt(n_gpus - 1);  // GPUs named only in the header still exist
  for (int i = 0; i < n_gpus; ++i)         // every pair exists, unknown where no cell said
    for (int j = i + 1; j < n_gpus; ++j) topo.PairAt(i, j);
  return Ok{};
}

}  // namespace commdx::ingest
