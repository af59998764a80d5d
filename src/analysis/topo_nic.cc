// topo.nic_far: GPUs whose nearest RDMA NIC is further than NCCL's GPUDirect RDMA limit. NCCL
// (src/graph/paths.cc, ncclTopoCheckGdr) lets a NIC read and write GPU memory directly only when
// the PCIe path between them is at most PXB (PCIe switches, not through the CPU), unless
// NCCL_NET_GDR_LEVEL allows farther; otherwise network traffic is staged through host memory.
// PXN (a peer GPU on NVLink that sits near a NIC forwards the data) avoids that, so a GPU with
// such a peer is not named. docs/findings/live.md.
#include <algorithm>

#include "analysis/catalogue.h"
#include "analysis/topo_analyzers.h"
#include "analysis/topo_common.h"
#include "base/text.h"

namespace commdx::analysis {

namespace {

// NCCL's path ranks: PIX < PXB < PHB < NODE < SYS ("SOC" is SYS).
int Rank(PathType p) {
  switch (p) {
    case PathType::kSelf:
    case PathType::kNvLink:
    case PathType::kPix:
      return 1;
    case PathType::kPxb:
      return 2;
    case PathType::kPhb:
      return 3;
    case PathType::kNode:
      return 4;
    case PathType::kSys:
      return 5;
    case PathType::kUnknown:
      break;
  }
  return 0;
}

// NCCL_NET_GDR_LEVEL as a path rank (names or NCCL's old integers 0-5); 0 when not set.
int UserGdrLevel(const Job& job) {
  const EnvVar* v = job.env.Find("NCCL_NET_GDR_LEVEL");
  if (!v) return 0;
  std::string u = ToLower(v->value);
  if (u == "loc" || u == "0") return -1;  // never
  if (u == "pix" || u == "1") return 1;
  if (u == "pxb" || u == "2") return 2;
  if (u == "phb" || u == "3") return 3;
  if (u == "node") return 4;
  if (u == "sys" || u == "4" || u == "5") return 5;
  return 0;
}

// "GPU0", "GPU0 and GPU1", "GPU0, GPU1, GPU2 and 5 more".
std::string GpusPhrase(const std::vector<int>& gpus) {
  constexpr size_t kNamed = 4;
  std::string s;
  const size_t named = gpus.size() > kNamed + 1 ? kNamed : gpus.size();
  for (size_t i = 0; i < named; ++i) {
    if (i > 0) s += i + 1 == named && named == gpus.size() ? " and " : ", ";
    s += "GPU" + std::to_string(gpus[i]);
  }
  if (named < gpus.size()) s += " and " + std::to_string(gpus.size() - named) + " more";
  return s;
}

struct Far {
  int gpu = -1;
  const Nic* nic = nullptr;
  PathType path = PathType::kUnknown;
};

}  // namespace

std::vector<Finding> FindTopoNicFar(const Job& job, const Options&) {
  const Topology& t = job.topo;
  std::vector<const Nic*> rdma;
  for (const Nic& n : t.nics)
    if ((n.kind == NicKind::kInfiniband || n.kind == NicKind::kRoce) && !n.gpu_paths.empty())
      rdma.push_back(&n);
  if (rdma.empty() || t.gpus.empty()) return {};
  const int user = UserGdrLevel(job);
  const int limit = user > 0 ? user : Rank(PathType::kPxb);
  if (user < 0) return {};  // GDR turned off on purpose: env.nccl_override says so
  // Each GPU's nearest RDMA NIC.
  std::vector<Far> nearest(t.gpus.size());
  for (size_t g = 0; g < t.gpus.size(); ++g) {
    nearest[g].gpu = t.gpus[g].index;
    for (const Nic* n : rdma) {
      const size_t i = static_cast<size_t>(t.gpus[g].index);
      if (i >= n->gpu_paths.size() || Rank(n->gpu_paths[i]) == 0) continue;
      if (!nearest[g].nic || Rank(n->gpu_paths[i]) < Rank(nearest[g].path)) {
        nearest[g].nic = n;
        nearest[g].path = n->gpu_paths[i];
      }
    }
  }
  auto close = [&](const Far& f) { return f.nic && Rank(f.path) <= limit; };
  std::vector<Far> far;
  for (size_t g = 0; g < nearest.size(); ++g) {
    if (!nearest[g].nic || close(nearest[g])) continue;
    bool pxn = false;  // an NVLink peer near a NIC can forward for it
    for (size_t h = 0; h < nearest.size() && !pxn; ++h) {
      if (h == g || !close(nearest[h])) continue;
      const GpuPair* p = t.FindPair(t.gpus[g].index, t.gpus[h].index);
      pxn = p && p->nvlinks > 0;
    }
    if (!pxn) far.push_back(nearest[g]);
  }
  if (far.empty()) return {};
  Finding f = NewFinding("topo.nic_far");
  std::vector<int> gpus;
  for (const Far& x : far) gpus.push_back(x.gpu);
  // The paths as they differ ("NODE", "NODE or PHB"), in GPU order.
  std::vector<std::string> paths;
  for (const Far& x : far)
    if (std::find(paths.begin(), paths.end(), PathTypeName(x.path)) == paths.end())
      paths.push_back(PathTypeName(x.path));
  std::string path_list;
  for (size_t i = 0; i < paths.size(); ++i)
    path_list += (i ? (i + 1 == paths.size() ? " or " : ", ") : "") + paths[i];
  f.title = GpusPhrase(gpus) + (far.size() == 1 ? " reaches its" : " reach their") +
            " nearest RDMA NIC only through the CPU (" + path_list +
            "): NCCL will not use GPUDirect RDMA " + (far.size() == 1 ? "for it" : "for them");
  f.detail =
      "Facts from " + FactsSource(t) +
      ". NCCL lets a NIC read and write GPU memory directly only when the PCIe path between "
      "them is at most " +
      std::string(user > 0 ? "NCCL_NET_GDR_LEVEL=" + job.env.Find("NCCL_NET_GDR_LEVEL")->value
                           : "PXB (under PCIe switches, not through the CPU)") +
      "; farther away, every inter-node transfer is staged through host memory (an extra copy, "
      "CPU and memory bandwidth)" +
      std::string(std::any_of(far.begin(), far.end(),
                              [](const Far& x) { return x.path == PathType::kSys; })
                      ? ", and a NIC on the other socket (SYS) adds the inter-socket link"
                      : "") +
      ". No GPU joined to these by NVLink sits near a NIC, so PXN cannot route around it. "
      "Only traffic between nodes is concerned.";
  f.fix =
      "Pair each GPU with a NIC under its own PCIe switch (the node's PCIe layout; a GPU and "
      "NIC on the same socket at least), or measure across nodes with and without "
      "NCCL_NET_GDR_LEVEL=SYS (nccl-tests): on some platforms GPUDirect through the CPU is "
      "still faster than staging. The NCCL log says per GPU and NIC whether GPU Direct RDMA is "
      "enabled (NCCL_DEBUG=INFO).";
  f.metrics.push_back({"gpus", static_cast<double>(far.size()), Unit::kCount});
  for (const Far& x : far) {
    if (f.refs.size() >= 4) break;
    f.refs.push_back(Ref(x.nic->loc, GpuLabel(t, x.gpu) + " to " + x.nic->name + ": " +
                                         PathTypeName(x.path)));
  }
  f.confidence = 0.8;
  return {std::move(f)};
}

}  // namespace commdx::analysis
