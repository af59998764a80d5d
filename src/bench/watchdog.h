// A watchdog for operations that can hang (a peer that never joins, a dead process, a broken
// link): while armed, if nothing beats for `timeout`, it names the operation and the stuck
// ranks, aborts the backend's communicators (ncclCommAbort), and lets the waiting call return
// an error. If even that call does not come back within a grace period (the thread is stuck
// inside the driver), it prints the message and ends the process with exit code 4 — the one
// place below main() that exits, because nothing else can free a thread stuck in the driver.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace commdx::bench {

class Backend;

class Watchdog {
 public:
  // timeout_s <= 0 disables it.
  Watchdog(double timeout_s, Backend* backend, double grace_s = 15.0);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void Arm(
      std::string what);  // what is running now, e.g. "all_reduce 8 GiB float sum out-of-place"
  void Disarm();
  void Beat();  // progress was seen
  // The waiting call saw the abort and is returning; cancels the hard exit.
  void Acknowledge();

  bool fired() const { return fired_.load(); }
  std::string message() const;
  double timeout_s() const { return timeout_s_; }

 private:
  void Loop();

  double timeout_s_;
  double grace_s_;
  Backend* backend_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool armed_ = false;
  std::string what_;
  std::string message_;
  std::atomic<int64_t> last_beat_ns_{0};
  std::atomic<bool> fired_{false};
  std::atomic<bool> acknowledged_{false};
  std::thread thread_;
  // Runs Backend::Abort once the watchdog fires; joined by the destructor, so the abort
  // happens before the backend (which outlives the watchdog) is destroyed.
  std::thread abort_;
};

}  // namespace commdx::bench
