// What a GPU pair, or a whole job, should reach: the line rate of the link per direction and a
// typical NCCL all_reduce bus bandwidth at large messages (docs/bench-method.md, "Expected
// bandwidth per link"). One place for the table; topo, bench and trace analyzers all call it.
//
//   link                                  line rate per GPU per direction
//   NVLink2 (V100) 6 links                150 GB/s
//   NVLink3 (A100) 12 links               300 GB/s
//   NVLink4 (H100/H200) 18 links          18 x 26.56 = 478 GB/s as nvidia-smi reads (450 nominal)
//   NVLink5 (B200) 18 links               900 GB/s
//   PCIe Gen3/4/5 x16                     ~16 / 32 / 63 GB/s raw; NCCL models 12 / 24 / 48
//   IB HDR / NDR per NIC                  25 / 50 GB/s
//
// Typical busbw: 8xA100 ~230; 8xH100/H200 ring ~365-370 (NVLS ~480); 2xH200 NV18 346 measured;
// PCIe-only boxes 20-35; SHM through host memory ~28 on PCIe Gen5; per NDR NIC ~46-48.
#pragma once

#include <string>

#include "model/job.h"
#include "model/topology.h"

namespace commdx::analysis {

// How NCCL would move data between two GPUs of one node (or between nodes). kP2POrShm: the
// input does not tell which (the path crosses the CPU and the CPU vendor is unknown).
enum class NcclPath { kUnknown, kP2PNvLink, kP2PPcie, kShm, kP2POrShm, kNetIB, kNetSocket };
// "P2P/NVLink", "P2P/PCIe", "SHM", "P2P or SHM", "NET/IB", "NET/Socket"
const char* NcclPathName(NcclPath p);

// The CPU vendor as NCCL tells them apart for its default P2P level (docs/findings/live.md,
// "Which path NCCL takes over PCIe").
enum class CpuVendor { kUnknown, kIntel, kAmd, kZhaoxin, kArm, kOther };
// From /proc/cpuinfo's vendor_id ("GenuineIntel", "AuthenticAMD", "CentaurHauls", ...).
CpuVendor CpuVendorOf(const std::string& vendor_id);

struct ExpectedBandwidth {
  bool known = false;
  std::string link;  // "NVLink4 x18", "PCIe Gen4 x16", "IB 400 Gb/s x4"
  NcclPath nccl_path = NcclPath::kUnknown;
  std::string nccl_path_why;   // over PCIe: why that path ("path SYS crosses the CPU: ...")
  double line_rate_gbps = 0;   // per GPU per direction, GB/s (decimal)
  double nccl_model_gbps = 0;  // NCCL's own topology model of that link, where known
  double busbw_low_gbps = 0;   // typical NCCL all_reduce busbw at large sizes, low..high
  double busbw_high_gbps = 0;
  std::string basis;      // how the numbers were derived, one line
  double confidence = 0;  // 0..1: lower when guessed (GPU name only, generation unknown)
};

// The facts the table needs; filled from a Topology here, or by callers from what they have
// (e.g. a benchmark's recorded GPU name and link counts).
struct LinkSpec {
  std::string gpu_name;          // decides NVLink generation when the links don't say
  int nvlinks = 0;               // bonded NVLinks between the pair (per GPU through NVSwitch)
  int nvlink_generation = 0;     // 0 = from gpu_name
  double nvlink_speed_gbps = 0;  // per link per direction as nvidia-smi reads; 0 = nominal
  int pcie_gen = 0;              // current generation of the slower GPU; 0 = unknown
  int pcie_width = 0;            // current width of the narrower GPU; 0 = x16 assumed
  PathType pcie_path = PathType::kUnknown;
  bool p2p_blocked = false;             // P2P status says not supported / disabled
  bool p2p_ok = false;                  // P2P status read as OK (and none says otherwise)
  CpuVendor cpu = CpuVendor::kUnknown;  // decides NCCL's default P2P level across the CPU
  int gpus = 2;                         // GPUs on this node (NCCL's AMD rule counts them)
  int nccl_version = 0;  // NcclVersionCode of the job's NCCL (its rule changed in 2.23.4); 0 unknown
};

ExpectedBandwidth ExpectedForLink(const LinkSpec& spec);

// Two GPUs of one Topology (GPU indices). Unknown when the pair or its path is unknown.
// `nccl_version`: the job's NCCL as NcclVersionCode gives it, 0 when not known.
ExpectedBandwidth ExpectedForPath(const Topology& topo, int gpu_a, int gpu_b,
                                  int nccl_version = 0);

// "2.28.9" -> 22809 (major * 10000 + minor * 100 + patch); 0 when it is not a version.
int NcclVersionCode(const std::string& version);
// The NCCL version every process of the job's NCCL logs names, as a code; 0 when none is known
// or they differ.
int JobNcclVersion(const Job& job);

// A job: the slowest GPU pair of its node (a ring goes as fast as its slowest hop); across
// nodes (NCCL logs say nNodes > 1) the RDMA NICs per GPU. Unknown without topology facts.
ExpectedBandwidth ExpectedForJob(const Job& job);

// Per-link NVLink speeds: nominal GB/s per direction, and NCCL's model (SM60 18, SM70/80 20,
// SM90 20.6, SM100 40.1 GB/s per link).
double NominalNvLinkGbps(int generation);
double NcclModelNvLinkGbps(int generation);
// PCIe x16 per direction: raw and NCCL's model; 0 for unknown generations.
double PcieRawGbps(int generation);
double PcieNcclModelGbps(int generation);

}  // namespace commdx::analysis
