#include "bench/watchdog.h"

#include <unistd.h>

#include <cstdio>

#include "base/str_format.h"
#include "bench/backend.h"

namespace commdx::bench {

namespace {
int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

Watchdog::Watchdog(double timeout_s, Backend* backend, double grace_s)
    : timeout_s_(timeout_s), grace_s_(grace_s), backend_(backend) {
  last_beat_ns_ = NowNs();
  if (timeout_s_ > 0) thread_ = std::thread([this] { Loop(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (abort_.joinable()) abort_.join();
}

void Watchdog::Arm(std::string what) {
  std::lock_guard<std::mutex> lock(mu_);
  what_ = std::move(what);
  armed_ = true;
  last_beat_ns_ = NowNs();
}

void Watchdog::Disarm() {
  std::lock_guard<std::mutex> lock(mu_);
  armed_ = false;
}

void Watchdog::Beat() { last_beat_ns_ = NowNs(); }

void Watchdog::Acknowledge() { acknowledged_ = true; }

std::string Watchdog::message() const {
  std::lock_guard<std::mutex> lock(mu_);
  return message_;
}

void Watchdog::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  const auto tick = std::chrono::milliseconds(timeout_s_ < 2 ? 20 : 200);
  while (!stop_) {
    cv_.wait_for(lock, tick);
    if (stop_ || !armed_ || fired_) continue;
    double idle_s = static_cast<double>(NowNs() - last_beat_ns_.load()) / 1e9;
    if (idle_s < timeout_s_) continue;
    std::string what = what_;
    lock.unlock();
    std::string stuck = backend_ ? backend_->DescribeStuck() : std::string();
    std::string buf = StrFormat("%.0f s", timeout_s_);
    std::string msg = what + " made no progress for " + buf +
                      (stuck.empty() ? std::string() : " on " + stuck) +
                      "; aborted the NCCL communicators (ncclCommAbort). A peer that never "
                      "joined, a crashed process or a broken link are the usual causes.";
    {
      std::lock_guard<std::mutex> g(mu_);
      message_ = msg;
    }
    fired_ = true;
    // ncclCommAbort can block when the stuck thread holds NCCL's locks: run it on its own
    // thread so the grace deadline below holds regardless (past it the process ends; before
    // it the stuck call returned, and the destructor waits for the abort to finish).
    if (backend_) abort_ = std::thread([b = backend_] { b->Abort(); });
    // Give the waiting call time to notice and return; if it cannot, end the process.
    int64_t deadline = NowNs() + static_cast<int64_t>(grace_s_ * 1e9);
    while (!acknowledged_ && NowNs() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!acknowledged_) {
      std::fprintf(stderr, "commdx: error: %s (the stuck call did not return; exiting)\n",
                   msg.c_str());
      std::fflush(stderr);
      _exit(4);
    }
    lock.lock();
  }
}

}  // namespace commdx::bench
