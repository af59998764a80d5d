// Interns the names of one rank (kernel and op names repeat millions of times): each distinct
// name is stored once and events keep a 32-bit id.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace commdx::ingest::trace_build {

// Interns strings; the hash looks at the length and both ends only, because kernel names are
// long and mostly differ at the start (template arguments) or end. Two open-addressing tables
// (power-of-two size, linear probing, the full hash kept beside each id so that a probe rarely
// compares strings): by name, and by the raw JSON form, which for most names is the name itself.
class Interner {
 public:
  Interner();
  uint32_t Intern(std::string_view s);
  // `raw` as it sits between the quotes in the JSON; stored unescaped.
  uint32_t InternRaw(std::string_view raw);
  std::string_view Lookup(uint32_t id) const { return storage_[id]; }
  std::vector<std::string> Take();

  static uint64_t Hash(std::string_view s);

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t id = kEmpty;
  };
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;
  struct Table {
    std::vector<Slot> slots;
    size_t used = 0;
  };
  // The slot for `s` (hash `h`) in `t`: holding its id, or empty. `key(id)` is the stored key.
  template <class KeyOf>
  static Slot& Find(Table& t, std::string_view s, uint64_t h, KeyOf key);
  static void Grow(Table& t);

  std::deque<std::string> storage_;   // by id (a deque: views of its strings stay valid)
  std::deque<std::string> raw_keys_;  // raw forms of names that had escapes
  Table ids_;                         // by unescaped name; slot id = name id
  Table raw_ids_;                     // by raw form; slot id = index into raw_entries_
  std::vector<std::pair<std::string_view, uint32_t>> raw_entries_;  // raw form, name id
};

}  // namespace commdx::ingest::trace_build
