// The monitor mode of NCCL's RAS client (`ncclras -m[=lifecycle,trace,all]`, NCCL 2.29+): the
// process the client talks to writes one event per peer change, for as long as the job runs.
// Text, one line an event (the peer as the STATUS report names a process, or its address when
// that process is unknown; details may be empty):
//
//   [2026-12-06 17:50:01] PEER_DEAD: Process 1315 on node 127.0.0.1 managing GPU 0 <details>
//   [2026-12-06 17:50:01] PEER_RETRY: 127.0.0.1<41245> <details>
//
// JSON (`-f json`), one pretty-printed object an event, one after another (not one document):
//
//   {
//     "timestamp": "2026-12-06 17:50:01",
//     "group": "LIFECYCLE",
//     "event": "PEER_DEAD",
//     "peer": {"host": "127.0.0.1", "pid": 1315, "cuda_devs": [0], "nvml_devs": [0]},
//     "details": ""
//   }
//
// ("peer" may be {"addr": "..."} or absent.) The client's own banner goes to stderr; a capture
// of both streams starts with "RAS Monitor Mode - watching for peer changes" and a row of '=',
// skipped here, as are its closing lines ("Connection closed by the NCCL job.").
#include <simdjson.h>

#include <cctype>
#include <string>

#include "base/text.h"
#include "ingest/nccl_log/line.h"
#include "ingest/ras/ras_importer.h"

namespace commdx::ingest::ras {

namespace {

bool Digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// "[YYYY-MM-DD HH:MM:SS] PEER_X: ": the length of that prefix up to the colon, 0 if not one.
size_t EventPrefix(std::string_view line, std::string_view& time, std::string_view& type) {
  if (line.size() < 24 || line[0] != '[' || line[11] != ' ' || line[20] != ']' || line[21] != ' ')
    return 0;
  std::string_view t = line.substr(1, 19);
  if (!Digits(t.substr(0, 4)) || t[4] != '-' || t[7] != '-' || t[13] != ':' || t[16] != ':')
    return 0;
  const size_t colon = line.find(':', 22);
  if (colon == std::string_view::npos) return 0;
  std::string_view ty = line.substr(22, colon - 22);
  if (ty.empty()) return 0;
  for (char c : ty)
    if (!(std::isupper(static_cast<unsigned char>(c)) || c == '_')) return 0;
  time = t;
  type = ty;
  return colon;
}

// What follows "TYPE: ": "Process <pid> on node <host> managing GPU[s] <list>[ (NVML <list>)]
// [details]", "<address> [details]" or "[details]".
void ReadPeer(std::string_view rest, RasEvent& e) {
  std::vector<std::string_view> w = SplitWhitespace(rest);
  if (w.size() >= 7 && w[5] == "managing" && ReadProcess(rest, e.peer)) {
    size_t i = 8;                                     // after "managing GPU[s] <list>"
    if (i + 1 < w.size() && w[i] == "(NVML") i += 2;  // "(NVML 3)"
    // The details: the rest of the line after the words read.
    if (i < w.size()) e.details = std::string(Trim(rest.substr(w[i].data() - rest.data())));
    return;
  }
  // An address as NCCL prints a socket ("10.0.0.2<41245>", "[fe80::1]<41245>").
  if (!w.empty() && w[0].back() == '>' && w[0].find('<') != std::string_view::npos) {
    e.peer.host = std::string(w[0]);
    rest = rest.substr(w[0].data() - rest.data() + w[0].size());
  }
  e.details = std::string(Trim(rest));
}

bool BannerLine(std::string_view l) {
  return StartsWith(l, "RAS Monitor Mode") || StartsWith(l, "====") ||
         StartsWith(l, "Connection closed by") || StartsWith(l, "Monitoring stopped by user");
}

// The objects of a JSON event stream, by brace depth outside strings; `cut_at` is where an
// object begins that the text ends inside (npos: none).
std::vector<std::pair<size_t, size_t>> JsonObjects(std::string_view s, size_t& cut_at) {
  std::vector<std::pair<size_t, size_t>> out;
  int depth = 0;
  bool in_string = false;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{') {
      if (depth++ == 0) start = i;
    } else if (c == '}' && depth > 0 && --depth == 0) {
      out.emplace_back(start, i + 1);
    }
  }
  cut_at = depth > 0 ? start : std::string_view::npos;
  return out;
}

}  // namespace

bool LooksRasMonitor(std::string_view head) {
  std::string_view t = TrimLeft(head);
  if (!t.empty() && t.front() == '{')
    return Contains(head, "\"event\": \"PEER_") &&
           (Contains(head, "\"group\": \"LIFECYCLE\"") || Contains(head, "\"group\": \"TRACE\""));
  // The first line that is not the client's banner is an event.
  for (size_t at = 0; at < head.size();) {
    size_t end = head.find('\n', at);
    if (end == std::string_view::npos) end = head.size();
    std::string_view l = Trim(head.substr(at, end - at));
    at = end + 1;
    if (l.empty() || BannerLine(l)) continue;
    std::string_view time, type;
    return EventPrefix(l, time, type) != 0 && StartsWith(type, "PEER_");
  }
  return false;
}

Status ParseRasMonitor(const FileText& file, Job& job) {
  RasReport rep;
  rep.path = file.path;
  rep.monitor = true;
  std::string_view data = file.data;
  std::string_view t = TrimLeft(data);
  if (!t.empty() && t.front() == '{') {
    rep.json = true;
    simdjson::dom::parser parser;
    size_t cut_at = std::string_view::npos;
    LineLocator locate(file);
    for (auto [a, b] : JsonObjects(data, cut_at)) {
      simdjson::padded_string text(data.substr(a, b - a));
      simdjson::dom::element obj;
      const SourceLoc at = locate.At(a);
      if (parser.parse(text).get(obj) != simdjson::SUCCESS) {
        job.quality.Add("ras.bad_event", DiagSeverity::kWarning,
                        "a RAS monitor event that is not valid JSON: left out", {at});
        continue;
      }
      RasEvent e;
      std::string_view s;
      if (obj["timestamp"].get(s) == simdjson::SUCCESS) {
        e.time = std::string(s);
        e.time_ns = nccl_log::FindTimestampNs(e.time);
      }
      if (obj["group"].get(s) == simdjson::SUCCESS) e.group = std::string(s);
      if (obj["event"].get(s) == simdjson::SUCCESS) e.type = std::string(s);
      if (obj["details"].get(s) == simdjson::SUCCESS) e.details = std::string(s);
      simdjson::dom::element peer;
      if (obj["peer"].get(peer) == simdjson::SUCCESS) {
        if (peer["host"].get(s) == simdjson::SUCCESS)
          e.peer.host = std::string(s);
        else if (peer["addr"].get(s) == simdjson::SUCCESS)
          e.peer.host = std::string(s);
        int64_t pid = 0;
        if (peer["pid"].get(pid) == simdjson::SUCCESS) e.peer.pid = pid;
        simdjson::dom::array devs;
        if (peer["cuda_devs"].get(devs) == simdjson::SUCCESS)
          for (simdjson::dom::element d : devs) {
            int64_t g = -1;
            if (d.get(g) == simdjson::SUCCESS) e.peer.gpu = static_cast<int>(g);
            break;
          }
      }
      if (e.type.empty()) {
        job.quality.Add("ras.bad_event", DiagSeverity::kWarning,
                        "a RAS monitor event without an \"event\" name: left out", {at});
        continue;
      }
      e.where = at;
      rep.events.push_back(std::move(e));
    }
    if (cut_at != std::string_view::npos)
      job.quality.Add("ras.bad_event", DiagSeverity::kWarning,
                      "the last RAS monitor event ends early (the client stopped while it "
                      "wrote): left out",
                      {locate.At(cut_at)});
    job.ras.push_back(std::move(rep));
    return Ok{};
  }
  uint32_t n = 0;
  for (size_t at = 0; at < data.size();) {
    size_t end = data.find('\n', at);
    if (end == std::string_view::npos) end = data.size();
    std::string_view l = data.substr(at, end - at);
    at = end + 1;
    ++n;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    std::string_view time, type;
    const size_t colon = EventPrefix(l, time, type);
    if (colon == 0) {
      if (!Trim(l).empty() && !BannerLine(Trim(l)))
        job.quality.Add("ras.bad_event", DiagSeverity::kNote,
                        "a line that is not a RAS monitor event (\"[date time] PEER_...: ...\"): "
                        "left out",
                        {SourceLoc{file.path, n}});
      continue;
    }
    RasEvent e;
    e.time = std::string(time);
    e.time_ns = nccl_log::FindTimestampNs(e.time);
    e.type = std::string(type);
    ReadPeer(l.substr(colon + 1), e);
    e.where = {file.path, n};
    rep.events.push_back(std::move(e));
  }
  job.ras.push_back(std::move(rep));
  return Ok{};
}

}  // namespace commdx::ingest::ras
