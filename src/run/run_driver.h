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
#include <initializer_list>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "injectors/injection.h"
#include "model/run_result.h"
#include "model/scenario.h"
#include "platform/sched_stat.h"
#include "run/checkers.h"
#include "run/preference_check.h"

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
  kAway,        // a kernel-layer task killed in its acquisition, away (stay_away_killed)
  kNestedAcquire,  // --nested-locks: taking one of the nested locks
  kNestedRelease,  // --nested-locks: letting one go
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
  WaitSignal wait;            // its acquisitions and spin turns, for the timed preference check
  ThreadResult result;
};

// The workers' slots, each placed so that the page offset of its first
// 128 bytes (`ops`, `phase`, `tid`: stored every pass) differs from every
// range avoid() was given: the lock and the flags the loop reads. A core
// matches a load against earlier stores by the low 12 address bits first,
// so a load of the lock 4 KiB-aliased with the store of the progress
// counter just before it waits as if it depended on it. Placed by the
// heap, the two aliased for some command lines and not others (a longer
// --csv path moved the lock): pthread-rwlock at 1 reader lost 7-10%
// against liburcu's test_rwlock in those (docs/PERFORMANCE.md, "Against
// the anchors"). Slot i is then at the i-th 128-byte block, in address
// order, whose page offset no range covers; if the ranges cover more than
// half a page, only the first one (the lock's first block) is avoided.
class WorkerSlots {
 public:
  explicit WorkerSlots(int n);
  ~WorkerSlots();
  WorkerSlots(const WorkerSlots&) = delete;
  WorkerSlots& operator=(const WorkerSlots&) = delete;

  // Before the workers start: ranges whose page offsets no slot may share,
  // the most important first. Re-places the slots (they must be untouched).
  void avoid(std::initializer_list<std::pair<const void*, std::size_t>> ranges);

  WorkerSlot& operator[](int i) { return *at_[std::size_t(i)]; }
  const WorkerSlot& operator[](int i) const { return *at_[std::size_t(i)]; }

  static constexpr std::size_t kPage = 4096;
  static constexpr std::size_t kBlock = kCacheLinePad;
  using Blocks = std::uint64_t;  // bit b: page offsets [b * kBlock, (b + 1) * kBlock)
  static_assert(kPage / kBlock <= 64);
  // The blocks a range covers (all of them for a range of a page or more).
  static Blocks blocks_of(const void* p, std::size_t bytes);

 private:
  void place(Blocks avoided);
  void release();

  int n_;
  void* storage_ = nullptr;
  std::vector<WorkerSlot*> at_;
};

struct RunShared {
  explicit RunShared(const Scenario& s);

  const Scenario scenario;
  std::atomic<bool> stop{false};
  std::atomic<bool> go{false};
  std::atomic<int> ready{0};
  WorkerSlots slots;
  ViolationLog violations;
  ExclusionCheck exclusion;
  ProtectedRecord record;
  TimedPreference preference;

  std::mutex error_mutex;
  std::string bind_error;
};

// The calling worker's run (worker_loop sets it), for stay_away_killed.
inline thread_local RunShared* tl_run = nullptr;
// The calling worker runs SCHED_FIFO at this priority once the run goes
// (--rt-threads, --writer-fifo: worker_start makes it so, or calls the run
// off); 0: a normal thread. The kernel layer's task->rt_priority.
inline thread_local int tl_rt_priority = 0;
// How many of the --nested-locks locks the calling worker holds.
inline thread_local int tl_nested_held = 0;

// A kernel-layer task whose killable or interruptible acquisition returned
// -EINTR goes away as a killed task would, instead of retrying at once: in
// phase kAway (outside any wait the watchdog judges) until the other threads
// have completed an operation without it, or every other one has finished or
// is away too (the stop does not end it). So a wake-up the bail-out path should have made and did
// not leaves its waiters asleep with the lock free, a HANG, instead of being
// made by the killed task's own retry. Any other thread, and a worker
// holding nested locks (--nested-locks: the others may wait for those, so
// it would stall the run by itself), returns at once.
void stay_away_killed();

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
// leaves the thread detached) if it did not finish in time. Time in which
// the thread sat runnable without a CPU, or that `uncharged` grew by (time
// its own waits spent on threads kept off their CPUs), is not charged.
bool run_with_timeout(std::function<void()> fn, std::chrono::nanoseconds limit,
                      const std::atomic<std::int64_t>* uncharged = nullptr);

}  // namespace rwstress
