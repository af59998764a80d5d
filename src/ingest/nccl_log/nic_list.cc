// Interface and NIC lists (grammar §2.2, §2.4, §2.5):
//
//   NvYt-...:97:221 [0] NCCL INFO Bootstrap : Using [0]ip6tnl0:fe80::e866:19ff:fe1e:a688%ip6tnl0<0>
//       [1]veth0:2a02:6b8:fc1d:3606:0:4457:edef:600a<0>                       (2.4 - 2.7, indexed)
//   nccl-tests:225:225 [0] NCCL INFO Bootstrap : Using eno1np0:172.31.45.2<0>  (2.8 - 2.23)
//   Bootstrap: Using eth0:10.7.147.73<0>                                       (2.24+)
//   gpu-bql-144-103:18553:18553 [0] INFO NET : Using interface enp3s0:192.168.144.103<0>  (<= 2.3)
//   sh-01:98911:98911 [0] NCCL INFO NET/Socket : Using [0]enP1p1s0f0:10.30.0.127<0>
//       [1]enP1p1s0f1:10.30.0.227<0>
//   NET/IB : Using [0]ibp0:1/IB/SHARP [1]ibp1:1/IB/SHARP [RO]; OOB eth0:10.7.147.73<0>
//   NET/IB : Using [0]={[0] mlx5_2:1/RoCE, [1] mlx5_3:1/RoCE} [1]={...}      (merged NICs)
//   NET/IB: [1] rocep1s0f1:uverbs1:1/RoCE provider=Mlx5 speed=200000 ...      (2.28 device line)
// and a list the poster re-wrapped one entry per line ("INFO NET/Socket : Using" followed by
// "[0]bond0:192.168.1.161<0>", "[1]br-05ab815fa14e:172.19.0.1<0>", ...).
#include "base/text.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

namespace {

// "[3]" at the start of tok: the index; tok is advanced past it.
int ConsumeIndex(std::string_view& tok) {
  if (tok.empty() || tok[0] != '[') return -1;
  size_t close = tok.find(']');
  if (close == std::string_view::npos) return -1;
  auto v = ParseInt(tok.substr(1, close - 1));
  if (!v) return -1;
  tok.remove_prefix(close + 1);
  return static_cast<int>(*v);
}

// "eth0:10.0.0.1<0>" or "ip6tnl0:fe80::1%ip6tnl0<0>".
bool ParseSocketIface(std::string_view tok, NcclNic& nic) {
  size_t colon = tok.find(':');
  size_t lt = tok.rfind('<');
  if (colon == std::string_view::npos || colon == 0 || lt == std::string_view::npos || lt < colon)
    return false;
  nic.name = std::string(tok.substr(0, colon));
  nic.address = std::string(tok.substr(colon + 1, lt - colon - 1));
  return true;
}

// "mlx5_0:1/IB", "ibp0:1/IB/SHARP", "rocep1s0f1:uverbs1:1/RoCE".
bool ParseIbDevice(std::string_view tok, NcclNic& nic) {
  while (!tok.empty() && (tok.back() == ',' || tok.back() == '}')) tok.remove_suffix(1);
  size_t slash = tok.find('/');
  if (slash == std::string_view::npos) return false;
  std::string_view dev_port = tok.substr(0, slash);
  size_t colon = dev_port.rfind(':');
  if (colon == std::string_view::npos) return false;
  nic.name = std::string(dev_port.substr(0, dev_port.find(':')));
  if (auto p = ParseInt(dev_port.substr(colon + 1))) nic.port = static_cast<int>(*p);
  std::string_view ll = tok.substr(slash + 1);
  nic.link_layer = std::string(ll.substr(0, ll.find('/')));
  return !nic.name.empty();
}

// Each process prints its lists once per communicator: keep each NIC once.
void AddNic(NcclNetInfo& net, NcclNic nic) {
  for (const auto& n : net.nics)
    if (n.role == nic.role && n.name == nic.name && n.address == nic.address &&
        n.index == nic.index)
      return;
  net.nics.push_back(std::move(nic));
}

void AddList(const LineInfo& li, Builder& b, std::string_view role, std::string_view list) {
  auto& net = b.Net(li);
  net.nic_refs.push_back(b.Ref(li));
  std::string_view oob;
  size_t oob_at = list.find("OOB ");
  if (oob_at != std::string_view::npos) {
    oob = Trim(list.substr(oob_at + 4));
    list = list.substr(0, oob_at);
  }
  int pending_index = -1;
  for (std::string_view tok : SplitWhitespace(list)) {
    int idx = ConsumeIndex(tok);
    if (idx >= 0) pending_index = idx;
    if (!tok.empty() && tok[0] == '=') tok.remove_prefix(1);
    if (!tok.empty() && tok[0] == '{') {
      tok.remove_prefix(1);
      int inner = ConsumeIndex(tok);
      if (inner >= 0 && tok.empty()) continue;
    }
    if (tok.empty() || tok == ";" || tok == "[RO];" || tok == "[RO]") continue;
    NcclNic nic;
    nic.role = std::string(role);
    nic.index = pending_index;
    bool ok = role == "ib" ? ParseIbDevice(tok, nic) : ParseSocketIface(tok, nic);
    if (ok) AddNic(net, std::move(nic));
  }
  if (!oob.empty()) {
    NcclNic nic;
    nic.role = "oob";
    if (ParseSocketIface(oob, nic)) AddNic(net, std::move(nic));
  }
  b.open_nic_list = &net;
  b.open_nic_role = std::string(role);
  b.open_nic_line = li.line_no;
}

}  // namespace

Parsed ParseNicList(const LineInfo& li, Builder& b) {
  std::string_view s = li.msg;
  if (!StartsWith(s, "Bootstrap") && !StartsWith(s, "NET")) return Parsed::kNo;
  std::string_view role;
  if (ConsumePrefix(s, "Bootstrap : Using ") || ConsumePrefix(s, "Bootstrap: Using ")) {
    role = "bootstrap";
  } else if (ConsumePrefix(s, "NET/Socket : Using") || ConsumePrefix(s, "NET/Socket: Using")) {
    if (StartsWith(TrimLeft(s), "2 threads") || Contains(s, " threads and ")) return Parsed::kYes;
    role = "socket";
  } else if (ConsumePrefix(s, "NET : Using interface ")) {
    role = "socket";
  } else if (ConsumePrefix(s, "NET/IB : Using") || ConsumePrefix(s, "NET/IB: Using")) {
    if (ConsumePrefix(s, " interface ")) return Parsed::kYes;  // "... for sideband communication"
    role = "ib";
  } else if (ConsumePrefix(s, "NET/IB: [") || ConsumePrefix(s, "NET/IB : [")) {
    // One device per line: "NET/IB: [1] rocep1s0f1:uverbs1:1/RoCE provider=Mlx5 ...".
    size_t close = s.find(']');
    if (close == std::string_view::npos) return Parsed::kMalformed;
    std::string item = "[" + std::string(s.substr(0, close + 1));
    std::string_view rest = TrimLeft(s.substr(close + 1));
    item += std::string(rest.substr(0, rest.find(' ')));
    AddList(li, b, "ib", item);
    return Parsed::kYes;
  } else {
    return Parsed::kNo;
  }
  AddList(li, b, role, s);
  return Parsed::kYes;
}

Parsed ParseNicContinuation(const LineInfo& li, Builder& b) {
  if (!b.open_nic_list || li.line_no != b.open_nic_line + 1) return Parsed::kNo;
  std::string_view tok = Trim(li.msg);
  if (tok.empty() || tok[0] != '[' || Contains(tok, " ")) return Parsed::kNo;
  std::string_view rest = tok;
  int idx = ConsumeIndex(rest);
  if (idx < 0 || rest.empty()) return Parsed::kNo;
  NcclNic nic;
  nic.role = b.open_nic_role;
  nic.index = idx;
  bool ok = nic.role == "ib" ? ParseIbDevice(rest, nic) : ParseSocketIface(rest, nic);
  if (!ok) return Parsed::kNo;
  AddNic(*b.open_nic_list, std::move(nic));
  b.open_nic_list->nic_refs.push_back(b.Ref(li));
  b.open_nic_line = li.line_no;
  return Parsed::kYes;
}

}  // namespace commdx::ingest::nccl_log
