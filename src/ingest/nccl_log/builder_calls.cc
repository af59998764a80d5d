// COLL and TUNING lines into per-communicator call streams (coll.cc reads the lines).
#include <algorithm>

#include "ingest/nccl_log/builder.h"
#include "ingest/nccl_log/builder_impl.h"

namespace commdx::ingest::nccl_log {

namespace {

// A TUNING line follows its COLL line within one group launch; a queue longer than this means
// the TUNING subsystem is off, and the oldest calls will never get theirs.
constexpr size_t kMaxUntuned = 1024;

}  // namespace

void Builder::AddCall(const LineInfo& li, std::string_view comm_ptr, int nranks,
                      const NcclCall& call) {
  Impl& im = *impl_;
  ProcState& st = im.State(li);
  size_t idx = st.last_call_comm;
  if (idx == kNone || im.comms[idx].ptr != comm_ptr) {
    auto key = std::make_pair(st.proc, std::string(comm_ptr));
    auto [it, inserted] = im.comm_by_ptr.emplace(key, im.comms.size());
    if (inserted) {  // no init line named this pointer: its calls stand alone
      CommRec rec;
      rec.proc = st.proc;
      rec.dev = li.dev;
      rec.ptr = std::string(comm_ptr);
      im.comms.push_back(std::move(rec));
    }
    idx = st.last_call_comm = it->second;
  }
  CommRec& rec = im.comms[idx];
  if (nranks > 0) rec.call_nranks = nranks;
  rec.calls.push_back(call);
  DevState& ds = st.devs[li.dev];
  if (rec.starts > 0 || rec.completes > 0) ds.start_comm = idx;
  if (rec.rank.rank > 0) return;  // only rank 0 prints TUNING lines
  ds.untuned.emplace_back(idx, rec.calls.size() - 1);
  if (ds.untuned.size() > kMaxUntuned) ds.untuned.pop_front();
}

void Builder::AddTuning(const LineInfo& li, CollectiveType type, uint64_t bytes, NcclAlgo algo,
                        NcclProto proto) {
  Impl& im = *impl_;
  ProcState& st = im.State(li);
  auto dit = st.devs.find(li.dev);
  if (dit == st.devs.end()) return;  // TUNING without COLL lines: nothing to attach it to
  auto& queue = dit->second.untuned;
  for (auto it = queue.begin(); it != queue.end(); ++it) {
    NcclCall& call = im.comms[it->first].calls[it->second];
    if ((type != CollectiveType::kUnknown && call.type != type) || call.bytes() != bytes) continue;
    call.algo = algo;
    call.proto = proto;
    queue.erase(it);
    return;
  }
}

void EmitCallStreams(std::vector<CommRec>& comms, const std::deque<NcclProcess>& procs,
                     const std::vector<std::string>& ids, const std::string& path,
                     NcclSetup& setup) {
  for (size_t i = 1; i < comms.size(); ++i) {
    CommRec& rec = comms[i];
    if (rec.calls.empty()) continue;
    NcclCallStream s;
    s.identified = rec.rank.rank >= 0 && i < ids.size() && !ids[i].empty();
    s.comm_id = s.identified ? ids[i] : "?" + rec.ptr;
    s.rank = rec.rank.rank;
    s.nranks = std::max(rec.nranks, rec.call_nranks);
    const NcclProcess& p = procs[rec.proc];
    s.host = p.host;
    s.pid = p.pid;
    s.cuda_dev = rec.rank.cuda_dev >= 0 ? rec.rank.cuda_dev : rec.dev;
    s.file = path;
    s.calls = std::move(rec.calls);
    setup.call_streams.push_back(std::move(s));
  }
}

}  // namespace commdx::ingest::nccl_log
