// `nvidia-smi nvlink -s` (and `nvidia-smi -L`, which is the GPU lines alone):
//
//   GPU 0: NVIDIA H200 (UUID: GPU-1dabc450-d9d5-d9bc-7f5c-b87af679ea16)
//   	 Link 0: 26.562 GB/s
//   	 Link 1: <inactive>
//
// A link that is down prints <inactive>; speed is per direction, GB/s. Every link slot is
// listed, so a GPU with fewer lines than the GPUs before it, where the file ends or a line of
// dots stands for what a poster left out ("......"), is a cut list, not lost links: its links
// are dropped (unknown) and the cut noted.
#include <algorithm>
#include <string>

#include "base/text.h"
#include "ingest/smi_topo/smi_matrix.h"
#include "ingest/smi_topo/smi_topo.h"

namespace commdx::ingest {

namespace {

struct GpuLine {
  int index = -1;
  std::string name;
  std::string uuid;
};

// "GPU 0: NVIDIA H200 (UUID: GPU-1dabc450-...)"
//      ^index ^name       ^uuid
bool ParseGpuLine(std::string_view l, GpuLine& out) {
  l = Trim(l);
  if (!ConsumePrefix(l, "GPU ")) return false;
  auto idx = ConsumeInt(l);
  if (!idx || !ConsumePrefix(l, ":")) return false;
  size_t uuid_at = l.rfind("(UUID:");
  if (uuid_at == l.npos) return false;
  out.index = static_cast<int>(*idx);
  out.name = std::string(Trim(l.substr(0, uuid_at)));
  std::string_view u = l.substr(uuid_at + 6);
  size_t close = u.find(')');
  out.uuid = std::string(Trim(u.substr(0, close)));
  return true;
}

struct LinkLine {
  int link = -1;
  bool active = false;
  double speed_gbps = 0;
};

// "	 Link 0: 26.562 GB/s"   or   "	 Link 1: <inactive>"
bool ParseLinkLine(std::string_view l, LinkLine& out) {
  l = Trim(l);
  if (!ConsumePrefix(l, "Link ")) return false;
  auto n = ConsumeInt(l);
  if (!n || !ConsumePrefix(l, ":")) return false;
  out.link = static_cast<int>(*n);
  l = Trim(l);
  if (l == "<inactive>") {
    out.active = false;
    return true;
  }
  auto parts = SplitWhitespace(l);
  if (parts.size() != 2 || parts[1] != "GB/s") return false;
  auto v = ParseDouble(parts[0]);
  if (!v) return false;
  out.active = true;
  out.speed_gbps = *v;
  return true;
}

// A command echoed above the output ("$ nvidia-smi nvlink -s") or an exit-status note
// ("[exit 0]"), as capture scripts write them.
// "...", "......": an excerpt's mark for lines left out.
bool IsEllipsis(std::string_view l) {
  l = Trim(l);
  return l.size() >= 2 && l.find_first_not_of('.') == std::string_view::npos;
}

bool IsCaptureNoise(std::string_view l) {
  l = Trim(l);
  return StartsWith(l, "$ ") || StartsWith(l, "# ") ||
         (StartsWith(l, "[exit ") && EndsWith(l, "]"));
}

}  // namespace

bool SniffSmiNvlinkStatus(std::string_view head) {
  for (const auto& line : smi::SplitLines(head)) {
    if (Trim(line.text).empty() || IsCaptureNoise(line.text)) continue;
    GpuLine g;
    return ParseGpuLine(line.text, g);  // the first line of output decides
  }
  return false;
}

Status ParseSmiNvlinkStatus(const FileText& file, Job& job) {
  LineLocator at(file);  // a place for every row, without rescanning the file per row
  Topology& topo = job.topo;
  if (topo.source == TopoSource::kNone) topo.source = TopoSource::kNvidiaSmi;
  if (topo.gpu_source.empty()) topo.gpu_source = "nvidia-smi nvlink -s";
  topo.files.push_back(file.path);
  Gpu* gpu = nullptr;
  size_t most_links = 0;  // the longest list of a GPU before the current one
  // The current GPU's list stops here: fewer links than a GPU before it means a cut list.
  auto list_ends = [&](uint64_t offset) {
    if (!gpu || gpu->nvlinks.size() >= most_links) return;
    job.quality.Add("smi_nvlink.cut_list", DiagSeverity::kNote,
                    "the listing ends inside GPU " + std::to_string(gpu->index) + "'s links (" +
                        std::to_string(gpu->nvlinks.size()) + " listed, " +
                        std::to_string(most_links) +
                        " for a GPU before it): the file is cut there; its links are not judged",
                    at.At(offset));
    gpu->nvlinks.clear();
  };
  for (const auto& line : smi::SplitLines(file.data)) {
    if (Trim(line.text).empty() || IsCaptureNoise(line.text)) continue;
    if (IsEllipsis(line.text)) {
      list_ends(line.offset);
      gpu = nullptr;
      continue;
    }
    GpuLine g;
    if (ParseGpuLine(line.text, g)) {
      if (gpu) most_links = std::max(most_links, gpu->nvlinks.size());
      gpu = &topo.GpuAt(g.index);
      gpu->name = g.name;
      gpu->uuid = g.uuid;
      gpu->loc = at.At(line.offset);
      gpu->nvlinks.clear();
      continue;
    }
    LinkLine l;
    if (gpu && ParseLinkLine(line.text, l)) {
      NvLinkState s;
      s.link = l.link;
      s.active = l.active;
      s.speed_gbps = l.speed_gbps;
      s.version = NvLinkGenerationForGpuName(gpu->name);
      gpu->nvlinks.push_back(s);
      continue;
    }
    job.quality.Add("smi_nvlink.unparsed_line", DiagSeverity::kWarning,
                    "line is neither 'GPU n: name (UUID: ...)' nor 'Link n: speed GB/s'; skipped",
                    at.At(line.offset));
  }
  list_ends(file.data.empty() ? 0 : file.data.size() - 1);
  return Ok{};
}

}  // namespace commdx::ingest
