// Moves every element of one vector to the end of another, for the merges of Job parts.
#pragma once

#include <utility>
#include <vector>

namespace commdx::ingest {

template <class T>
void MoveAppend(std::vector<T>& from, std::vector<T>& into) {
  if (into.empty()) {
    into = std::move(from);
  } else {  // no reserve(size + n): that would give up geometric growth, one copy per call
    for (auto& x : from) into.push_back(std::move(x));
  }
  from.clear();
}

}  // namespace commdx::ingest
