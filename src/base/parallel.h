// Running independent work items on the machine's cores: the files of a load, the ranks of a
// trace set, the analyzers of a run. Items are handed out one at a time from a shared counter,
// so uneven items (a 100 MB trace beside a 1 MB one) keep every thread busy.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

namespace commdx {

// Threads to use for `threads` (0: one a core) and n items: never more threads than items.
inline unsigned ThreadsFor(size_t n, int threads) {
  unsigned t = threads > 0 ? static_cast<unsigned>(threads)
                           : std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<size_t>(t, std::max<size_t>(n, 1)));
}

// Calls fn(i) for every i < n on `threads` threads (0: one a core), this one among them; returns
// when all calls have. fn must be safe to call concurrently for different i.
template <class Fn>
void ParallelFor(size_t n, int threads, Fn fn) {
  std::atomic<size_t> next{0};
  auto worker = [&]() {
    for (size_t i = next++; i < n; i = next++) fn(i);
  };
  const unsigned t = ThreadsFor(n, threads);
  std::vector<std::thread> pool;
  for (unsigned k = 1; k < t; ++k) {
    // A thread that cannot start (its stack finds no room under `ulimit -v`) leaves its share
    // to those that did, this one at least: slower, not "internal error".
    try {
      pool.emplace_back(worker);
    } catch (const std::system_error&) {
      break;
    }
  }
  if (n > 0) worker();
  for (auto& th : pool) th.join();
}

}  // namespace commdx
