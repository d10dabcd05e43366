// The injection runtime: a run's plan (the parsed --inject specs and the
// seed), each worker's ThreadInjector (one random stream per injector and
// point, firing counts), the hooks type that routes the locks' hook points
// and the futex wrapper to it, and the controller thread of the global
// injectors (stutter, shuffle, cpu-offline, priority).
//
// Replay: whether visit k of point P by thread T fires injector I, and for
// how long, depends only on (run seed, T, I, P, k): each (I, P) pair of a
// thread has its own std::mt19937_64 seeded from those. schedule_digest()
// hashes the first kDigestDecisions decisions of every stream, so two runs
// with the same seed print the same digest, and a test checks that a
// ThreadInjector makes exactly those decisions.
#pragma once

#include <sys/types.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "injectors/inject_spec.h"
#include "locks/hooks.h"

namespace rwstress {

// State the injectors of one run share: the stutter gate and the stall token.
struct InjectShared {
  const std::atomic<bool>* run_stop = nullptr;  // the stutter gate opens when the run stops
  std::atomic<bool> paused{false};
  std::atomic<bool> stall_taken{false};
  std::atomic<std::uint64_t> fifo_bursts{0};  // priority: SCHED_FIFO bursts given
  std::atomic<bool> fifo_denied{false};       // priority: SCHED_FIFO not permitted here
  std::vector<std::unique_ptr<std::atomic<std::uint64_t>>> global_fired;  // per spec

  explicit InjectShared(std::size_t specs) {
    for (std::size_t i = 0; i < specs; ++i)
      global_fired.push_back(std::make_unique<std::atomic<std::uint64_t>>(0));
  }
};

using InjectCounts = std::vector<std::array<std::uint64_t, kInjectPointCount>>;  // [spec][point]

class ThreadInjector {
 public:
  ThreadInjector(const InjectionPlan& plan, InjectShared& shared, std::uint64_t run_seed,
                 int thread);

  void at(InjectPoint p);
  bool spurious_futex_return();
  bool resched_now();  // a resched injector fired at this need_resched() check

  const InjectCounts& fired() const { return fired_; }
  const InjectCounts& visits() const { return visits_; }
  // Time this thread spent in timed pauses (delay, sleep, long-hold, a
  // stall it took) at a point where it holds the lock or is releasing it:
  // time in which the lock's other threads may have been kept waiting by
  // the injector rather than by the lock. The starvation verdict reads it.
  std::int64_t holding_pause_ns() const { return holding_pause_ns_; }

  // The decision of the next visit of (spec, point): 0 = no, else the
  // injected time in ns (1 for kinds without a duration). Public for tests.
  std::int64_t decide(std::size_t spec, InjectPoint p);

 private:
  bool fires_at(InjectKind kind, InjectPoint p);
  // Carries out one firing; returns the ns it paused (0 if it did not).
  std::int64_t act(const InjectSpec& s, std::int64_t ns);

  const InjectionPlan& plan_;
  InjectShared& shared_;
  std::vector<std::array<std::mt19937_64, kInjectPointCount>> streams_;
  InjectCounts fired_, visits_;
  std::int64_t holding_pause_ns_ = 0;
};

// The points at which the visiting thread holds the lock or is releasing
// it: a pause there keeps the lock's waiters waiting.
constexpr bool holds_lock_at(InjectPoint p) {
  return p == InjectPoint::kInCs || p == InjectPoint::kBeforeRelease ||
         p == InjectPoint::kMidRelease || p == InjectPoint::kBeforeWake;
}

// The stream of (spec, point) for a thread: splitmix64 of all four.
std::uint64_t inject_stream_seed(std::uint64_t run_seed, int thread, std::size_t spec,
                                 InjectPoint p);

inline constexpr int kDigestDecisions = 256;
std::uint64_t schedule_digest(const InjectionPlan& plan, std::uint64_t run_seed, int threads);

// The calling worker's injector, or nullptr.
inline thread_local ThreadInjector* tl_injector = nullptr;

inline void inject_at(InjectPoint p) {
  if (tl_injector) tl_injector->at(p);
}

// Set when a signal injector fires at this thread; the kernel-compat host
// takes it (registry/kernel_host.cc) and makes it the task's pending signal.
inline thread_local bool tl_signal_raised = false;

// Set by InjectHooks when a lock's own code spins or queues to sleep; read
// and cleared around each acquisition by --lockstat (src/model/lockstat.h).
inline thread_local bool tl_hook_waited = false;

// The hooks type of the injected instantiation of every in-tree lock.
struct InjectHooks {
  static void at(HookPoint p) {
    if (p == HookPoint::kSpinIteration || p == HookPoint::kAfterEnqueue ||
        p == HookPoint::kBeforeSleep)
      tl_hook_waited = true;
    if (tl_injector) tl_injector->at(inject_point_of(p));
  }
  static bool spurious_futex_return() { return tl_injector && tl_injector->spurious_futex_return(); }
  static bool resched_now() { return tl_injector && tl_injector->resched_now(); }
};

// The global injectors' thread: runs from start() until stop().
class InjectionController {
 public:
  // Threads are addressed by kernel thread id, not pthread_t: a worker
  // that has exited (and been joined) is then just an ESRCH, never a
  // dangling handle.
  struct Target {
    const std::atomic<pid_t>* tid;  // filled by the worker when it starts
    int planned_cpu;
    bool real_time = false;  // --rt-threads, --writer-fifo: priority leaves it alone
  };

  InjectionController(const InjectionPlan& plan, InjectShared& shared, std::uint64_t run_seed,
                      std::vector<Target> targets, std::vector<int> cpus);
  ~InjectionController() { stop(); }
  void start();
  void stop();

 private:
  void run();
  void pin(const Target& t, const std::vector<int>& cpus);
  void end_priority(std::size_t who, bool fifo, int old_nice);

  const InjectionPlan& plan_;
  InjectShared& shared_;
  std::mt19937_64 rng_;
  std::vector<Target> targets_;
  std::vector<int> cpus_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace rwstress
