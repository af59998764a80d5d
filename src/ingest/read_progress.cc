#include "ingest/read_progress.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>

#include "base/str_format.h"

namespace commdx::ingest {

namespace {

using Clock = std::chrono::steady_clock;

struct State {
  std::mutex mu;  // held to draw or erase the line, and to start a new round
  std::atomic<uint64_t> total{0}, done{0};
  std::atomic<uint64_t> files{0}, files_done{0};
  uint64_t planned = 0;  // of total, not yet claimed by a reader's Begin
  Clock::time_point start, last_draw;
  bool shown = false;
  int tty = -1;  // unknown until the first round
};

State& S() {
  static State s;
  return s;
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

bool ReadProgress::Due(double elapsed_s, uint64_t done, uint64_t total) {
  if (elapsed_s < 1.0 || done == 0 || done >= total) return false;
  double left_s = elapsed_s * static_cast<double>(total - done) / static_cast<double>(done);
  return left_s > 1.0;
}

std::string ReadProgress::Text(double elapsed_s, uint64_t done, uint64_t total, uint64_t files_done,
                               uint64_t files) {
  double left_s =
      done ? elapsed_s * static_cast<double>(total - done) / static_cast<double>(done) : 0.0;
  const std::string of_files =
      files ? StrFormat(", %llu of %llu files", static_cast<unsigned long long>(files_done),
                        static_cast<unsigned long long>(files))
            : std::string();
  return StrFormat("reading inputs: %d%% (%.1f of %.1f GB%s), about %.0f s left",
                   static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total)),
                   static_cast<double>(done) / 1e9, static_cast<double>(total) / 1e9,
                   of_files.c_str(), left_s);
}

namespace {

// A new round where nothing is in flight (s.mu held).
void StartRoundIfIdle(State& s) {
  if (s.tty < 0) s.tty = isatty(STDERR_FILENO) ? 1 : 0;
  if (s.done.load() >= s.total.load() && s.planned == 0) {
    s.total = 0;
    s.done = 0;
    s.files = 0;
    s.files_done = 0;
    s.start = s.last_draw = Clock::now();
  }
}

}  // namespace

void ReadProgress::Plan(uint64_t total, uint64_t files) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  StartRoundIfIdle(s);
  s.total += total;
  s.files += files;
  s.planned += total;
}

void ReadProgress::Begin(uint64_t total) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  StartRoundIfIdle(s);
  const uint64_t from_plan = std::min(s.planned, total);
  s.planned -= from_plan;
  s.total += total - from_plan;
}

void ReadProgress::End() {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.shown) std::fprintf(stderr, "\r\x1b[2K");
  s.shown = false;
  s.total = 0;
  s.done = 0;
  s.planned = 0;
  s.files = 0;
  s.files_done = 0;
}

uint64_t ReadProgress::DoneBytes() { return S().done.load(); }
uint64_t ReadProgress::TotalBytes() { return S().total.load(); }
uint64_t ReadProgress::FilesDone() { return S().files_done.load(); }
void ReadProgress::FileDone() { S().files_done.fetch_add(1); }

void ReadProgress::Advance(uint64_t bytes) {
  State& s = S();
  uint64_t done = s.done.fetch_add(bytes) + bytes;
  if (s.tty != 1) return;
  uint64_t total = s.total.load();
  if (done >= total) {  // all read: erase the line
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.shown) std::fprintf(stderr, "\r\x1b[2K");
    s.shown = false;
    return;
  }
  std::unique_lock<std::mutex> lock(s.mu, std::try_to_lock);
  if (!lock.owns_lock()) return;  // another reader is drawing
  Clock::time_point now = Clock::now();
  if (Seconds(now - s.last_draw) < 0.25) return;
  double elapsed = Seconds(now - s.start);
  if (!s.shown && !Due(elapsed, done, total)) return;
  std::fprintf(stderr, "\r%s\x1b[K",
               Text(elapsed, done, total, s.files_done.load(), s.files.load()).c_str());
  s.shown = true;
  s.last_draw = now;
}

}  // namespace commdx::ingest
