// The worker pool's lock-independent half: pinning, the start barrier, the
// stop flag, the progress watchdog, and the one merge after join.
//
// A run's shared state lives in a shared_ptr owned jointly by the driver and
// every worker. A worker stuck inside a broken lock is detached, not joined,
// and keeps the state (and the lock) alive, so a HANG never frees memory a
// stuck thread still uses and the remaining runs can go on.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "injectors/injection.h"
#include "model/run_result.h"
#include "model/scenario.h"
#include "platform/sched_stat.h"
#include "run/checkers.h"

namespace rwstress {

// What a worker is doing, for the HANG report.
enum class Phase : std::uint8_t {
  kStarting,
  kOutside,
  kDownRead,
  kReadTrylock,
  kHoldRead,
  kUpRead,
  kDownWrite,
  kWriteTrylock,
  kHoldWrite,
  kDowngrade,
  kUpWrite,
  kAcquire,     // mutex lock / semaphore down
  kTryAcquire,  // trylock / down_trylock / down_timeout
  kHold,
  kRelease,     // unlock / up
  kUnchecked,   // in a pass of --no-check's plain loop, which records no finer phase
  kDone,
};
const char* phase_name(Phase p);

// One per worker thread, padded so that no two workers share a cache line.
// `ops` and `phase` are written only by the owner and sampled by the
// watchdog; `result` is private to the owner until join.
struct alignas(kCacheLinePad) WorkerSlot {
  std::atomic<std::uint64_t> ops{0};
  std::atomic<Phase> phase{Phase::kStarting};
  std::atomic<pid_t> tid{0};  // the worker's kernel thread id, for the injection controller
  ThreadResult result;
};

struct RunShared {
  explicit RunShared(const Scenario& s);

  const Scenario scenario;
  std::atomic<bool> stop{false};
  std::atomic<bool> go{false};
  std::atomic<int> ready{0};
  std::unique_ptr<WorkerSlot[]> slots;
  ViolationLog violations;
  ExclusionCheck exclusion;
  ProtectedRecord record;

  std::mutex error_mutex;
  std::string bind_error;
};

// The calling thread's CPU time, context switches, wall time and scheduler
// accounting (on a CPU / runnable in a run queue) from construction to
// finish(), into its ThreadResult.
class ThreadUsage {
 public:
  ThreadUsage();
  void finish(ThreadResult& r) const;

 private:
  rusage start_;
  std::chrono::steady_clock::time_point wall_start_;
  std::optional<SchedTimes> sched_start_;
};

// Derives worker `index`'s private random stream from the run seed
// (splitmix64 of seed and index), so a run is replayable from its seed.
std::uint64_t thread_seed(std::uint64_t run_seed, int index);

// Worker side: pin, report ready, wait for the start flag. Returns false if
// the run was called off before it started.
bool worker_start(RunShared& shared, int index);

// Empty-loop work: about one cycle per turn, no memory traffic.
// No work is the bare loop's case, so it is laid out as the straight path:
// with a fast path of 4 ns, a taken branch around an empty loop showed in
// the harness benchmark.
inline void spin_work(std::uint64_t loops) {
  if (loops != 0) [[unlikely]]
    for (std::uint64_t i = 0; i < loops; ++i) asm volatile("");
}

// What one spin_work turn costs on this CPU, in ns (measured once, a few ms).
double spin_turn_ns();

// Driver side: releases the workers, watches progress until the duration
// ends, a violation stops a --fail-fast run, or nothing moves for the
// watchdog time, reporting a thread that sleeps through it while the lock
// is free (a lost wake-up, where `meta`'s fairness promises it progress);
// then stops, joins (or detaches the stuck), and fills `result` with
// per-thread results and any HANG report. Violations are the
// caller's to copy, after its own end-of-run checks.
void drive_run(const std::shared_ptr<RunShared>& shared, std::vector<std::thread>& workers,
               const LockMeta& meta, RunResult& result);

// Runs `fn` on its own thread and waits up to `limit`. Returns false (and
// leaves the thread detached) if it did not finish in time.
bool run_with_timeout(std::function<void()> fn, std::chrono::nanoseconds limit);

}  // namespace rwstress
