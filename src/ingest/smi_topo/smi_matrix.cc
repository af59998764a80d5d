#include "ingest/smi_topo/smi_matrix.h"

#include <algorithm>

#include "base/text.h"

namespace commdx::ingest::smi {

std::string StripAnsi(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      size_t j = i + 2;
      while (j < line.size() && !(line[j] >= '@' && line[j] <= '~')) ++j;
      i = j;  // skips the final byte too
      continue;
    }
    out += line[i];
  }
  return out;
}

bool IsDeviceLabel(std::string_view s) {
  std::string_view digits;
  if (StartsWith(s, "GPU"))
    digits = s.substr(3);
  else if (StartsWith(s, "NIC"))
    digits = s.substr(3);
  else
    return false;
  return !digits.empty() && std::all_of(digits.begin(), digits.end(), IsDigit);
}

int GpuIndexOfLabel(std::string_view s) {
  if (!StartsWith(s, "GPU") || !IsDeviceLabel(s)) return -1;
  auto v = ParseInt(s.substr(3));
  return v ? static_cast<int>(*v) : -1;
}

std::vector<Line> SplitLines(std::string_view text) {
  std::vector<Line> lines;
  uint64_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == text.npos ? text.size() : nl;
    std::string_view l = text.substr(pos, end - pos);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    lines.push_back({l, pos});
    pos = end + 1;
  }
  return lines;
}

namespace {

// The header's names of more than one word, as they come back from a line split on spaces.
const std::vector<std::string_view> kWordyColumns[] = {
    {"CPU", "Affinity"}, {"NUMA", "Affinity"}, {"GPU", "NUMA", "ID"}};

// A matrix pasted from a terminal or an issue has spaces where nvidia-smi wrote tabs (a tab
// to the next stop can be one space). Every cell is one word there, so the line splits on runs
// of white space, and the header's names of several words are joined again.
std::vector<std::string> SpaceFields(std::string_view clean) {
  std::vector<std::string> words;
  for (std::string_view w : Split(clean, ' '))
    if (!Trim(w).empty()) words.emplace_back(Trim(w));
  std::vector<std::string> out;
  for (size_t i = 0; i < words.size();) {
    size_t joined = 0;
    for (const auto& name : kWordyColumns) {
      if (i + name.size() > words.size()) continue;
      bool all = true;
      for (size_t k = 0; k < name.size() && all; ++k) all = words[i + k] == name[k];
      if (all) joined = name.size();
    }
    if (joined == 0) {
      out.push_back(std::move(words[i++]));
      continue;
    }
    std::string f = words[i];
    for (size_t k = 1; k < joined; ++k) f += " " + words[i + k];
    out.push_back(std::move(f));
    i += joined;
  }
  return out;
}

std::vector<std::string> Fields(std::string_view line) {
  std::vector<std::string> out;
  std::string clean = StripAnsi(line);
  if (clean.find('\t') == std::string::npos) return SpaceFields(clean);
  for (std::string_view f : Split(clean, '\t')) out.emplace_back(Trim(f));
  return out;
}

// Header:  "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID"  (leading tab optional)
bool ParseHeader(const std::vector<std::string>& fields, Matrix& m) {
  bool has_gpu0 = false;
  for (const auto& f : fields) {
    if (f == "X") return false;
    if (f == "GPU0") has_gpu0 = true;
  }
  if (!has_gpu0) return false;
  m.columns.clear();
  m.extra_columns.clear();
  for (const auto& f : fields) {
    if (f.empty()) continue;
    // Device columns come first; older drivers name NICs directly ("mlx5_0") instead of NIC#.
    if (m.extra_columns.empty() && f != "CPU Affinity" && f != "NUMA Affinity" &&
        f != "GPU NUMA ID" && f != "Affinity")
      m.columns.push_back(f);
    else
      m.extra_columns.push_back(f);
  }
  return !m.columns.empty();
}

// "0-31,64-95", "0", "N/A": what the affinity columns hold, never a connection cell.
bool LooksLikeAffinity(std::string_view v) {
  if (v == "N/A") return true;
  return !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == ',';
  });
}

// The connection values of `nvidia-smi topo -m` (NV# is NV and a link count).
bool IsConnection(std::string_view v) {
  for (std::string_view k : {"X", "SYS", "NODE", "PHB", "PXB", "PIX"})
    if (v == k) return true;
  return v.size() > 2 && v.substr(0, 2) == "NV" &&
         std::all_of(v.begin() + 2, v.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Appends `v`, or the two connection values it is made of when a paste ran them together
// ("NODENODE" -> "NODE", "NODE").
void SplitRunTogether(const std::string& v, std::vector<std::string>& out) {
  if (!IsConnection(v))
    for (size_t cut = 1; cut < v.size(); ++cut)
      if (IsConnection(std::string_view(v).substr(0, cut)) &&
          IsConnection(std::string_view(v).substr(cut))) {
        out.push_back(v.substr(0, cut));
        out.push_back(v.substr(cut));
        return;
      }
  out.push_back(v);
}

// A GPU row with fewer fields than the header (two cells run together as posted, "NODENODE";
// a cell lost in copying) put its affinity values into device columns and left the affinity
// columns short. Cells run together are split again; then, when the row ends in as many
// affinity-looking values as there are affinity columns, those are the affinities and the
// cells before them the connections (any still missing count as unknown: a short row).
void RealignExtras(const std::vector<std::string>& fields, size_t first, Matrix& m,
                   MatrixRow& row) {
  if (row.label.rfind("GPU", 0) != 0) return;
  std::vector<std::string> toks;
  for (size_t f = first + 1; f < fields.size(); ++f)
    if (!fields[f].empty()) SplitRunTogether(fields[f], toks);
  const size_t k = m.extra_columns.size();
  if (toks.size() <= k || toks.size() > m.columns.size() + k) return;
  for (size_t j = toks.size() - k; j < toks.size(); ++j)
    if (!LooksLikeAffinity(toks[j])) return;
  row.cells.assign(toks.begin(), toks.end() - static_cast<std::ptrdiff_t>(k));
  row.extras.assign(toks.end() - static_cast<std::ptrdiff_t>(k), toks.end());
  m.realigned_rows.push_back(row.offset);
}

}  // namespace

// Row:  "GPU0\t X \tNV18\t0-31\t0\t\tN/A"
//        label  ^cells (one per device column)  ^extras (CPU/NUMA affinity, GPU NUMA ID)
bool ReadMatrix(std::string_view text, uint64_t from, Matrix& out) {
  out = Matrix{};
  auto lines = SplitLines(text.substr(from));
  size_t i = 0;
  for (; i < lines.size(); ++i) {
    if (ParseHeader(Fields(lines[i].text), out)) break;
  }
  if (i == lines.size()) return false;
  out.header_offset = from + lines[i].offset;
  out.end_offset = text.size();
  for (++i; i < lines.size(); ++i) {
    std::string_view raw = lines[i].text;
    std::string clean = StripAnsi(raw);
    if (Trim(clean).empty() || StartsWith(Trim(clean), "Legend")) {
      out.end_offset = from + lines[i].offset;
      break;
    }
    auto fields = Fields(raw);
    // Some captures lose the leading tab of rows; others keep a leading empty field.
    size_t first = 0;
    while (first < fields.size() && fields[first].empty()) ++first;
    if (first == fields.size()) continue;
    const std::string& label = fields[first];
    if (std::find(out.columns.begin(), out.columns.end(), label) == out.columns.end()) {
      out.end_offset = from + lines[i].offset;
      break;
    }
    MatrixRow row;
    row.label = label;
    row.offset = from + lines[i].offset;
    size_t f = first + 1;
    for (; f < fields.size() && row.cells.size() < out.columns.size(); ++f)
      row.cells.push_back(fields[f]);
    for (; f < fields.size(); ++f)
      if (!fields[f].empty()) row.extras.push_back(fields[f]);
    if (row.extras.size() < out.extra_columns.size()) RealignExtras(fields, first, out, row);
    if (row.cells.size() < out.columns.size()) out.short_rows.push_back(row.offset);
    out.rows.push_back(std::move(row));
  }
  return true;
}

}  // namespace commdx::ingest::smi
