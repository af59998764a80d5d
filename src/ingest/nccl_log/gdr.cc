// GPUDirect RDMA decisions (grammar §2.4, §2.7):
//
//   x:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)  (2.5+)
//   vm:656:667 [0] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 0 'eth0'
//   x:1:1 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 1a000 / HCA 0 (distance 5 > 2)
//   x:1:1 [0] NCCL INFO GPU Direct RDMA Enabled for GPU 1a000 / HCA 0 (distance 4 <= 5), read 1
//   vm:656:676 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 1                   (2.24+)
//   x:1:1 [0] NCCL INFO DMA-BUF is available on GPU device 0
#include "base/text.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

Parsed ParseGdr(const LineInfo& li, Builder& b) {
  std::string_view s = li.msg;
  if (StartsWith(s, "Connected all rings")) {
    size_t at = s.find(" GDR ");
    if (at != std::string_view::npos) {
      std::string_view v = Trim(s.substr(at + 5));
      if (v != "0" && v != "1") return Parsed::kMalformed;
      b.Net(li).ring_gdr = v == "1";
    }
    return Parsed::kYes;
  }
  if (StartsWith(s, "DMA-BUF is available")) {
    b.Net(li).dmabuf = true;
    return Parsed::kYes;
  }
  if (!StartsWith(s, "NET/") && !StartsWith(s, "GPU Direct")) return Parsed::kNo;
  size_t at = s.find("GPU Direct RDMA ");
  if (at == std::string_view::npos) return Parsed::kNo;
  NcclGdrStatus g;
  std::string_view head = s.substr(0, at);  // "NET/IB : " or ""
  if (StartsWith(head, "NET/")) {
    head.remove_prefix(4);
    g.net = std::string(Trim(head.substr(0, head.find(':'))));
  }
  std::string_view rest = s.substr(at + 16);
  if (ConsumePrefix(rest, "Enabled"))
    g.enabled = true;
  else if (ConsumePrefix(rest, "Disabled"))
    g.enabled = false;
  else
    return Parsed::kMalformed;
  size_t hca = rest.find("HCA ");
  if (hca != std::string_view::npos) {
    std::string_view h = rest.substr(hca + 4);
    size_t q1 = h.find('\'');
    size_t q2 = q1 == std::string_view::npos ? q1 : h.find('\'', q1 + 1);
    g.hca = q2 != std::string_view::npos ? std::string(h.substr(q1 + 1, q2 - q1 - 1))
                                         : std::string(h.substr(0, h.find(' ')));
  }
  size_t paren = rest.find('(');
  if (paren != std::string_view::npos) {
    std::string_view r = rest.substr(paren);
    g.reason = std::string(r.substr(0, r.find(')') + 1));
  }
  g.ref = b.Ref(li);
  b.Net(li).gdr.push_back(std::move(g));
  return Parsed::kYes;
}

}  // namespace commdx::ingest::nccl_log
