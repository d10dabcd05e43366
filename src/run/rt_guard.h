// The real-time guard of a timed run with SCHED_FIFO workers (--rt-threads,
// --writer-fifo). A real-time thread that spins on a lock whose owner is a
// normal thread of the same CPU keeps that owner off the CPU for good: a
// livelock the lock is answerable for only where its spinners should have
// slept. The kernel bounds it with RT throttling (sched_rt_runtime_us:
// real-time tasks may take 950 ms of every second of a CPU, the rest goes
// to the others). The guard does the same on a shorter period, so that a
// run goes on and the machine stays usable where the kernel's throttling is
// off (sched_rt_runtime_us = -1): a thread at the top SCHED_FIFO priority
// looks every kPeriod at the CPU time the run's real-time workers took on
// each CPU; where they took kBudget or more of it, it puts those workers to
// SCHED_OTHER for kRelief, then back to SCHED_FIFO. How often it stepped in
// is reported per thread (ThreadResult::rt_throttled), not judged: for a
// userspace spinlock it is what an RT spinner does, for a lock that should
// sleep it is the livelock.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "run/run_driver.h"

namespace rwstress {

class RtGuard {
 public:
  static constexpr std::chrono::milliseconds kPeriod{200};
  static constexpr std::chrono::milliseconds kBudget{190};
  static constexpr std::chrono::milliseconds kRelief{10};

  // Starts the guard where the scenario has real-time workers (else does
  // nothing). The workers' tids are read as they publish them.
  explicit RtGuard(RunShared& shared);
  ~RtGuard() { stop(); }
  RtGuard(const RtGuard&) = delete;
  RtGuard& operator=(const RtGuard&) = delete;

  // Stops the guard; a real-time worker that has not finished (stuck in
  // the lock, left behind) goes to SCHED_IDLE for good, as the run puts any
  // thread it leaves behind, so that it takes no CPU from whatever the
  // process runs next. Idempotent.
  void stop();
  // Whether the run has real-time workers to guard.
  bool guarding() const { return !rt_.empty(); }
  // After stop(): how often worker i was taken off SCHED_FIFO.
  std::uint64_t throttled(int i) const { return throttled_[std::size_t(i)]; }
  // After stop(): the run's note on its real-time threads ("" without any).
  std::string note(const std::vector<ThreadResult>& threads) const;

 private:
  void run();
  // Worker i's thread id while it runs (0 once it is done or before it starts).
  pid_t live_tid(int i) const;
  // Sets worker i's policy (SCHED_FIFO at priority 1, SCHED_OTHER or SCHED_IDLE).
  void set_policy(int i, int policy) const;

  RunShared& shared_;
  std::vector<int> rt_;  // the real-time workers' indices
  std::vector<std::uint64_t> throttled_;
  std::uint64_t steps_in_ = 0;  // periods in which it stepped in
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

// The calling thread at SCHED_FIFO priority 2 (above the real-time
// workers, below the guard) while it lives, where `raise` says so; its own
// policy back after.
class RaisedForRun {
 public:
  explicit RaisedForRun(bool raise);
  ~RaisedForRun();
  RaisedForRun(const RaisedForRun&) = delete;
  RaisedForRun& operator=(const RaisedForRun&) = delete;

 private:
  bool raised_ = false;
  int policy_ = 0;
  int priority_ = 0;
};

}  // namespace rwstress
