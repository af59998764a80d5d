#include <algorithm>
#include <functional>
#include <unordered_map>

#include "ingest/load_slot.h"

namespace commdx::ingest::load {

constexpr size_t kHeadDigestBytes = 4096;

void Digest(Slot& s) {
  if (s.text && !s.digest) {
    const std::string_view data = s.text->data;
    s.digest =
        std::make_pair(static_cast<uint64_t>(data.size()), std::hash<std::string_view>{}(data));
    if (data.size() >= kHeadDigestBytes)
      s.head_digest = std::hash<std::string_view>{}(data.substr(0, kHeadDigestBytes));
  }
}

void MarkPrefixCopies(std::vector<Slot>& slots) {
  std::unordered_map<size_t, std::vector<Slot*>> by_head;
  for (auto& s : slots)
    if (s.in_part && !s.error && s.head_digest) by_head[*s.head_digest].push_back(&s);
  for (auto& [hash, group] : by_head) {
    if (group.size() < 2) continue;
    std::stable_sort(group.begin(), group.end(), [](const Slot* a, const Slot* b) {
      return a->digest->first > b->digest->first;
    });
    for (size_t i = 0; i + 1 < group.size(); ++i) {
      Slot& longer = *group[i];
      if (!longer.copy_of.empty()) continue;
      std::optional<FileText> long_text;
      for (size_t j = i + 1; j < group.size(); ++j) {
        Slot& shorter = *group[j];
        if (!shorter.copy_of.empty() || shorter.digest->first == longer.digest->first) continue;
        if (!long_text) {
          auto t = ReadFile(longer.path);
          if (!t) break;  // changed or gone since: nothing is marked
          long_text = std::move(t).value();
        }
        auto t = ReadFile(shorter.path);
        if (t && long_text->data.starts_with(t->data)) {
          shorter.copy_of = longer.path;
          shorter.prefix_copy = true;
        }
      }
    }
  }
}

}  // namespace commdx::ingest::load
