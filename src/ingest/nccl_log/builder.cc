#include "ingest/nccl_log/builder.h"

#include <algorithm>

#include "base/text.h"
#include "ingest/nccl_log/builder_impl.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

namespace {
constexpr size_t kMaxRefChars = 400;
}  // namespace

Builder::Builder(std::string path, Job& job) : path_(std::move(path)), job_(job), impl_(new Impl) {
  impl_->comms.emplace_back();  // orphan
}

Builder::~Builder() = default;

SourceLoc Builder::Loc(const LineInfo& li) const {
  SourceLoc loc{path_};
  loc.line = static_cast<uint32_t>(std::min<uint64_t>(li.line_no, UINT32_MAX));
  loc.offset = li.offset;
  loc.has_offset = true;
  if (li.col > 1) loc.col = li.col;
  return loc;
}

NcclLineRef Builder::Ref(const LineInfo& li) const {
  std::string_view text = Trim(li.raw);
  std::string line(text.substr(0, kMaxRefChars));
  if (text.size() > kMaxRefChars) line += "...";
  return {Loc(li), std::move(line)};
}

NcclProcess& Builder::Process(const LineInfo& li) {
  ProcState& st = impl_->State(li);
  NcclProcess& p = impl_->procs[st.proc];
  if (li.dev >= 0 && std::find(p.devices.begin(), p.devices.end(), li.dev) == p.devices.end()) {
    p.devices.push_back(li.dev);
    std::sort(p.devices.begin(), p.devices.end());
  }
  return p;
}

void Builder::CountNcclLine(const LineInfo& li) {
  ++nccl_lines_;
  if (li.host.empty() && li.pid == 0 && li.dev < 0) return;
  if (impl_->last_state != kNone &&
      (li.dev < 0 ||
       (li.dev == impl_->last_counted_dev && impl_->last_state == impl_->last_counted_state))) {
    const NcclProcess& p = impl_->procs[impl_->states[impl_->last_state].proc];
    if (p.pid == li.pid && p.host == li.host) return;
  }
  Process(li);
  impl_->last_counted_dev = li.dev;
  impl_->last_counted_state = impl_->last_state;
}

NcclNetInfo& Builder::Net(const LineInfo& li) {
  ProcState& st = impl_->State(li);
  if (st.net == kNone) {
    NcclNetInfo n;
    n.host = std::string(li.host);
    n.pid = li.pid;
    impl_->nets.push_back(std::move(n));
    st.net = impl_->nets.size() - 1;
  }
  return impl_->nets[st.net];
}

void Builder::AddCommInit(const LineInfo& li, const CommInit& init) {
  ProcState& st = impl_->State(li);
  Process(li);
  auto key = std::make_pair(st.proc, std::string(init.ptr));
  auto [it, inserted] = impl_->comm_by_ptr.emplace(key, impl_->comms.size());
  if (inserted) {
    CommRec rec;
    rec.proc = st.proc;
    rec.dev = li.dev >= 0 ? li.dev : init.cuda_dev;
    rec.ptr = std::string(init.ptr);
    impl_->comms.push_back(std::move(rec));
    st.comms.push_back(it->second);
  }
  size_t idx = it->second;
  CommRec& rec = impl_->comms[idx];
  rec.nranks = init.nranks;
  if (!init.comm_id.empty()) rec.comm_id = std::string(init.comm_id);
  if (!init.parent.empty() && !init.color.empty()) {
    rec.parent = std::string(init.parent);
    rec.color = std::string(init.color);
  }
  rec.rank.rank = init.rank;
  if (init.cuda_dev >= 0)
    rec.rank.cuda_dev = init.cuda_dev;
  else if (rec.rank.cuda_dev < 0)
    rec.rank.cuda_dev = li.dev;
  if (init.nvml_dev >= 0) rec.rank.nvml_dev = init.nvml_dev;
  if (!init.bus_id.empty()) rec.rank.bus_id = ToLower(init.bus_id);
  rec.rank.host = std::string(li.host);
  rec.rank.pid = li.pid;
  if (rec.rank.ref.line.empty() || init.complete) rec.rank.ref = Ref(li);
  if (rec.init_refs.size() < 4) rec.init_refs.push_back(Ref(li));
  DevState& ds = st.devs[rec.dev];
  auto flush = [&] {
    for (auto& p : ds.pending) {
      switch (p.type) {
        case Pending::kConn:
          rec.conns.push_back(std::move(p.conn));
          break;
        case Pending::kRing:
          rec.rings[p.channel] = std::move(p.text);
          rec.ring_nchannels = std::max(rec.ring_nchannels, p.nchannels);
          break;
        case Pending::kTrees:
          rec.trees.push_back(std::move(p.text));
          break;
        case Pending::kCounts:
          rec.counts = p.counts;
          rec.counts_ref = std::move(p.ref);
          break;
      }
    }
    ds.pending.clear();
    ds.pending_conn_by_msg.clear();
  };
  if (init.start || !init.complete) {  // the pre-2.4 "comm 0x.. rank 0 nranks 2" opens a comm too
    if (init.start) ++rec.starts;
    ds.start_comm = idx;
    flush();
  }
  if (init.complete) {
    ++rec.completes;
    if (rec.starts == 0) flush();
    ds.complete_comm = idx;
  }
}

void Builder::AddCommNodes(const LineInfo& li, const CommNodes& nodes) {
  ProcState& st = impl_->State(li);
  auto it = impl_->comm_by_ptr.find(std::make_pair(st.proc, std::string(nodes.ptr)));
  if (it == impl_->comm_by_ptr.end()) {
    CommInit init;
    init.ptr = nodes.ptr;
    init.rank = nodes.rank;
    init.nranks = nodes.nranks;
    init.start = true;
    AddCommInit(li, init);
    it = impl_->comm_by_ptr.find(std::make_pair(st.proc, std::string(nodes.ptr)));
  }
  CommRec& rec = impl_->comms[it->second];
  rec.nnodes = nodes.nnodes;
  rec.rank.local_rank = nodes.local_rank;
}

bool Builder::CountDuplicateConnection(const LineInfo& li) {
  ProcState& st = impl_->State(li);
  auto dit = st.devs.find(li.dev);
  if (dit == st.devs.end()) return false;
  DevState& ds = dit->second;
  if (ds.start_comm == kNone) {
    auto pit = ds.pending_conn_by_msg.find(li.msg);
    if (pit == ds.pending_conn_by_msg.end()) return false;
    ++ds.pending[pit->second].conn.count;
    return true;
  }
  CommRec& rec = impl_->comms[ds.start_comm];
  auto it = rec.conn_by_msg.find(li.msg);
  if (it == rec.conn_by_msg.end()) return false;
  ++rec.conns[it->second].count;
  return true;
}

void Builder::AddConnection(const LineInfo& li, NcclConnection conn) {
  ProcState& st = impl_->State(li);
  conn.host = std::string(li.host);
  conn.pid = li.pid;
  conn.ref = Ref(li);
  DevState& ds = st.devs[li.dev];
  if (ds.start_comm != kNone) {
    CommRec& rec = impl_->comms[ds.start_comm];
    rec.conn_by_msg.emplace(impl_->Keep(li.msg), static_cast<uint32_t>(rec.conns.size()));
    rec.conns.push_back(std::move(conn));
    return;
  }
  Pending p{Pending::kConn, std::move(conn), -1, -1, {}, {}, {}};
  ds.pending_conn_by_msg.emplace(impl_->Keep(li.msg), ds.pending.size());
  ds.pending.push_back(std::move(p));
}

void Builder::AddRingOrder(const LineInfo& li, int channel, int nchannels, std::string_view order) {
  ProcState& st = impl_->State(li);
  DevState& ds = st.devs[li.dev];
  if (ds.start_comm != kNone) {
    CommRec& rec = impl_->comms[ds.start_comm];
    rec.rings[channel] = std::string(order);
    rec.ring_nchannels = std::max(rec.ring_nchannels, nchannels);
    return;
  }
  ds.pending.push_back(Pending{Pending::kRing, {}, channel, nchannels, std::string(order), {}, {}});
}

void Builder::AddTrees(const LineInfo& li, std::string_view body) {
  ProcState& st = impl_->State(li);
  DevState& ds = st.devs[li.dev];
  if (ds.start_comm != kNone) {
    CommRec& rec = impl_->comms[ds.start_comm];
    if (rec.trees.size() < 64) rec.trees.emplace_back(body);
    return;
  }
  ds.pending.push_back(Pending{Pending::kTrees, {}, -1, -1, std::string(body), {}, {}});
}

void Builder::AddChannelCounts(const LineInfo& li, const ChannelCounts& counts) {
  ProcState& st = impl_->State(li);
  DevState& ds = st.devs[li.dev];
  if (ds.start_comm != kNone) {
    CommRec& rec = impl_->comms[ds.start_comm];
    rec.counts = counts;
    rec.counts_ref = Ref(li);
    return;
  }
  ds.pending.push_back(Pending{Pending::kCounts, {}, -1, -1, {}, counts, Ref(li)});
}

void Builder::SetVersion(const LineInfo& li, std::string_view full) {
  std::string_view number = VersionNumber(full);
  if (!li.host.empty() || li.pid != 0) {
    NcclProcess& p = Process(li);
    if (p.version.empty()) {
      p.version = std::string(number);
      p.version_full = std::string(full);
      p.version_loc = Loc(li);
      p.version_line = Ref(li).line;
      return;
    }
    if (p.version == number) return;
  }
  for (const auto& v : impl_->loose_versions)
    if (v.version == number && v.host == li.host && v.pid == li.pid) return;
  impl_->loose_versions.push_back(
      NcclVersionSeen{std::string(number), std::string(li.host), li.pid, Ref(li)});
}

void Builder::AddPlugin(const LineInfo& li, NcclPluginKind kind, std::string_view name,
                        std::string_view path) {
  NcclProcess& p = Process(li);
  NcclLoadedPlugin* plugin = nullptr;
  for (auto& x : p.plugins)
    if (x.kind == kind) plugin = &x;
  if (!plugin) {
    plugin = &p.plugins.emplace_back();
    plugin->kind = kind;
    plugin->ref = Ref(li);
  }
  if (plugin->name.empty()) plugin->name = std::string(name);
  if (plugin->path.empty()) plugin->path = std::string(path);
}

void Builder::AddOverride(const LineInfo& li, std::string_view name, std::string_view value,
                          bool from_command_line) {
  std::string key = "E\n" + std::string(li.host) + '\n' + std::to_string(li.pid) + '\n' +
                    std::string(name) + '=' + std::string(value);
  if (!impl_->dedupe.emplace(key, impl_->overrides.size()).second) return;
  impl_->overrides.push_back(NcclEnvOverride{std::string(name), std::string(value),
                                             std::string(li.host), li.pid, from_command_line,
                                             Ref(li)});
}

void Builder::AddWarning(const LineInfo& li, std::string_view text, bool from_framework) {
  std::string key = "W\n" + std::string(li.host) + '\n' + std::to_string(li.pid) + '\n' +
                    std::to_string(li.dev) + '\n' + std::string(li.source) + '\n' +
                    std::string(text);
  auto [it, inserted] = impl_->dedupe.emplace(key, impl_->warnings.size());
  if (!inserted) {
    ++impl_->warnings[it->second].count;
    return;
  }
  NcclWarning w;
  w.text = std::string(Trim(text));
  w.host = std::string(li.host);
  w.pid = li.pid;
  w.cuda_dev = li.dev;
  w.source_file = std::string(li.source);
  w.time_ns = li.time_ns;
  w.from_framework = from_framework;
  w.ref = Ref(li);
  impl_->warnings.push_back(std::move(w));
}

void Builder::AddNote(const LineInfo& li, std::string_view kind, std::string_view text, int code) {
  std::string key = "N\n" + std::string(li.host) + '\n' + std::to_string(li.pid) + '\n' +
                    std::string(kind) + '\n' + std::string(text);
  auto [it, inserted] = impl_->dedupe.emplace(key, impl_->notes.size());
  if (!inserted) {
    ++impl_->notes[it->second].count;
    return;
  }
  impl_->notes.push_back(NcclNote{std::string(kind), std::string(Trim(text)), std::string(li.host),
                                  li.pid, li.dev, code, 1, Ref(li)});
}

void Builder::MarkTeardown(const LineInfo& li) {
  impl_->teardown.insert(std::string(li.host) + '\n' + std::to_string(li.pid));
}

bool Builder::InTeardown(const LineInfo& li) const {
  return !impl_->teardown.empty() &&
         impl_->teardown.count(std::string(li.host) + '\n' + std::to_string(li.pid)) > 0;
}

void Builder::Quality(QualityId id, DiagSeverity severity, std::string_view message,
                      const LineInfo& li) {
  SourceLoc loc = Loc(li);
  loc.col = li.col;
  impl_->quality.Add(id, severity, message, loc);
}

void Builder::Quality(QualityFamily family, std::string_view name, DiagSeverity severity,
                      std::string_view message, const LineInfo& li) {
  SourceLoc loc = Loc(li);
  loc.col = li.col;
  impl_->quality.Add(family, name, severity, message, loc);
}

}  // namespace commdx::ingest::nccl_log
