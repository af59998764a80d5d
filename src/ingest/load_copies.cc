#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

#include "base/file_windows.h"
#include "base/parallel.h"
#include "base/text_hash.h"
#include "ingest/load_slot.h"

namespace commdx::ingest::load {

namespace {

constexpr size_t kHeadDigestBytes = 4096;

size_t HeadHash(std::string_view data) {
  return std::hash<std::string_view>{}(data.substr(0, kHeadDigestBytes));
}

// TextHash of the first `bytes` of a file's text; nullopt when it is shorter or unreadable.
std::optional<uint64_t> StartHash(const std::string& path, uint64_t bytes, size_t window) {
  TextHash h;
  Status st = ScanWindows(path, window, [&](std::string_view w) {
    h.Add(w.substr(0, static_cast<size_t>(std::min<uint64_t>(w.size(), bytes - h.bytes()))));
    return h.bytes() == bytes;
  });
  if (!st || h.bytes() != bytes) return std::nullopt;
  return h.Value();
}

// Whether `shorter`'s text is the start of `longer`'s: compared byte by byte where both are held
// whole (`long_text`: the longer's, read once), else by TextHash of `shorter`'s text and of as
// much of `longer`'s.
bool IsStartOf(const Slot& shorter, const Slot& longer, std::optional<FileText>& long_text,
               size_t window) {
  std::optional<uint64_t> want;
  if (shorter.over_limit) {
    want = shorter.digest->second;
  } else {
    auto t = ReadFile(shorter.path);
    if (!t) return false;  // changed or gone since: not marked
    if (!longer.over_limit) {
      if (!long_text) {
        auto l = ReadFile(longer.path);
        if (!l) return false;
        long_text = std::move(l).value();
      }
      return long_text->data.starts_with(t->data);
    }
    TextHash h;
    h.Add(t->data);
    want = h.Value();
  }
  return StartHash(longer.path, shorter.digest->first, window) == want;
}

// Inputs whose text is the start of another's in one group of the same first 4 KiB: each is
// marked a copy of the longest.
void MarkPrefixCopies(std::vector<Slot*> group, size_t window) {
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
      if (IsStartOf(shorter, longer, long_text, window)) {
        shorter.copy_of = longer.path;
        shorter.prefix_copy = true;
      }
    }
  }
}

}  // namespace

void Digest(Slot& s) {
  if (s.text && !s.digest) {
    const std::string_view data = s.text->data;
    s.digest =
        std::make_pair(static_cast<uint64_t>(data.size()), std::hash<std::string_view>{}(data));
    if (data.size() >= kHeadDigestBytes) s.head_digest = HeadHash(data);
  }
}

void DigestWhole(Slot& s, size_t window) {
  TextHash h;
  auto read = ReadWindows(s.path, window, [&h](const FileText& w) { h.Add(w.data); });
  if (read && !read->stopped) s.digest = std::make_pair(h.bytes(), static_cast<size_t>(h.Value()));
}

void DigestHead(Slot& s) {
  if (auto head = ReadHead(s.path, kHeadDigestBytes); head && head->size() >= kHeadDigestBytes)
    s.head_digest = HeadHash(*head);
}

void MarkCopies(std::vector<Slot>& slots, const LoadOptions& options) {
  std::unordered_map<size_t, std::vector<Slot*>> by_head;
  for (auto& s : slots)
    if (s.in_part && !s.error && s.head_digest) by_head[*s.head_digest].push_back(&s);
  // Only a text over the limit that shares its start with another input costs a second read.
  std::vector<Slot*> to_hash;
  for (auto& [hash, group] : by_head)
    if (group.size() > 1)
      for (Slot* s : group)
        if (s->over_limit && !s->digest) to_hash.push_back(s);
  ParallelFor(to_hash.size(), options.threads,
              [&](size_t i) { DigestWhole(*to_hash[i], options.window_bytes); });
  // The same text over the limit twice: the first in order is read.
  std::map<std::pair<uint64_t, size_t>, const Slot*> first;
  for (auto& s : slots) {
    if (!s.over_limit || !s.digest || s.error) continue;
    auto [it, fresh] = first.emplace(*s.digest, &s);
    if (!fresh) s.copy_of = it->second->path;
  }
  for (auto& [hash, group] : by_head) {
    std::erase_if(group, [](const Slot* s) { return !s->digest; });
    if (group.size() > 1) MarkPrefixCopies(std::move(group), options.window_bytes);
  }
}

}  // namespace commdx::ingest::load
