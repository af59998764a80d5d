// Every NCCL WARN explained: each warning (and each framework "Last error:" text) is matched
// against comm_warn_catalogue and grouped into one finding per cause, citing its lines. The
// first error in a process is the root signal: peer-closed errors that follow another error of
// the same process are marked as fallout. Unknown warnings become comm.nccl_warn. Error-return
// traces ("file.cc:41 -> 2") without any WARN still get a finding naming the error code.
#include <cctype>
#include <cstdlib>
#include <map>
#include <set>
#include <vector>

#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"
#include "analysis/comm_warn_catalogue.h"
#include "base/text.h"

namespace commdx::analysis {

namespace {

int CompletionStatus(const std::string& text) {
  for (const char* key : {"with error ", "status=", "error="}) {
    size_t at = text.find(key);
    if (at == std::string::npos) continue;
    size_t i = at + std::string_view(key).size();
    if (i < text.size() && !std::isdigit(static_cast<unsigned char>(text[i]))) {
      size_t paren = text.find('(', i);  // "status=transport retry counter exceeded(12)"
      if (paren == std::string::npos) continue;
      i = paren + 1;
    }
    return std::atoi(text.c_str() + i);
  }
  return -1;
}

// The link layer of the RDMA NICs the log's processes used ("Using [0]mlx5_0:1/RoCE"): "RoCE",
// "IB", or "" when the log does not say or says both. Without those lines, a completion error
// that prints its GIDs (NCCL 2.19+: "localGid ::ffff:192.168.6.3") says RoCE v2 when they are
// IPv4-mapped: InfiniBand GIDs carry the subnet prefix (fe80:...), not an IPv4 address.
std::string LinkLayer(const NcclSetup& s, const std::string& warning) {
  std::string layer;
  if (warning.find("Gid ::ffff:") != std::string::npos ||
      warning.find("Gids::ffff:") != std::string::npos ||
      warning.find("Gids ::ffff:") != std::string::npos)
    layer = "RoCE";
  for (const NcclNetInfo& n : s.nets)
    for (const NcclNic& nic : n.nics) {
      if (nic.link_layer.empty()) continue;
      if (!layer.empty() && layer != nic.link_layer) return "";
      layer = nic.link_layer;
    }
  return layer;
}

void ExplainCompletion(int status, const std::string& link_layer, Finding& f) {
  if (status == 12) {
    f.detail +=
        " Status 12 is 'transport retry counter exceeded' (a timeout): right at the "
        "first transfer it means the NICs cannot reach each other - on RoCE usually the "
        "wrong GID index or RoCE version, or routing/PFC; on InfiniBand a link or subnet "
        "manager problem. After traffic has flowed it is a fabric too congested or lossy for "
        "the retries (PFC/ECN not set up on RoCE, a flapping link), or retries cut short by a "
        "lowered NCCL_IB_TIMEOUT or NCCL_IB_RETRY_CNT.";
    const std::string roce =
        "check `show_gids` on both nodes and set NCCL_IB_GID_INDEX (3 is RoCEv2/IPv4 on most "
        "setups) and NCCL_IB_TC to the class the switches expect";
    const std::string ib =
        "check the port state on both nodes (`ibstat`: State Active, Physical state LinkUp), "
        "that a subnet manager runs (`sminfo`), and the cables and switch ports of the hosts "
        "involved";
    const std::string test =
        "; test with `ib_write_bw` between the hosts. If it came mid-run: look at the switches' "
        "congestion counters (PFC pause frames, ECN marks) and leave NCCL_IB_TIMEOUT (default "
        "20: about 4 s a try) and NCCL_IB_RETRY_CNT (default 7) at their defaults or higher.";
    if (link_layer == "RoCE") {
      f.detail += " The log's NICs are RoCE (its NIC lines, or IPv4-mapped GIDs: RoCE v2).";
      f.fix = "On RoCE: " + roce + test;
    } else if (link_layer == "IB") {
      f.detail += " The log's NICs are InfiniBand.";
      f.fix = "On InfiniBand: " + ib + test;
    } else {
      f.fix =
          "The log does not say whether the NICs are InfiniBand or RoCE (`ibv_devinfo`: "
          "link_layer). On InfiniBand, " +
          ib + ". On RoCE, " + roce + test;
    }
  } else if (status == 4) {
    f.detail +=
        " Status 4 is a local protection error: the NIC could not access the registered "
        "memory; with GPUDirect RDMA this is usually PCIe ACS or the IOMMU blocking peer "
        "traffic between NIC and GPU.";
    f.fix =
        "Disable ACS on the PCIe switches and use iommu=pt (or off); NCCL_NET_GDR_LEVEL=LOC "
        "confirms it by turning GDR off.";
  } else if (status == 5) {
    f.detail +=
        " Status 5 (work request flushed) is fallout of an earlier error on the queue "
        "pair.";
    f.fix = "Look for the first completion error or WARN before this one.";
  } else {
    f.fix =
        "Check the link (`ibv_devinfo`, `ibstat`), GID settings and that `ib_write_bw` works "
        "between the hosts.";
  }
  if (status >= 0) f.metrics.push_back({"ib_status", static_cast<double>(status), Unit::kCode});
}

// The rank a process holds in the largest communicator it is in (the world, for a training job),
// or -1 when no init line ties the process to a rank or two ranks tie.
int ProcessRank(const NcclSetup& s, const std::string& host, int64_t pid) {
  int rank = -1, size = 0;
  bool tie = false;
  for (const auto& c : s.communicators)
    for (const auto& [r, info] : c.ranks) {
      if (info.pid != pid || info.host != host || c.nranks < size) continue;
      if (c.nranks > size)
        rank = r, size = c.nranks, tie = false;
      else if (r != rank)
        tie = true;
    }
  return tie ? -1 : rank;
}

int64_t IntAfter(const std::string& text, std::string_view key) {
  size_t at = text.find(key);
  if (at == std::string::npos || at + key.size() >= text.size() || !IsDigit(text[at + key.size()]))
    return -1;
  return std::strtoll(text.c_str() + at + key.size(), nullptr, 10);
}

// The parties a mismatch WARN names, in its title: NCCL 2.4's "Mismatched collective detected,
// please check your collective calls at and around rank 39" and NET/IB's "req 0/1 tag 0 peer
// 10.10.23.6<58683> collective mismatch error, local size 496640 remote size 65536".
void NameParties(std::string_view key, const std::vector<const NcclWarning*>& warns, Finding& f) {
  if (key == "coll_mismatch") {
    std::set<int64_t> ranks;
    for (const auto* w : warns)
      if (int64_t r = IntAfter(w->text, "around rank "); r >= 0) ranks.insert(r);
    if (ranks.empty()) return;
    std::string list;
    for (int64_t r : ranks) list += (list.empty() ? "" : ", ") + std::to_string(r);
    f.title = std::string("NCCL detected mismatched collectives at and around rank") +
              (ranks.size() > 1 ? "s " : " ") + list;
    if (ranks.size() == 1) f.rank = static_cast<int>(*ranks.begin());
  } else if (key == "ib_size_mismatch") {
    const std::string& text = warns.front()->text;
    const int64_t local = IntAfter(text, "local size "), remote = IntAfter(text, "remote size ");
    size_t at = text.find("peer ");
    std::string peer =
        at == std::string::npos
            ? "its peer"
            : "peer " + text.substr(at + 5, text.find_first_of("< ,", at + 5) - (at + 5));
    if (local < 0 || remote < 0) return;
    f.title = "Ranks disagree on a transfer over InfiniBand: " + peer + " posted a " +
              std::to_string(remote) + "-byte receive for a " + std::to_string(local) +
              "-byte message";
    f.metrics.push_back({"local_size", static_cast<double>(local), Unit::kBytes});
    f.metrics.push_back({"remote_size", static_cast<double>(remote), Unit::kBytes});
  }
}

struct Group {
  const WarnRule* rule = nullptr;
  std::vector<const NcclWarning*> warns;
  bool all_fallout = true;
};

// A peer's connection closed and no other warning in the inputs says why: NCCL's ncclRemoteError
// ("a network error or a remote process exiting") covers both, so the finding does too. In
// NVIDIA/nccl#2076 "Connection reset by peer" was InfiniBand trouble on some nodes.
void AddNetworkDrop(const NcclWarning& first, Finding& f) {
  std::string peer;
  if (size_t at = first.text.find(" from "); at != std::string::npos) {
    size_t end = first.text.find('<', at + 6);
    if (end != std::string::npos) peer = first.text.substr(at + 6, end - at - 6);
    if (peer.find_first_not_of("0123456789abcdefABCDEF.:[]") != std::string::npos) peer.clear();
  }
  f.title = "A peer process exited, or the network dropped the connection";
  f.detail +=
      " Here no other error is in these inputs: the peer's own log may hold one, or the network "
      "dropped the connection (a link going down, a flapping port), which NCCL reports the same "
      "way (ncclRemoteError: \"a network error or a remote process exiting\").";
  f.fix += " If the peer's log shows no error of its own, check the network of its host" +
           (peer.empty() ? std::string() : " (" + peer + ")") +
           ": the InfiniBand/RoCE port state and error counters (`ibstat`, `perfquery`), the "
           "Ethernet link and its drop counters (`ip -s link`), and `dmesg` for link-down "
           "events.";
}

// An unknown warning's text with its numbers (decimal, 0x hex) as '#': one finding for a message
// logged with a counter, an address or a size that changes each time.
std::string Shape(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (!IsDigit(text[i])) {
      out += text[i++];
      continue;
    }
    if (text[i] == '0' && i + 1 < text.size() && (text[i + 1] == 'x' || text[i + 1] == 'X')) i += 2;
    while (i < text.size() && std::isxdigit(static_cast<unsigned char>(text[i]))) ++i;
    out += '#';
  }
  return out;
}

}  // namespace

std::vector<Finding> FindCommWarnings(const Job& job, const Options&) {
  const NcclSetup& s = job.nccl;
  std::map<std::string, Group> groups;  // by rule key, or by text for unknown warnings
  std::vector<std::string> order;
  std::map<std::pair<std::string, int64_t>, uint32_t> first_error_line;  // per process
  // A shared-memory segment NCCL could not create says why only through the line before it; with
  // no CUDA failure anywhere and NCCL's code a system error, the cause is /dev/shm's room.
  bool system_error = false, cuda_failure = false;
  for (const auto& n : s.notes)
    system_error = system_error || (n.kind == "nccl_error_code" && n.code == 2);
  std::vector<const WarnRule*> rules;  // each warning's rule, matched once
  rules.reserve(s.warnings.size());
  for (const auto& w : s.warnings) {
    rules.push_back(MatchWarn(w.text, w.source_file));
    cuda_failure =
        cuda_failure || (rules.back() && std::string_view(rules.back()->id) == "comm.cuda_error");
  }
  for (size_t i = 0; i < s.warnings.size(); ++i) {
    const NcclWarning& w = s.warnings[i];
    const WarnRule* rule = rules[i];
    if (rule && std::string_view(rule->key) == "shm_create" && system_error && !cuda_failure)
      rule = &ShmCreateWithSystemError();
    if (rule && rule->severity == Severity::kInfo) continue;  // benign
    auto proc = std::make_pair(w.host, w.pid);
    bool fallout = false;
    if (rule && rule->fallout) {
      auto it = first_error_line.find(proc);
      fallout = it != first_error_line.end() && it->second < w.ref.loc.line;
    }
    // A process's first error, whatever its kind: a closed connection after this process failed
    // a connection of its own is that failure's fallout.
    if (!fallout && !first_error_line.count(proc)) first_error_line[proc] = w.ref.loc.line;
    std::string key = rule ? rule->key : "unknown:" + Shape(w.text.substr(0, 60));
    if (!groups.count(key)) order.push_back(key);
    Group& g = groups[key];
    g.rule = rule;
    g.warns.push_back(&w);
    g.all_fallout = g.all_fallout && fallout;
  }
  // Whether the inputs hold a warning that is not fallout (a closed connection, ...): a cause.
  bool other_warning = false;
  for (const auto& [key, g] : groups) other_warning = other_warning || !g.rule || !g.rule->fallout;
  std::vector<Finding> out;
  for (const auto& key : order) {
    const Group& g = groups[key];
    const NcclWarning& first = *g.warns.front();
    // Every rule's id is checked against the catalogue when comm_warn_catalogue.cc compiles.
    Finding f = NewFinding(g.rule ? *FindingId::Find(g.rule->id) : FindingId("comm.nccl_warn"));
    f.method_step = 4;  // seen in the log's warnings, whatever step the id belongs to
    uint64_t lines = 0;
    std::set<std::pair<std::string, int64_t>> procs;
    // A framework's copy of a WARN ("Last error:" in a job log) is a line, not a process.
    uint64_t copies = 0;
    for (const auto* w : g.warns) {
      lines += w->count;
      if (w->from_framework && ProcessRank(s, w->host, w->pid) < 0)
        copies += w->count;
      else
        procs.insert({w->host, w->pid});
    }
    if (procs.empty()) {  // only copies: each stands for the process that logged it
      for (const auto* w : g.warns) procs.insert({w->host, w->pid});
      copies = 0;
    }
    std::string where =
        std::to_string(lines) + " warning line" + (lines == 1 ? "" : "s") + " from " +
        std::to_string(procs.size()) + " process" + (procs.size() == 1 ? "" : "es") +
        (copies > 0 ? " (" + std::to_string(copies) + " of them a framework's copy in a job log)"
                    : "");
    // One rank raised it: the finding is that rank's. A framework's copy of a WARN ("Last
    // error:" in the job log, from a process no init line names) does not make it another's.
    std::set<int> ranks;
    bool unknown = false;
    for (const auto* w : g.warns) {
      const int rank = ProcessRank(s, w->host, w->pid);
      if (rank >= 0)
        ranks.insert(rank);
      else if (!w->from_framework)
        unknown = true;
    }
    if (ranks.size() == 1 && !unknown) {
      f.rank = *ranks.begin();
      where += ", rank " + std::to_string(*ranks.begin());
    }
    if (g.rule) {
      // Every line follows an error of its own process: that error is the finding to act on
      // (a peer "gone" after this process failed a connection is not a crash to look for).
      f.severity = g.all_fallout ? Severity::kInfo : g.rule->severity;
      f.detail =
          "NCCL: \"" + first.text.substr(0, 200) + "\" (" + where + "). Meaning: " + g.rule->cause;
      f.fix = g.rule->fix;
      f.confidence = g.rule->confidence;
      NameParties(g.rule->key, g.warns, f);
      if (g.all_fallout)
        f.detail += " Here it follows an earlier error of the same process, which is the cause.";
      else if (std::string_view(g.rule->key) == "peer_gone" && !other_warning)
        AddNetworkDrop(first, f);
      if (std::string_view(g.rule->key) == "ib_completion")
        ExplainCompletion(CompletionStatus(first.text), LinkLayer(s, first.text), f);
      if (std::string_view(g.rule->key) == "topology" &&
          (first.host.rfind("DESKTOP-", 0) == 0 || first.host == "DESKTOP" ||
           first.text.find("wsl") != std::string::npos ||
           first.text.find("WSL") != std::string::npos)) {
        f.detail +=
            " The host looks like Windows/WSL2, where /sys has no PCI tree: NCCL "
            "versions of that time did not support WSL2.";
        f.fix =
            "Run on native Linux, or use a recent NCCL with WSL2 support (single node); "
            "NCCL_P2P_DISABLE=1 / NCCL_SHM_DISABLE=1 are the usual WSL2 workarounds.";
      }
    } else {
      f.severity = Severity::kWarning;
      f.confidence = 0.5;
      f.title = "NCCL warning: " + CutAtWord(first.text, 100);
      bool varied = false;
      for (const auto* w : g.warns) varied = varied || w->text != first.text;
      f.detail = "commdx does not know this message (" + where +
                 (varied ? "; the lines differ only in their numbers" : "") + ").";
      f.fix =
          "Search the NCCL issue tracker for the message; rerun with "
          "NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH,ENV on all ranks for context.";
    }
    std::vector<const NcclLineRef*> refs;
    for (const auto* w : g.warns) refs.push_back(&w->ref);
    AddEvidence(f, refs, 4);
    f.metrics.push_back({"warning_lines", static_cast<double>(lines), Unit::kCount});
    if (g.rule && g.rule->fixed_in && !g.all_fallout) {
      std::string version = JobVersion(s);
      if (version.empty() || CompareVersions(version, g.rule->fixed_in) < 0) {
        Finding old = NewFinding("comm.nccl_too_old");
        old.severity = Severity::kWarning;
        old.method_step = 9;
        old.title = "NCCL " +
                    (version.empty() ? std::string("(version not in the log)") : version) +
                    " has a bug fixed in " + g.rule->fixed_in + " that produces this warning";
        old.detail = std::string("Known NCCL issue: ") + g.rule->cause;
        old.fix = std::string("Upgrade NCCL to ") + g.rule->fixed_in + " or later.";
        old.refs.push_back(f.refs.front());
        old.confidence = version.empty() ? 0.6 : 0.9;
        out.push_back(std::move(f));
        out.push_back(std::move(old));
        continue;
      }
    }
    out.push_back(std::move(f));
  }
  // Connect retries without a failure yet: the job is stuck reaching a peer.
  std::vector<const NcclLineRef*> retries;
  for (const auto& n : s.notes)
    if (n.kind == "connect_retry") retries.push_back(&n.ref);
  bool have_bootstrap = false;
  for (const auto& f : out) have_bootstrap = have_bootstrap || f.id == "comm.bootstrap_failure";
  if (!retries.empty() && !have_bootstrap) {
    Finding f = NewFinding("comm.bootstrap_failure");
    f.severity = Severity::kWarning;
    f.method_step = 4;
    f.title = "NCCL keeps retrying a TCP connection to a peer";
    f.detail =
        "\"Call to connect returned ..., retrying\": a peer does not answer on the "
        "interface NCCL picked (firewall, routing, wrong interface, or the peer is not up). "
        "A job that stops here hangs in init.";
    f.fix =
        "Check that every node reaches the others on the interface NCCL uses "
        "(NCCL_SOCKET_IFNAME), open the ports, check MASTER_ADDR.";
    AddEvidence(f, retries, 3);
    out.push_back(std::move(f));
  }
  // Failures without a WARN line: error-return traces or a framework's error name.
  if (s.warnings.empty()) {
    std::vector<const NcclLineRef*> refs;
    int code = -1;
    for (const auto& n : s.notes)
      if ((n.kind == "error_return" || n.kind == "nccl_error_code") && n.code > 0) {
        if (code < 0) code = n.code;
        refs.push_back(&n.ref);
      }
    if (code > 0) {
      Finding f = NewFinding(code == 6   ? FindingId("comm.remote_exited")
                             : code == 1 ? FindingId("comm.cuda_error")
                                         : FindingId("comm.nccl_warn"));
      f.severity = Severity::kError;
      f.title = std::string("NCCL calls failed with ") + NcclResultName(code);
      f.detail =
          "The log has the error-return trace but not the WARN line that names the cause "
          "(it is usually printed just before, possibly by another rank).";
      f.fix =
          "Collect the full NCCL_DEBUG=INFO output of every rank; the first WARN names the "
          "cause.";
      // What the code most often means when nothing else in the log says (NCCL's
      // troubleshooting guide; the bootstrap's "no socket interface found" was an internal
      // error before NCCL 2.28).
      if (code == 2)
        f.fix +=
            " Most often a system error is one of: the ranks cannot open TCP connections to "
            "each other (containers on their own bridge network: run them with --network=host; "
            "NCCL_SOCKET_IFNAME naming an interface the other nodes cannot reach; a "
            "firewall), /dev/shm too small in a container (--shm-size=1g or --ipc=host), or an "
            "RDMA device that cannot be opened (memlock limit, /dev/infiniband not passed in).";
      else if (code == 3)
        f.fix +=
            " Before NCCL 2.28 an internal error at init is most often the bootstrap finding "
            "no network interface matching NCCL_SOCKET_IFNAME on some host (names that differ "
            "between hosts: list each, or give a common prefix).";
      AddEvidence(f, refs, 4);
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace commdx::analysis
