#include "analysis/comm_warn_catalogue.h"

#include "analysis/catalogue.h"

namespace commdx::analysis {

namespace {

constexpr Severity kE = Severity::kError;
constexpr Severity kW = Severity::kWarning;
constexpr Severity kI = Severity::kInfo;

struct Signature {
  const char* any[4];  // any of these substrings (nullptr-terminated)
  const char* source;  // and, if set, the source file starts with this
  const WarnRule* rule;
};

// Each cause and fix once; several signatures may point at one rule.
constexpr WarnRule kNoVerbs = {
    "no_verbs", "", kI, false, "no rdma-core on this host; benign without RDMA hardware", ""};
constexpr WarnRule kShmNoSpace = {
    "shm_no_space",
    "comm.shm_too_small",
    kE,
    false,
    "NCCL could not create or grow its shared-memory segment in /dev/shm: the filesystem is "
    "full or too small. Docker gives containers 64 MB by default and Kubernetes pods the same "
    "unless /dev/shm is a memory-backed emptyDir; stale nccl-* files of crashed runs also fill "
    "it.",
    "Run the container with --shm-size=1g (or more) or --ipc=host; on Kubernetes mount an "
    "emptyDir with medium: Memory at /dev/shm; delete stale /dev/shm/nccl-* files. "
    "NCCL_SHM_DISABLE=1 avoids it at a bandwidth cost."};
constexpr WarnRule kShmCreate = {
    "shm_create",
    "comm.nccl_warn",
    kW,
    true,
    "NCCL could not create a shared-memory segment in /dev/shm. The line before it in the same "
    "process says why: no space (posix_fallocate, a full /dev/shm) or a CUDA error registering "
    "the segment (that error is the cause).",
    "Read the WARN line before it: for no space, give the container more /dev/shm "
    "(--shm-size=1g, --ipc=host); for a CUDA error, see comm.cuda_error."};
constexpr WarnRule kShmCreateSystem = {
    "shm_create_system",
    "comm.shm_too_small",
    kE,
    false,
    "NCCL could not create its shared-memory segment in /dev/shm and returned a system error "
    "(ncclSystemError), with no CUDA error in the inputs: a system call creating, sizing or "
    "mapping the file failed, most likely sizing it, so /dev/shm is too small or full (Docker "
    "gives a container 64 MB, some CI images 16 MB; NCCL needs several MB per peer).",
    "Run the container with --shm-size=1g (or more) or --ipc=host; on Kubernetes mount an "
    "emptyDir with medium: Memory at /dev/shm; `df -h /dev/shm` where the job runs confirms "
    "it.",
    nullptr,
    0.8};
constexpr WarnRule kShmAttach = {
    "shm_attach",
    "comm.nccl_warn",
    kE,
    false,
    "a peer's shared-memory segment vanished or is not visible: systemd-logind RemoveIPC "
    "deleted it, or the ranks of one node run in different IPC/mount namespaces.",
    "Set RemoveIPC=no in /etc/systemd/logind.conf; run all ranks of a node with a shared "
    "/dev/shm (--ipc=host or one container per node)."};
constexpr WarnRule kNoAlgo = {
    "no_algo",
    "comm.env_override",
    kE,
    false,
    "NCCL_ALGO / NCCL_PROTO force an algorithm or protocol that has no implementation for this "
    "collective and data type, so the call fails (invalid usage).",
    "Unset NCCL_ALGO / NCCL_PROTO, or restrict them to one collective with the per-collective "
    "syntax (NCCL >= 2.24: NCCL_ALGO=allreduce:tree)."};
constexpr WarnRule kDuplicateGpu = {
    "duplicate_gpu",
    "comm.duplicate_gpu",
    kE,
    false,
    "two ranks selected the same GPU: the processes were not pinned to distinct devices.",
    "Call torch.cuda.set_device(local_rank) (or cudaSetDevice) before creating the "
    "communicator, or give each process its own CUDA_VISIBLE_DEVICES."};
constexpr WarnRule kNoInterface = {
    "no_interface",
    "comm.bootstrap_failure",
    kE,
    false,
    "NCCL found no usable IP interface for its bootstrap network: NCCL_SOCKET_IFNAME matches "
    "nothing, or the process runs in a container without a network.",
    "Set NCCL_SOCKET_IFNAME to an interface that exists (`ip -br addr`); run containers with "
    "--net=host or a network that the other nodes can reach."};
constexpr WarnRule kBadPeerAddress = {
    "bad_peer_address",
    "comm.bootstrap_failure",
    kE,
    false,
    "NCCL tried to connect to a peer whose address was never filled in: on some host "
    "NCCL_SOCKET_IFNAME names an interface that does not exist (NCCL does not warn about that "
    "when it selects interfaces), or the ranks run different NCCL versions.",
    "Check NCCL_SOCKET_IFNAME against `ip -br addr` on every host (and the version on every "
    "host); use a prefix list such as NCCL_SOCKET_IFNAME=eth,ens if names differ by host."};
constexpr WarnRule kNoSubnet = {
    "no_subnet",
    "comm.bootstrap_failure",
    kE,
    false,
    "the address in NCCL_COMM_ID / MASTER_ADDR is not reachable from any local interface.",
    "Point MASTER_ADDR / NCCL_COMM_ID at an address on the shared data network."};
constexpr WarnRule kPeerGone = {
    "peer_gone",
    "comm.remote_exited",
    kE,
    true,
    "the other end of a connection went away: a peer process crashed, was killed (OOM killer, "
    "watchdog, scheduler) or aborted after its own error. These errors are fallout.",
    "Find the first error in time across all ranks and hosts (a segfault, an OOM kill in "
    "dmesg, a Python exception, the first NCCL WARN); fix that."};
constexpr WarnRule kConnAbort = {
    "conn_abort",
    "comm.bootstrap_failure",
    kE,
    false,
    "a socket connect was aborted; in the NCCL versions that print this, an error-handling "
    "bug hides the real socket error (nccl#1515).",
    "Upgrade NCCL; then check reachability between the hosts on the selected interface."};
constexpr WarnRule kLoopbackPeer = {
    "loopback_peer",
    "comm.bootstrap_failure",
    kE,
    false,
    "a rank tried to connect to a loopback address (127.x.x.x): the address it was given is "
    "the peer's loopback, which reaches nothing on another host. The peer (or the master) "
    "took `lo` as its socket interface (NCCL_SOCKET_IFNAME=lo, or no other interface "
    "matched), or its host name resolves to 127.0.x.1 (/etc/hosts).",
    "Set NCCL_SOCKET_IFNAME to the interface of the network the hosts share (`ip -br addr`; "
    "e.g. NCCL_SOCKET_IFNAME=eth0, or a prefix such as enp), and make MASTER_ADDR a routable "
    "address, not a name that /etc/hosts maps to 127.0.x.1."};
constexpr WarnRule kConnectFailed = {
    "connect_failed",
    "comm.bootstrap_failure",
    kE,
    false,
    "a rank could not open a TCP connection to another: a firewall or security group blocks "
    "the ports, the hosts are not routed to each other, or NCCL picked an interface the peer "
    "cannot reach.",
    "Make sure every node reaches the others on the interface NCCL uses (same "
    "NCCL_SOCKET_IFNAME on every node, same subnet), open TCP ports between the nodes, and "
    "check MASTER_ADDR."};
constexpr WarnRule kIbCompletion = {
    "ib_completion", "comm.ib_error", kE, false, "an InfiniBand/RoCE work request failed.", ""};
constexpr WarnRule kIbQp = {
    "ib_qp",
    "comm.ib_error",
    kE,
    false,
    "an RDMA queue pair could not be brought up: wrong GID index or port, a RoCE port mixed "
    "into an InfiniBand HCA list, or the link is down.",
    "Check `ibv_devinfo` (ports ACTIVE, link layer), `show_gids`; set NCCL_IB_HCA to ports of "
    "one kind and NCCL_IB_GID_INDEX for RoCE (often 3 for RoCEv2/IPv4)."};
// ibv_modify_qp's INIT -> RTR step resolves the remote GID's address: ETIMEDOUT (110),
// ENETUNREACH (101) or EHOSTUNREACH (113) there mean this NIC has no path to the peer's NIC.
constexpr WarnRule kIbQpUnreachable = {
    "ib_qp_unreachable",
    "comm.ib_error",
    kE,
    false,
    "an RDMA queue pair could not reach the remote NIC (bringing it to RTR resolves the remote "
    "GID's address, and that timed out or had no route): this NIC cannot reach the peer's NIC - "
    "the two are on subnets without a route between them, a rail-optimised fabric where only "
    "NICs of the same rail reach each other, or a VLAN/routing gap.",
    "Test that NIC pair between the two hosts with `ib_write_bw -d DEV -x GID_INDEX`; check the "
    "NICs' IP subnets and routes, and that NCCL_IB_GID_INDEX picks a GID whose address is on "
    "that routed subnet (`show_gids`); on a rail-optimised fabric set NCCL_CROSS_NIC=0 so that "
    "each channel keeps to one rail."};
// ENODATA (61) with a local GID of "::": the GID table entry NCCL picked is empty.
constexpr WarnRule kIbQpNoGid = {
    "ib_qp_no_gid",
    "comm.ib_error",
    kE,
    false,
    "an RDMA queue pair could not be set up because the local GID is empty (no IP address on the "
    "RoCE interface, so its GID table entry holds zeros).",
    "Give the NIC's network interface its IP address (`show_gids`: the GID at "
    "NCCL_IB_GID_INDEX must not be ::), then rerun."};
constexpr WarnRule kIbRegMr = {
    "ib_reg_mr",
    "comm.ib_error",
    kE,
    false,
    "RDMA memory registration failed: the locked-memory limit (ulimit -l) is too low, or GPU "
    "memory cannot be registered (no nvidia-peermem / DMA-BUF).",
    "Raise the memlock limit to unlimited (ulimit -l unlimited; in containers "
    "--ulimit memlock=-1 and --cap-add=IPC_LOCK); load nvidia-peermem."};
constexpr WarnRule kIbOpen = {
    "ib_open",
    "comm.ib_error",
    kE,
    false,
    "an RDMA device exists but cannot be opened: typically a container without "
    "/dev/infiniband, or missing permissions. NCCL then drops to TCP sockets.",
    "Pass the devices into the container (--device=/dev/infiniband, --cap-add=IPC_LOCK, or "
    "--privileged), with host networking for RoCE."};
constexpr WarnRule kIbAsync = {
    "ib_async",
    "comm.ib_error",
    kW,
    false,
    "the RDMA device reported an asynchronous event (port state or GID table change).",
    "Check the link (`ibv_devinfo`, switch logs) and whether GIDs change while jobs run."};
constexpr WarnRule kArch = {
    "arch",
    "comm.unsupported_gpu",
    kE,
    false,
    "this NCCL build has no kernels for this GPU architecture.",
    "Use an NCCL (and PyTorch) build compiled for this GPU (e.g. NCCL >= 2.26.2 for sm_120 "
    "Blackwell GeForce)."};
constexpr WarnRule kNvls = {
    "nvls",
    "comm.nvls_failure",
    kE,
    false,
    "NVLink SHARP (NVLS) setup failed in CUDA multicast: the fabric manager or driver does not "
    "support it, or the GPUs are partitioned.",
    "Work around with NCCL_NVLS_ENABLE=0; check that nvidia-fabricmanager runs and that driver "
    "and CUDA support multicast (CUDA >= 12.1); if the fabric manager was restarted while the "
    "GPUs stayed up, reset the GPUs or reboot the node (multicast needs them set up again); "
    "upgrade NCCL."};
constexpr WarnRule kGraphFallback = {
    "graph_fallback",
    "comm.topology_error",
    kW,
    false,
    "NCCL's topology search could not build the rings/trees it looked for and fell back to a "
    "simple order: fewer channels or a slower path than the hardware allows.",
    "Compare `nvidia-smi topo -m` with what NCCL detected (NCCL_DEBUG_SUBSYS=GRAPH, "
    "NCCL_TOPO_DUMP_FILE); upgrade NCCL; in VMs provide NCCL_TOPO_FILE."};
constexpr WarnRule kRingLoop = {
    "ring_loop",
    "comm.topology_error",
    kE,
    false,
    "ranks computed different rings because they detected the topology differently; in NCCL "
    "< 2.20 uninitialised PCI link speeds (VMs without max_link_speed in sysfs) cause this.",
    "Upgrade to NCCL >= 2.20, or give every rank the same NCCL_TOPO_FILE.",
    "2.20"};
constexpr WarnRule kCuda = {
    "cuda",
    "comm.cuda_error",
    kE,
    false,
    "a CUDA call inside NCCL failed (driver/runtime mismatch, out of memory, an illegal access "
    "left by an earlier kernel, or an unsupported feature).",
    "Read the CUDA error text; check `nvidia-smi`, driver vs CUDA version, free GPU memory, "
    "and run with CUDA_LAUNCH_BLOCKING=1 to find an earlier faulting kernel."};
// cudaErrorSystemNotReady (802): on NVSwitch machines (HGX, DGX), CUDA waits for the Fabric
// Manager to have joined the GPUs to the NVLink fabric.
constexpr WarnRule kCudaNotReady = {
    "cuda_not_ready",
    "comm.cuda_error",
    kE,
    false,
    "CUDA says the system is not yet initialized (cudaErrorSystemNotReady): on an NVSwitch "
    "machine (HGX/DGX) the Fabric Manager is not running or the GPUs have not joined the NVLink "
    "fabric yet; no CUDA work can start.",
    "Start the Fabric Manager (`systemctl status nvidia-fabricmanager`; its version must match "
    "the driver's), wait until `nvidia-smi -q` shows the fabric state Completed, then rerun."};
constexpr WarnRule kTopology = {
    "topology",
    "comm.topology_error",
    kE,
    false,
    "NCCL could not read or make sense of the machine topology (sysfs paths missing in VMs, "
    "WSL2 or containers with a partial /sys).",
    "Run where /sys exposes the PCI tree (or give NCCL_TOPO_FILE); on WSL2 use a NCCL "
    "version that supports it; NCCL_DEBUG_SUBSYS=GRAPH shows what was detected."};
constexpr WarnRule kProxyOpFailed = {
    "proxy_op_failed",
    "comm.nccl_warn",
    kW,
    true,
    "NCCL's proxy thread failed an operation (a connection setup, a buffer registration) for "
    "a rank; the return code is the error's class and the WARN line before it in the same "
    "process says what failed.",
    "Fix the error logged just before it (an RDMA, socket or CUDA failure)."};
constexpr WarnRule kCollMismatch = {
    "coll_mismatch",
    "hang.desync",
    kE,
    false,
    "NCCL (2.4 - 2.5) compared the collectives the ranks launched and found them different at "
    "and around the rank it names: the ranks called different collectives, in a different "
    "order or with different sizes (NVIDIA/nccl#296).",
    "Make every rank call the same collectives in the same order with the same counts and "
    "datatypes; NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL logs each rank's calls to compare "
    "(TORCH_DISTRIBUTED_DEBUG=DETAIL does the comparison in PyTorch)."};
// ncclIbIsend: the receiver posted a smaller buffer than the sender's message (return code 5,
// invalid usage). The sender's NCCL calls its own size "local" and the peer's receive "remote".
constexpr WarnRule kIbSizeMismatch = {
    "ib_size_mismatch",
    "hang.desync",
    kE,
    false,
    "a rank sent a larger message over InfiniBand than its peer posted a receive for: the two "
    "disagree on a transfer. Either the ranks called different collectives or sizes, or they "
    "are configured differently (NCCL version, NCCL_PROTO, NCCL_BUFFSIZE or other NCCL_* "
    "settings differ between the nodes: NVIDIA/nccl#969 was an environment error; NCCL PR #605, "
    "which made it an invalid-usage error, names both causes). NCCL maintainers also ask about "
    "NICs with PCIe relaxed ordering forced on (NVIDIA/nccl#531, #615), and NCCL before 2.7.8 "
    "raised it wrongly for send/recv (its release notes, quoted in NVIDIA/nccl#1937).",
    "Compare NCCL_* variables and the NCCL version on every node (the same NCCL_PROTO and "
    "NCCL_BUFFSIZE everywhere), then the collectives each rank calls (NCCL_DEBUG_SUBSYS=COLL); "
    "on Mellanox NICs `mlxconfig -d <dev> q PCI_WR_ORDERING` should read per_mkey (the "
    "default), not forced relaxed ordering.",
    nullptr,
    0.5};
constexpr WarnRule kTimeout = {
    "timeout",
    "comm.nccl_warn",
    kE,
    false,
    "an NCCL operation timed out waiting for peers: a rank is stuck, dead or unreachable.",
    "Find the rank that is behind (the last collective each rank reached) and why it stopped."};

constexpr Signature kSignatures[] = {
    {{"Failed to open libibverbs", nullptr}, nullptr, &kNoVerbs},
    {{"posix_fallocate", "failed to extend /dev/shm", "No space left on device", nullptr},
     nullptr,
     &kShmNoSpace},
    {{"Error while creating shared memory", nullptr}, nullptr, &kShmCreate},
    {{"Error while attaching to shared memory", nullptr}, nullptr, &kShmAttach},
    {{"no algorithm/protocol available", nullptr}, nullptr, &kNoAlgo},
    {{"Duplicate GPU detected", nullptr}, nullptr, &kDuplicateGpu},
    {{"no socket interface found", "No socket interface found",
      "Address family not supported by protocol", nullptr},
     nullptr,
     &kNoInterface},
    {{"neither AF_INET", nullptr}, nullptr, &kBadPeerAddress},
    {{"No interface found in the same subnet", nullptr}, nullptr, &kNoSubnet},
    // A failed verbs call is an RDMA error whatever errno text it carries ("Network is
    // unreachable" from ibv_modify_qp is a RoCE route or GID problem, not a TCP connect): these
    // come before the socket rules, which match the same errno texts.
    {{"Got completion", nullptr}, nullptr, &kIbCompletion},
    {{"ibv_modify_qp failed with 110", "ibv_modify_qp failed with 101",
      "ibv_modify_qp failed with 113", nullptr},
     nullptr,
     &kIbQpUnreachable},
    {{"ibv_modify_qp failed with error Connection timed out",
      "ibv_modify_qp failed with error Network is unreachable",
      "ibv_modify_qp failed with error No route to host", nullptr},
     nullptr,
     &kIbQpUnreachable},
    {{"ibv_modify_qp failed with 61", "ibv_modify_qp failed with error No data", nullptr},
     nullptr,
     &kIbQpNoGid},
    {{"ibv_modify_qp", nullptr}, nullptr, &kIbQp},
    {{"ibv_reg_mr", "ibv_reg_dmabuf_mr", nullptr}, nullptr, &kIbRegMr},
    {{"ibv_open_device", "Unable to open device", "ibv_get_device_list", nullptr},
     nullptr,
     &kIbOpen},
    {{"Cannot allocate memory", nullptr}, "transport/net_ib", &kIbRegMr},
    {{"Cannot allocate memory", nullptr}, "misc/ibvwrap", &kIbRegMr},
    {{"Failed to execute operation", "Error encountered progressing operation"},
     nullptr,
     &kProxyOpFailed},
    {{"Connection closed by remote peer", "Connection reset by peer", "Broken pipe",
      "Connection closed by localRank"},
     nullptr,
     &kPeerGone},
    {{"remote process exited", "Socket recv failed", "Call to recv from", "socketProgress"},
     nullptr,
     &kPeerGone},
    {{"retcode 6", nullptr}, nullptr, &kPeerGone},
    {{"Connect to 127.", "connect to 127.", nullptr}, nullptr, &kLoopbackPeer},
    {{"Software caused connection abort", nullptr}, nullptr, &kConnAbort},
    {{"Call to connect", "Connect to ", "socketStartConnect", "Connection refused"},
     nullptr,
     &kConnectFailed},
    {{"Connection timed out", "No route to host", "Network is unreachable", nullptr},
     nullptr,
     &kConnectFailed},
    {{"Cannot allocate memory", nullptr}, nullptr, &kIbRegMr},
    {{"Got async event", nullptr}, nullptr, &kIbAsync},
    {{"no kernel image is available", "ncclMaxSharedMem", nullptr}, nullptr, &kArch},
    {{"NVLS", "nvls", "multicast", nullptr}, nullptr, &kNvls},
    {{"", nullptr}, "transport/nvls", &kNvls},
    {{"Could not find a path for pattern", nullptr}, nullptr, &kGraphFallback},
    {{"does not loop back", nullptr}, nullptr, &kRingLoop},
    {{"system not yet initialized", "system not yet ready", nullptr}, nullptr, &kCudaNotReady},
    {{"Cuda failure", "CUDA failure", "Cuda error", "CUDA error"}, nullptr, &kCuda},
    {{"cudaError", "Call to cu", "unhandled cuda error", nullptr}, nullptr, &kCuda},
    {{"Failed to CUDA calloc", "Failed to CUDA malloc", "Failed to CUDA host alloc", nullptr},
     nullptr,
     &kCuda},
    {{"", nullptr}, "graph/", &kTopology},
    {{"Could not find real path", "Topology detection", nullptr}, nullptr, &kTopology},
    {{"Mismatched collective detected", nullptr}, nullptr, &kCollMismatch},
    {{"collective mismatch error", nullptr}, nullptr, &kIbSizeMismatch},
    {{"Timeout", "timed out", "timeout", nullptr}, nullptr, &kTimeout},
};

// Every rule names a finding in the catalogue (benign rules name none).
consteval bool EveryRuleIdInCatalogue() {
  for (const Signature& sig : kSignatures)
    if (sig.rule->id[0] != '\0' && !InCatalogue(sig.rule->id)) return false;
  return true;
}
static_assert(EveryRuleIdInCatalogue(), "a WARN rule names a finding id missing from the catalogue");

bool Matches(const Signature& sig, std::string_view text, std::string_view source) {
  if (sig.source && source.substr(0, std::string_view(sig.source).size()) != sig.source)
    return false;
  for (const char* s : sig.any) {
    if (!s) break;
    if (std::string_view(s).empty() || text.find(s) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

const WarnRule* MatchWarn(std::string_view text, std::string_view source_file) {
  for (const auto& sig : kSignatures)
    if (Matches(sig, text, source_file)) return sig.rule;
  return nullptr;
}

const WarnRule& ShmCreateWithSystemError() { return kShmCreateSystem; }

const char* NcclResultName(int code) {
  switch (code) {
    case 1:
      return "ncclUnhandledCudaError (unhandled cuda error)";
    case 2:
      return "ncclSystemError (unhandled system error: socket, shm, ibverbs, memory)";
    case 3:
      return "ncclInternalError (internal error)";
    case 4:
      return "ncclInvalidArgument (invalid argument)";
    case 5:
      return "ncclInvalidUsage (invalid usage)";
    case 6:
      return "ncclRemoteError (remote process exited or there was a network error)";
    case 7:
      return "ncclInProgress";
  }
  return "unknown ncclResult_t";
}

}  // namespace commdx::analysis
