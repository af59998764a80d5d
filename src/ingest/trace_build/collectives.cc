// Finishing a rank, part 2: one Collective per communication kernel (model/comm_kernels.h), with
// the arguments from the kernel, else from the record_param_comms CPU op that issued it, else
// from the kernel name; and the process groups they belong to.
#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "base/text.h"
#include "ingest/trace_build/names.h"
#include "ingest/trace_build/rank_builder.h"
#include "model/comm_kernels.h"

namespace commdx::ingest::trace_build {

namespace {

// "[0, 1]", "[0,1,2,3]", or the same as a JSON array.
std::vector<int> ParseRankList(std::string_view s) {
  std::vector<int> out;
  size_t i = 0;
  while (i < s.size()) {
    if (!IsDigit(s[i])) {
      ++i;
      continue;
    }
    std::string_view rest = s.substr(i);
    size_t before = rest.size();
    if (auto v = ConsumeInt(rest); v && *v < (1 << 24)) out.push_back(static_cast<int>(*v));
    i += before - rest.size();
  }
  return out;
}

// nccl-tests counts all_gather and reduce_scatter by the whole (gathered / scattered) buffer,
// the others by one rank's buffer.
uint64_t MessageBytes(CollectiveType type, int64_t in_n, int64_t out_n, int group, int dsize) {
  if (dsize <= 0) return 0;
  int64_t n = -1;
  switch (type) {
    case CollectiveType::kAllGather:
    case CollectiveType::kGather:
      n = out_n > 0 ? out_n : (in_n > 0 && group > 0 ? in_n * group : -1);
      break;
    case CollectiveType::kReduceScatter:
    case CollectiveType::kScatter:
      n = in_n > 0 ? in_n : (out_n > 0 && group > 0 ? out_n * group : -1);
      break;
    case CollectiveType::kRecv:
      n = out_n > 0 ? out_n : in_n;
      break;
    default:
      n = in_n > 0 ? in_n : out_n;
  }
  return n > 0 ? static_cast<uint64_t>(n) * static_cast<uint64_t>(dsize) : 0;
}

// The message bytes of a collective from its args: elements and dtype, or one rank's buffer.
uint64_t ArgBytes(CollectiveType type, int64_t in_n, int64_t out_n, int group,
                  std::string_view dtype, int64_t rank_bytes) {
  if (rank_bytes < 0) return MessageBytes(type, in_n, out_n, group, DtypeBytes(dtype));
  bool recv_side = type == CollectiveType::kReduceScatter || type == CollectiveType::kScatter;
  return MessageBytes(type, recv_side ? -1 : rank_bytes, recv_side ? rank_bytes : -1, group, 1);
}

// The nccl:* annotations of a rank (sorted by start, as host_ops are), with what they name.
struct NamedCall {
  int64_t start_ns, end_ns;
  uint32_t thread;
  uint32_t name;
  CollectiveType type;
};

std::vector<NamedCall> NcclAnnotations(const RankTrace& t, const Interner& names) {
  std::vector<NamedCall> out;
  for (const HostOp& op : t.host_ops)
    if (op.flags & kHostFlagCollective)
      if (CollectiveType c = CollectiveFromAnnotation(names.Lookup(op.name));
          c != CollectiveType::kUnknown)
        out.push_back({op.start_ns, op.end_ns, op.thread, op.name, c});
  return out;
}

// The collective named by the innermost nccl:* annotation around `launch_ns` on `thread`.
CollectiveType AnnotatedType(const std::vector<NamedCall>& calls, uint32_t thread,
                             int64_t launch_ns) {
  auto it = std::upper_bound(calls.begin(), calls.end(), launch_ns,
                             [](int64_t ts, const NamedCall& c) { return ts < c.start_ns; });
  while (it != calls.begin()) {
    --it;
    if (it->thread == thread && it->end_ns >= launch_ns) return it->type;
    if (launch_ns - it->start_ns > 10'000'000'000) break;  // 10 s back is enough
  }
  return CollectiveType::kUnknown;
}

// Collectives seen only as the nccl:* annotation PyTorch puts around each call: no NCCL kernel and
// no record_param_comms arguments, as in an Nsight Systems capture of emit_nvtx ranges (no
// arguments) of a job whose NCCL calls launched no kernel (one rank: NCCL copies the buffer).
void AddAnnotatedCollectives(RankTrace& t, const std::vector<NamedCall>& calls) {
  for (const NamedCall& call : calls) {
    Collective c;
    c.issue_ns = call.start_ns;
    c.name = call.name;
    c.type = call.type;
    t.collectives.push_back(c);
  }
}

// The sends and receives of one batch_isend_irecv (PyTorch's coalesced point-to-point calls):
// record_param_comms ops that end before the batch's one SendRecv kernel is launched, on the
// launching thread, after that thread's previous communication launch and with no other
// collective's record between them and the launch.
struct P2pBatch {
  const RankBuilder::PendingColl* send = nullptr;
  const RankBuilder::PendingColl* recv = nullptr;
  int sends = 0, recvs = 0;
};

// How a batch is kept: one send (type send), one receive (type recv), or one of each that
// together shift by the same distance (type sendrecv, peer = where it sends: it receives from
// as far back, as pipeline stages and ring exchanges do). Returns the record to take the group,
// size and datatype from, or nullptr when the batch is none of these.
const RankBuilder::PendingColl* KeepBatch(const P2pBatch& b, const RankTrace& t,
                                          const Interner& names, Collective& c) {
  if (b.sends > 1 || b.recvs > 1 || (b.sends == 0 && b.recvs == 0)) return nullptr;
  if (!b.recv) {
    c.type = CollectiveType::kSend;
    c.peer = static_cast<int32_t>(b.send->dst);
    return b.send;
  }
  if (!b.send) {
    c.type = CollectiveType::kRecv;
    c.peer = static_cast<int32_t>(b.recv->src);
    return b.recv;
  }
  c.type = CollectiveType::kSendRecv;
  // Both peers are ranks of the group: a shift when to + from = 2 x this rank (mod the size).
  const std::vector<int> ranks = ParseRankList(names.Lookup(b.send->pg_ranks));
  const auto self = std::find(ranks.begin(), ranks.end(), t.rank);
  const auto n = static_cast<int64_t>(ranks.size());
  if (self != ranks.end() && b.send->dst >= 0 && b.recv->src >= 0) {
    const int64_t r = self - ranks.begin();
    if ((b.send->dst + b.recv->src - 2 * r) % n == 0) c.peer = static_cast<int32_t>(b.send->dst);
  }
  return b.send;
}

}  // namespace

void RankBuilder::BuildCollectives() {
  auto& t = trace_;
  std::unordered_map<int64_t, size_t> by_ext;
  for (size_t i = 0; i < ext_args_.size(); ++i)
    if (ext_args_[i].external_id >= 0) by_ext.emplace(ext_args_[i].external_id, i);

  // The record_param_comms op that encloses a launch on the same thread.
  auto enclosing = [this, &t](const GpuOp& op) -> const PendingColl* {
    if (op.launch < 0) return nullptr;
    const RuntimeCall& rc = t.runtime[op.launch];
    auto it = std::upper_bound(ext_args_.begin(), ext_args_.end(), rc.start_ns,
                               [](int64_t ts, const PendingColl& p) { return ts < p.start_ns; });
    while (it != ext_args_.begin()) {
      --it;
      if (it->thread == rc.thread && it->end_ns >= rc.start_ns) return &*it;
      if (rc.start_ns - it->start_ns > 10'000'000'000) break;  // 10 s back is enough
    }
    return nullptr;
  };

  // A group by its name, added at its first collective: a hash index, as a trace can name 100k
  // groups (a scan of those seen so far made 40k groups 2 s, 100k 18 s).
  std::unordered_map<std::string, int32_t> pg_by_name;
  for (size_t i = 0; i < t.process_groups.size(); ++i)
    pg_by_name.emplace(t.process_groups[i].name, static_cast<int32_t>(i));
  auto pg_index = [&t, &pg_by_name](std::string_view name, std::string_view desc,
                                    std::string_view ranks) {
    if (auto it = pg_by_name.find(std::string(name)); it != pg_by_name.end()) return it->second;
    ProcessGroupInfo pg{std::string(name), std::string(desc), ParseRankList(ranks), 0};
    pg.size = static_cast<int>(pg.ranks.size());
    t.process_groups.push_back(std::move(pg));
    const auto i = static_cast<int32_t>(t.process_groups.size() - 1);
    pg_by_name.emplace(name, i);
    return i;
  };

  // CPU-only traces (gloo): the collectives exist only as record_param_comms ops.
  if (colls_.empty() && ext_args_.empty())
    return AddAnnotatedCollectives(t, NcclAnnotations(t, names_));
  if (colls_.empty()) {
    for (const PendingColl& a : ext_args_) {
      Collective c;
      c.issue_ns = a.start_ns;
      c.name = a.coll_name;
      c.type = CollectiveFromArgName(names_.Lookup(a.coll_name));
      c.from_args = true;
      c.in_nelems = a.in_nelems;
      c.out_nelems = a.out_nelems;
      c.group_size = static_cast<int32_t>(a.group_size);
      c.seq = a.seq;
      c.dtype = a.dtype;
      c.pg =
          pg_index(names_.Lookup(a.pg_name), names_.Lookup(a.pg_desc), names_.Lookup(a.pg_ranks));
      c.bytes = ArgBytes(c.type, c.in_nelems, c.out_nelems, c.group_size, names_.Lookup(a.dtype),
                         a.rank_bytes);
      t.collectives.push_back(c);
    }
    return;
  }

  // Each thread's communication launches in time order: a batch's records lie between its
  // kernel's launch and the thread's launch before it.
  std::unordered_map<uint32_t, std::vector<int64_t>> launches;
  for (const PendingColl& k : colls_)
    if (const int32_t l = t.gpu_ops[k.gpu_op].launch; l >= 0)
      launches[t.runtime[l].thread].push_back(t.runtime[l].start_ns);
  for (auto& [thread, at] : launches) std::sort(at.begin(), at.end());
  auto batch = [this, &t, &launches](const GpuOp& op) {
    P2pBatch b;
    if (op.launch < 0) return b;
    const RuntimeCall& rc = t.runtime[op.launch];
    const std::vector<int64_t>& at = launches[rc.thread];
    const auto prev = std::lower_bound(at.begin(), at.end(), rc.start_ns);
    const int64_t after = prev == at.begin() ? INT64_MIN : *(prev - 1);
    auto it = std::lower_bound(ext_args_.begin(), ext_args_.end(), rc.start_ns,
                               [](const PendingColl& p, int64_t ts) { return p.start_ns < ts; });
    while (it != ext_args_.begin()) {
      --it;
      if (it->start_ns <= after) break;
      if (it->thread != rc.thread) continue;
      const CollectiveType type = CollectiveFromArgName(names_.Lookup(it->coll_name));
      if (type == CollectiveType::kSend) {
        ++b.sends;
        b.send = &*it;
      } else if (type == CollectiveType::kRecv) {
        ++b.recvs;
        b.recv = &*it;
      } else {
        break;
      }
    }
    return b;
  };

  const std::vector<NamedCall> annotated = NcclAnnotations(t, names_);
  for (const PendingColl& k : colls_) {
    GpuOp& op = t.gpu_ops[k.gpu_op];
    const PendingColl* a = k.coll_name ? &k : nullptr;
    if (const int64_t ext = gpu_ids_[k.gpu_op].external_id; !a && ext >= 0)
      if (auto it = by_ext.find(ext); it != by_ext.end()) a = &ext_args_[it->second];
    if (!a) a = enclosing(op);
    const std::string_view kernel_name = names_.Lookup(op.name);
    Collective c;
    c.gpu_op = k.gpu_op;
    c.start_ns = op.start_ns;
    c.end_ns = op.end_ns;
    c.issue_ns = op.launch >= 0 ? t.runtime[op.launch].start_ns : op.start_ns;
    c.launched = op.launch >= 0 || t.runtime.empty();
    // NCCL's grid is its channel count; other families' blocks are not channels.
    const CommKernel kernel = ClassifyCommKernel(kernel_name);
    const bool nccl_like = kernel.family == CommFamily::kNccl || kernel.family == CommFamily::kNone;
    c.grid_x = nccl_like ? op.grid_x : 0;
    c.family = nccl_like ? CommFamily::kNccl : kernel.family;
    c.name = op.name;
    c.type = kernel.type;
    if (op.launch >= 0 &&
        (c.type == CollectiveType::kUnknown || c.type == CollectiveType::kSendRecv)) {
      const RuntimeCall& rc = t.runtime[op.launch];
      if (auto named = AnnotatedType(annotated, rc.thread, rc.start_ns);
          named != CollectiveType::kUnknown)
        c.type = named;
    }
    bool batched = false;
    if (!a && kernel.type == CollectiveType::kSendRecv) {
      a = KeepBatch(batch(op), t, names_, c);
      batched = a != nullptr;
    }
    if (a) {
      const std::string_view coll_name = names_.Lookup(a->coll_name);
      CollectiveType from_args = CollectiveFromArgName(coll_name);
      if (from_args != CollectiveType::kUnknown && !batched) c.type = from_args;
      c.from_args = true;
      c.name = batched ? op.name : a->coll_name;
      c.in_nelems = a->in_nelems;
      c.out_nelems = a->out_nelems;
      c.group_size = static_cast<int32_t>(a->group_size);
      c.seq = a->seq;
      c.dtype = a->dtype;
      if (!batched) {
        c.peer = static_cast<int32_t>(c.type == CollectiveType::kRecv ? a->src : a->dst);
        if (c.type != CollectiveType::kSend && c.type != CollectiveType::kRecv) c.peer = -1;
      }
      c.pg = pg_index(names_.Lookup(a->pg_name), names_.Lookup(a->pg_desc),
                      names_.Lookup(a->pg_ranks));
      c.bytes = ArgBytes(c.type, c.in_nelems, c.out_nelems, c.group_size, names_.Lookup(a->dtype),
                         a->rank_bytes);
    }
    t.collectives.push_back(c);
  }
  std::stable_sort(
      t.collectives.begin(), t.collectives.end(),
      [](const Collective& x, const Collective& y) { return x.issue_ns < y.issue_ns; });
  for (size_t i = 0; i < t.collectives.size(); ++i)
    t.gpu_ops[t.collectives[i].gpu_op].collective = static_cast<int32_t>(i);
}

void RankBuilder::BuildProcessGroups() {
  auto& pgs = trace_.process_groups;
  // By name: a trace may configure 100,000 groups, and a search of the list for each was
  // quadratic (40,000 groups: 1.7 s).
  std::unordered_map<std::string, size_t> by_name;
  by_name.reserve(pgs.size() + pg_configs_.size());
  for (size_t i = 0; i < pgs.size(); ++i) by_name.emplace(pgs[i].name, i);
  for (const PgConfig& cfg : pg_configs_) {
    auto [at, fresh] = by_name.emplace(cfg.name, pgs.size());
    if (fresh) {
      pgs.push_back({cfg.name, cfg.desc, cfg.ranks, cfg.size});
      continue;
    }
    ProcessGroupInfo& it = pgs[at->second];
    if (it.desc.empty()) it.desc = cfg.desc;
    if (it.ranks.empty()) it.ranks = cfg.ranks;
    if (it.size == 0) it.size = cfg.size;
  }
  for (auto& pg : pgs)
    if (pg.size == 0) pg.size = static_cast<int>(pg.ranks.size());
  for (auto& c : trace_.collectives)
    if (c.group_size <= 0 && c.pg >= 0) c.group_size = pgs[c.pg].size;
}

}  // namespace commdx::ingest::trace_build
