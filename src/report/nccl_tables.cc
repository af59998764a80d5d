#include "report/nccl_tables.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/str_format.h"
#include "base/text.h"

namespace commdx::report {

namespace {

constexpr int kMatrixMaxRanks = 16;

std::string HostPid(const std::string& host, int64_t pid) {
  if (host.empty() && pid == 0) return "?";
  return (host.empty() ? "?" : host) + ":" + std::to_string(pid);
}

// Transports of each (from, to) pair, union over channels, in a stable order.
std::map<std::pair<int, int>, std::set<std::string>> PairTransports(const NcclCommunicator& c) {
  std::map<std::pair<int, int>, std::set<std::string>> out;
  for (const auto& x : c.connections)
    out[{x.from_rank, x.to_rank}].insert(TransportShortName(x.transport));
  return out;
}

std::string Join(const std::set<std::string>& s, const char* sep) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : sep) + x;
  return out;
}

void AddCommunicators(const NcclSetup& nccl, Report& report) {
  Table t{"communicators",
          "Communicators",
          {"commId", "nranks", "nNodes", "hosts", "ranks seen", "channels", "nvls ch", "init",
           "transports"},
          {"comm_id", "nranks", "nnodes", "hosts", "ranks_seen", "channels", "nvls_channels",
           "init", "transports"},
          {},
          ""};
  for (const auto& c : nccl.communicators) {
    std::set<std::string> hosts, transports;
    for (const auto& [r, info] : c.ranks)
      if (!info.host.empty()) hosts.insert(info.host);
    for (const auto& x : c.connections) transports.insert(TransportShortName(x.transport));
    int channels = c.coll_channels > 0 ? c.coll_channels : c.ring_channels;
    std::string init = c.init_complete || c.init_start
                           ? std::to_string(c.init_complete) + " complete / " +
                                 std::to_string(c.init_start) + " started"
                           : "-";
    t.AddRow({c.identified ? c.comm_id : "? (no init lines)", Cell::Int(c.nranks),
              c.nnodes > 0 ? Cell::Int(c.nnodes) : Cell("-"),
              Cell::Int(static_cast<long long>(hosts.size())),
              Cell::Int(static_cast<long long>(c.ranks.size())),
              channels > 0 ? Cell::Int(channels) : Cell("-"),
              c.nvls_channels >= 0 ? Cell::Int(c.nvls_channels) : Cell("-"), init,
              transports.empty() ? std::string("-") : Join(transports, ", ")});
  }
  for (const auto& c : nccl.communicators)
    if (!c.identified)
      t.note = "'?' groups connection lines that no init line ties to a communicator.";
  report.tables.push_back(std::move(t));
}

void AddRanks(const NcclSetup& nccl, Report& report) {
  Table t{"ranks",
          "Ranks",
          {"commId", "rank", "host:pid", "cudaDev", "nvmlDev", "busId"},
          {"comm_id", "rank", "process", "cuda_dev", "nvml_dev", "bus_id"},
          {},
          ""};
  for (const auto& c : nccl.communicators)
    for (const auto& [rank, r] : c.ranks)
      t.AddRow({c.comm_id, Cell::Int(rank), HostPid(r.host, r.pid),
                r.cuda_dev >= 0 ? Cell::Int(r.cuda_dev) : Cell("-"),
                r.nvml_dev >= 0 ? Cell::Int(r.nvml_dev) : Cell("-"),
                r.bus_id.empty() ? std::string("-") : r.bus_id});
  if (!t.rows.empty()) report.tables.push_back(std::move(t));
}

void AddTransportMatrix(const NcclSetup& nccl, Report& report) {
  int width = 0;
  for (const auto& c : nccl.communicators)
    if (!c.connections.empty() && c.nranks <= kMatrixMaxRanks) width = std::max(width, c.nranks);
  if (width == 0) return;
  Table t;
  t.key = "transport_matrix";
  t.title = "Transport per peer pair (row: from rank, column: to rank; union over channels)";
  t.columns = {"commId", "from\\to"};
  t.column_keys = {"comm_id", "from_rank"};
  for (int r = 0; r < width; ++r) {
    t.columns.push_back(std::to_string(r));
    t.column_keys.push_back("to_" + std::to_string(r));
  }
  bool skipped_big = false;
  for (const auto& c : nccl.communicators) {
    if (c.connections.empty()) continue;
    if (c.nranks > kMatrixMaxRanks) {
      skipped_big = true;
      continue;
    }
    auto pairs = PairTransports(c);
    for (int from = 0; from < c.nranks; ++from) {
      std::vector<Cell> row{c.comm_id, Cell::Int(from)};
      for (int to = 0; to < width; ++to) {
        auto it = pairs.find({from, to});
        row.push_back(from == to          ? std::string("x")
                      : it == pairs.end() ? std::string(".")
                                          : Join(it->second, "+"));
      }
      t.AddRow(std::move(row));
    }
  }
  t.note = "'.' = no connection line in the log (NCCL connects only ring/tree neighbours)";
  if (skipped_big) t.note += "; communicators over 16 ranks: see the transport summary";
  report.tables.push_back(std::move(t));
}

void AddTransportSummary(const NcclSetup& nccl, Report& report) {
  Table t{"transport_summary",
          "Transports",
          {"commId", "transport", "peer pairs", "connection lines"},
          {"comm_id", "transport", "pairs", "lines"},
          {},
          ""};
  for (const auto& c : nccl.communicators) {
    std::map<std::string, std::pair<std::set<std::pair<int, int>>, uint64_t>> by;
    for (const auto& x : c.connections) {
      auto& e = by[TransportShortName(x.transport)];
      e.first.insert({x.from_rank, x.to_rank});
      e.second += x.count;
    }
    for (const auto& [name, e] : by)
      t.AddRow({c.comm_id, name, Cell::Int(static_cast<long long>(e.first.size())),
                Cell::Int(static_cast<long long>(e.second))});
  }
  if (!t.rows.empty()) report.tables.push_back(std::move(t));
}

std::string GdrSummary(const NcclNetInfo& n) {
  int on = 0, off = 0;
  std::string reason;
  for (const auto& g : n.gdr) {
    if (g.net == "Socket") continue;
    if (g.enabled)
      ++on;
    else
      ++off, reason = g.reason;
  }
  if (on + off == 0 && n.network != "Socket" && n.ring_gdr)
    return *n.ring_gdr ? "rings: on" : "rings: off";
  if (on + off == 0) return "-";
  return std::to_string(on) + " of " + std::to_string(on + off) + " HCAs" +
         (reason.empty() ? "" : " " + reason);
}

void AddNetworks(const NcclSetup& nccl, Report& report) {
  Table nets{"networks",
             "Network per process",
             {"host:pid", "NCCL", "network", "plugin", "GDR enabled", "OFI provider"},
             {"process", "nccl_version", "network", "plugin", "gdr", "ofi_provider"},
             {},
             ""};
  Table nics{"nics",
             "Interfaces and NICs",
             {"host:pid", "role", "index", "name", "address", "link"},
             {"process", "role", "index", "name", "address", "link_layer"},
             {},
             ""};
  for (const auto& n : nccl.nets) {
    const NcclProcess* p = nccl.FindProcess(n.host, n.pid);
    std::string version = p && !p->version.empty() ? p->version : "-";
    // 2.29+ name the build: two processes of one version from different commits are told apart.
    if (p && !p->git_version.empty()) version += " (git " + p->git_version + ")";
    nets.AddRow({HostPid(n.host, n.pid), version, n.network.empty() ? "-" : n.network,
                 n.plugin.empty() ? "-" : n.plugin, GdrSummary(n),
                 n.ofi_provider.empty() ? "-" : n.ofi_provider});
    for (const auto& nic : n.nics)
      nics.AddRow({HostPid(n.host, n.pid), nic.role,
                   nic.index >= 0 ? Cell::Int(nic.index) : Cell("-"), nic.name,
                   nic.address.empty() ? "-" : nic.address,
                   nic.link_layer.empty() ? "-" : nic.link_layer});
  }
  if (!nets.rows.empty()) report.tables.push_back(std::move(nets));
  if (!nics.rows.empty()) report.tables.push_back(std::move(nics));
}

// External plugins each process loaded (profiler, tuner, env, GIN; a network plugin by path):
// libraries that run inside NCCL and are not NCCL.
void AddPlugins(const NcclSetup& nccl, Report& report) {
  Table t{"nccl_plugins",
          "NCCL plugins loaded",
          {"host:pid", "kind", "name", "library", "first at"},
          {"process", "kind", "name", "path", "first_at"},
          {},
          ""};
  for (const auto& p : nccl.processes)
    for (const auto& x : p.plugins)
      t.AddRow({HostPid(p.host, p.pid), NcclPluginKindName(x.kind), x.name.empty() ? "-" : x.name,
                x.path.empty() ? "-" : x.path, x.ref.loc.ToString()});
  if (!t.rows.empty()) report.tables.push_back(std::move(t));
}

void AddOverrides(const NcclSetup& nccl, Report& report) {
  Table t{"overrides",
          "Environment overrides",
          {"variable", "value", "processes", "seen as", "first at"},
          {"name", "value", "processes", "source", "first_at"},
          {},
          ""};
  std::map<std::pair<std::string, std::string>, std::vector<const NcclEnvOverride*>> by;
  for (const auto& o : nccl.overrides) by[{o.name, o.value}].push_back(&o);
  for (const auto& [k, list] : by)
    t.AddRow({k.first, k.second, Cell::Int(static_cast<long long>(list.size())),
              list.front()->from_command_line ? "command line" : "set by environment",
              list.front()->ref.loc.ToString()});
  report.tables.push_back(std::move(t));
}

void AddWarnings(const NcclSetup& nccl, Report& report) {
  Table t{"warnings",
          "NCCL warnings",
          {"at", "host:pid", "dev", "logged by", "count", "message"},
          {"at", "process", "cuda_dev", "source_file", "count", "text"},
          {},
          ""};
  for (const auto& w : nccl.warnings)
    t.AddRow({w.ref.loc.ToString(), HostPid(w.host, w.pid),
              w.cuda_dev >= 0 ? Cell::Int(w.cuda_dev) : Cell("-"),
              w.from_framework ? "framework 'Last error'"
                               : (w.source_file.empty() ? "-" : w.source_file),
              Cell::Int(w.count), CutAtWord(w.text, 160)});
  report.tables.push_back(std::move(t));
}

// The calls NCCL's COLL lines logged, one row per communicator (a job of thousands of ranks
// has as many streams): the ranks that logged them, how many calls of which kind, their sizes.
void AddCalls(const NcclSetup& nccl, Report& report) {
  if (nccl.call_streams.empty()) return;
  Table t{"calls",
          "Calls logged (NCCL COLL lines)",
          {"communicator", "nranks", "ranks logging", "calls", "opCount (hex)", "kinds", "sizes",
           "first at"},
          {"comm_id", "nranks", "ranks_logging", "calls", "op_count", "kinds", "sizes", "first_at"},
          {},
          ""};
  struct Row {
    int nranks = 0;
    std::set<std::string> who;  // "rank 1" or host:pid where no init line names the rank
    uint64_t calls = 0, op_min = UINT64_MAX, op_max = 0, bytes_min = UINT64_MAX, bytes_max = 0;
    std::map<std::string, uint64_t> kinds;
    std::string first;
    bool identified = true;
  };
  std::map<std::string, Row> rows;
  std::vector<std::string> order;
  for (const auto& s : nccl.call_streams) {
    if (!rows.count(s.comm_id)) order.push_back(s.comm_id);
    Row& r = rows[s.comm_id];
    r.nranks = std::max(r.nranks, s.nranks);
    r.identified = s.identified;
    r.who.insert(s.rank >= 0 ? "rank " + std::to_string(s.rank) : HostPid(s.host, s.pid));
    for (const auto& c : s.calls) {
      ++r.calls;
      r.op_min = std::min(r.op_min, c.op_count);
      r.op_max = std::max(r.op_max, c.op_count);
      if (c.bytes() > 0) {
        r.bytes_min = std::min(r.bytes_min, c.bytes());
        r.bytes_max = std::max(r.bytes_max, c.bytes());
      }
      ++r.kinds[CollectiveTypeName(c.type)];
    }
    if (r.first.empty() && !s.calls.empty())
      r.first = s.file + ":" + std::to_string(s.calls.front().line);
  }
  for (const auto& id : order) {
    const Row& r = rows.at(id);
    std::string kinds;
    for (const auto& [k, n] : r.kinds)
      kinds += (kinds.empty() ? "" : ", ") + k + " x" + std::to_string(n);
    std::string sizes = r.bytes_max == 0 ? "-"
                        : r.bytes_min == r.bytes_max
                            ? FormatBytes(static_cast<double>(r.bytes_max))
                            : FormatBytes(static_cast<double>(r.bytes_min)) + " - " +
                                  FormatBytes(static_cast<double>(r.bytes_max));
    // As NCCL logs it: hexadecimal without 0x.
    auto hex = [](uint64_t v) { return StrFormat("%llx", static_cast<unsigned long long>(v)); };
    std::string ops = r.calls == 0           ? "-"
                      : r.op_min == r.op_max ? hex(r.op_min)
                                             : hex(r.op_min) + " - " + hex(r.op_max);
    t.AddRow({id, r.nranks > 0 ? Cell::Int(r.nranks) : Cell("-"),
              Cell::Int(static_cast<long long>(r.who.size())),
              Cell::Int(static_cast<long long>(r.calls)), ops, kinds.empty() ? "-" : kinds, sizes,
              r.first.empty() ? "-" : r.first});
    if (!r.identified)
      t.note =
          "'?' marks a communicator no init line names (its pointer): its calls cannot be "
          "matched with other ranks'.";
  }
  report.tables.push_back(std::move(t));
}

}  // namespace

void AddNcclTables(const NcclSetup& nccl, Report& report) {
  AddCommunicators(nccl, report);
  AddRanks(nccl, report);
  AddTransportMatrix(nccl, report);
  AddTransportSummary(nccl, report);
  AddNetworks(nccl, report);
  AddPlugins(nccl, report);
  AddCalls(nccl, report);
  AddOverrides(nccl, report);
  AddWarnings(nccl, report);
}

}  // namespace commdx::report
