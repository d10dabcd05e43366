// What every family's run shares: the lock next to the run's shared state,
// the worker loop around a family's pass, and the run itself (semantics
// probe on a fresh instance, then the pinned workers, then the end-of-run
// checks). Each family (rwlock_run.h, mutex_run.h, semaphore_run.h) supplies
// only its pass, its probe and its final check, all templated on the lock:
// no virtual call or std::function inside the measured loop.
#pragma once

#include <sched.h>

#include <memory>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "model/lock_traits.h"
#include "model/run_result.h"
#include "model/scenario.h"
#include "model/verdict.h"
#include "platform/splitmix.h"
#include "run/checkers.h"
#include "run/liveness_probe.h"
#include "run/lockstat_recorder.h"
#include "run/rt_guard.h"
#include "run/run_driver.h"

namespace rwstress {

// --nested-locks: one more instance of the lock under test, on lines of its
// own, with the count of its holders. A pass of the exclusive side takes a
// drawn subset of them in ascending order before the lock itself (so no
// two passes can deadlock on them) and lets go of them in descending order
// after it, as locktorture's nested_locks does. What it finds is a lock
// that is not correct with several instances held by one thread at once:
// state kept per thread or per CPU rather than per acquisition (a queue
// node reused while the outer lock's queue still links it), a lock word
// shared between instances.
template <class Lock>
struct alignas(kCacheLinePad) NestedLock {
  explicit NestedLock(const Scenario& s) : lock(make_lock<Lock>(s)) {}
  Lock lock;
  alignas(kCacheLinePad) std::atomic<int> holders{0};
};

// The lock under test, built from the scenario, and the family checkers'
// state next to the harness's.
template <class Lock>
struct LockRunShared : RunShared {
  explicit LockRunShared(const Scenario& s)
      : RunShared(s),
        lock(make_lock<Lock>(s)),
        inject(s.injection ? std::make_unique<InjectShared>(s.injection->specs.size()) : nullptr) {
    if (inject) inject->run_stop = &stop;
    for (int i = 0; i < s.nested_locks; ++i)
      nested.push_back(std::make_unique<NestedLock<Lock>>(s));
    // A plugin's nested instances: the lock-order checker keys their spin
    // locks as classes of their own (LockOrder::nest_instances).
    if constexpr (requires(Lock& l) { l.object(); l.object_size(); }) {
      static_assert(kMaxNestedLocks <= LockOrder::kNestedInstances);
      std::vector<std::pair<const void*, std::size_t>> objects;
      for (const auto& n : nested) objects.emplace_back(n->lock.object(), n->lock.object_size());
      if (!objects.empty()) LockOrder::instance().nest_instances(objects);
    }
    // The lock first: the loop loads it right after storing its progress.
    slots.avoid({{&lock, sizeof lock}, {&stop, sizeof stop}, {&bound, sizeof bound},
                 {&exclusion, sizeof exclusion}, {&record, sizeof record}});
  }
  // On lines of its own, as a lone lock on the heap would be: the harness's
  // state around it must not share (or falsely contend for) its lines.
  alignas(kCacheLinePad) Lock lock;
  alignas(kCacheLinePad) SemaphoreBoundCheck bound;
  std::unique_ptr<InjectShared> inject;
  std::vector<std::unique_ptr<NestedLock<Lock>>> nested;  // --nested-locks
};

// A worker's pass decisions (trylock, downgrade, nesting) come from its own
// stream, seeded from the run seed (thread_seed).
using PassRng = SplitMixStream;

// A worker-loop injection point: nothing at all in the plain instantiation.
template <bool kInstrumented>
inline void maybe_inject(InjectPoint p) {
  if constexpr (kInstrumented) inject_at(p);
}

// --lockstat/--hist time stamps: nothing in the plain instantiation, one
// predictable branch in the instrumented one when the run does not measure.
template <bool kInstrumented>
inline void measure_request() {
  if constexpr (kInstrumented)
    if (tl_lockstat) tl_lockstat->request();
}
template <bool kInstrumented>
inline void measure_acquired() {
  if constexpr (kInstrumented)
    if (tl_lockstat) tl_lockstat->acquired();
}
template <bool kInstrumented>
inline void measure_released() {
  if constexpr (kInstrumented)
    if (tl_lockstat) tl_lockstat->released();
}

// The checked exclusive hold of a writer or a mutex holder: enter the
// exclusion checker, write this pass's record value, do the critical-section
// work, pass the in-cs point, and check that the record still holds the
// value (`changed` says what it means if not). Returns the value, which a
// downgrade checks again.
template <bool kInstrumented, class Lock>
std::uint64_t exclusive_hold(LockRunShared<Lock>& s, int index, std::uint64_t seq,
                             const char* changed) {
  s.exclusion.writer_enter(index, s.violations);
  const std::uint64_t value = record_value(index, seq);
  s.record.write(value);
  spin_work(s.scenario.cs_write_loops);
  maybe_inject<kInstrumented>(InjectPoint::kInCs);
  s.record.check_holds(value, index, ViolationKind::kTornRecord, changed, s.violations);
  return value;
}

// --nested-locks, before a pass of the exclusive side takes the lock under
// test: draws which of the nested locks it takes and takes them, ascending,
// each checked as the lock itself is (one holder; a semaphore's count).
// Returns the mask to hand to release_nested. Nothing without the option.
template <class Lock>
std::uint32_t take_nested(LockRunShared<Lock>& s, int index, WorkerSlot& slot, PassRng& rng) {
  const int n = int(s.nested.size());
  if (n == 0) return 0;
  const std::uint32_t mask = std::uint32_t(rng()) & ((1u << n) - 1);
  constexpr bool kCounting = CountingSemaphore<Lock>;
  const int admits = kCounting ? s.scenario.count : 1;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    if ((mask & (1u << i)) == 0) continue;
    NestedLock<Lock>& nl = *s.nested[size_t(i)];
    slot.phase.store(Phase::kNestedAcquire, std::memory_order_relaxed);
    acquire_as<false>(nl.lock);
    ++tl_nested_held;
    ++slot.result.nested;
    const int inside = nl.holders.fetch_add(1) + 1;
    if (inside > admits)
      s.violations.report(kCounting ? ViolationKind::kSemaphoreBound : ViolationKind::kWriterExclusion,
                          index,
                          fmt::format("{} holders inside nested lock {} of {} (--nested-locks), "
                                      "which admits {}",
                                      inside, i + 1, n, admits));
  }
  slot.result.nested_wait_s +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return mask;
}

// After the pass let go of the lock under test: the nested locks it took,
// descending.
template <class Lock>
void release_nested(LockRunShared<Lock>& s, WorkerSlot& slot, std::uint32_t mask) {
  for (int i = int(s.nested.size()) - 1; i >= 0; --i) {
    if ((mask & (1u << i)) == 0) continue;
    NestedLock<Lock>& nl = *s.nested[size_t(i)];
    slot.phase.store(Phase::kNestedRelease, std::memory_order_relaxed);
    nl.holders.fetch_sub(1);
    release_as<false>(nl.lock);
    --tl_nested_held;
  }
}

// After every worker left, each nested lock must be free for one more
// exclusive holder, as the lock under test must (where the lock has a
// trylock for it).
template <class Lock>
void check_nested_free(LockRunShared<Lock>& s) {
  for (std::size_t i = 0; i < s.nested.size(); ++i) {
    Lock& l = s.nested[i]->lock;
    const std::string what = fmt::format(
        "nested lock {} of {} (--nested-locks) was not free after every thread had released it",
        i + 1, s.nested.size());
    auto release = [&] { release_as<false>(l); };
    if constexpr (RwLock<Lock> && HasWriteTrylock<Lock>)
      check_free_after_run([&] { return l.down_write_trylock(); }, release, what.c_str(),
                           s.violations);
    else if constexpr (CountingSemaphore<Lock> && HasSemTrylock<Lock>)
      check_free_after_run([&] { return l.down_trylock(); }, release, what.c_str(), s.violations);
    else if constexpr (!RwLock<Lock> && !CountingSemaphore<Lock> && HasTrylock<Lock>)
      check_free_after_run([&] { return l.trylock(); }, release, what.c_str(), s.violations);
  }
}

// The end of every checked pass, after the checker has left: the
// before-release point, the release phase, the end of the hold for
// lockstat (unless a downgrade ended it already), the release, the
// after-release point. (--no-check's pass below has its own, shorter tail.)
template <bool kInstrumented, class Release>
inline void release_tail(WorkerSlot& slot, Phase phase, Release release, bool ends_hold = true) {
  maybe_inject<kInstrumented>(InjectPoint::kBeforeRelease);
  slot.phase.store(phase, std::memory_order_relaxed);
  if (ends_hold) measure_released<kInstrumented>();
  release();
  maybe_inject<kInstrumented>(InjectPoint::kAfterRelease);
}

// --no-check: the pass of liburcu's test_rwlock and nothing more: acquire,
// the critical-section work, release. No checker, no trylock or downgrade
// mix. The plain instantiation stores no phase either: with a fast path of
// a few ns, the phase stores in front of the lock's atomic operations
// cost 6-10% of the bare loop's ops/s (docs/PERFORMANCE.md), and the harness
// must stay within 3% of it. The worker says kUnchecked once instead, and a
// HANG report tells only that a thread is in a pass. The instrumented
// instantiation (injection, --lockstat) keeps the phases.
template <bool kInstrumented, class Acquire, class Release>
inline void unchecked_pass(WorkerSlot& slot, std::uint64_t cs_loops, Phase acquiring,
                           Phase holding, Acquire acquire_lock, Release release_lock) {
  maybe_inject<kInstrumented>(InjectPoint::kBeforeAcquire);
  if constexpr (kInstrumented) slot.phase.store(acquiring, std::memory_order_relaxed);
  measure_request<kInstrumented>();
  acquire_lock();
  measure_acquired<kInstrumented>();
  if constexpr (kInstrumented) slot.phase.store(holding, std::memory_order_relaxed);
  spin_work(cs_loops);
  maybe_inject<kInstrumented>(InjectPoint::kInCs);
  maybe_inject<kInstrumented>(InjectPoint::kBeforeRelease);
  measure_released<kInstrumented>();
  release_lock();
  maybe_inject<kInstrumented>(InjectPoint::kAfterRelease);
}

// By default one in 16 acquisitions uses a trylock (and one in 16 write
// holds ends in a downgrade) where the lock has them (Scenario::try_mask,
// --try-every): often enough to exercise those paths thousands of times a
// second, rarely enough that the blocking paths still dominate, as in real
// use. kTryEvery is also how often a recursive mutex nests.
inline constexpr unsigned kTryEvery = 16;

// Acquires through the trylock about once in try_mask + 1 passes where the
// lock has one (falling back to the blocking call when it fails), otherwise
// through the blocking call.
template <bool kInstrumented, bool kHasTrylock, class TryFn, class BlockFn>
inline void acquire(WorkerSlot& slot, PassRng& rng, std::uint32_t try_mask,
                    Phase try_phase, Phase block_phase, TryFn try_lock, BlockFn block) {
  measure_request<kInstrumented>();
  if constexpr (kHasTrylock) {
    if ((rng() & try_mask) == 0) {
      slot.phase.store(try_phase, std::memory_order_relaxed);
      ++slot.result.trylock_attempts;
      if (try_lock()) {
        measure_acquired<kInstrumented>();
        return;
      }
      ++slot.result.trylock_failures;
      if constexpr (kInstrumented)
        if (tl_lockstat) tl_lockstat->rejected();
    }
  }
  slot.phase.store(block_phase, std::memory_order_relaxed);
  TimedPreference* const preference = tl_preference;  // where the run judges it
  if (preference) preference->asks(tl_worker_index);
  block();
  if (preference) preference->admitted(tl_worker_index, tl_run->violations);
  measure_acquired<kInstrumented>();
}

// The loop every worker runs: outside work, one pass of the family's
// acquire/check/release, the progress counter, the optional yield.
// `pass(slot, rng, seq)` is the family's. Without kPhases (--no-check's
// plain loop) the thread says kUnchecked once and stores no phase per pass.
template <bool kPhases, class Lock, class Pass>
void worker_loop_body(LockRunShared<Lock>& s, WorkerSlot& slot, int index, bool inject,
                      Pass pass) {
  const Scenario& sc = s.scenario;
  PassRng rng(thread_seed(sc.seed, index));
  std::uint64_t ops = 0;
  // Locals, not loads through `sc`: after a call into a library lock the
  // compiler must reload anything reachable from shared memory, every pass.
  const std::uint64_t delay = sc.delay_loops;
  const bool sched = sc.sched;
  ThreadUsage usage;  // two getrusage calls, outside the measured loop
  if constexpr (!kPhases) {
    slot.phase.store(Phase::kUnchecked, std::memory_order_relaxed);
    if (!sched && !inject) {
      // The bare loop's shape: nothing per pass but the pass and the
      // progress counter the watchdog reads.
      while (!s.stop.load(std::memory_order_relaxed)) {
        spin_work(delay);
        pass(slot, rng, ops + 1);
        slot.ops.store(++ops, std::memory_order_relaxed);
      }
      usage.finish(slot.result);
      return;
    }
  }
  while (!s.stop.load(std::memory_order_relaxed)) {
    spin_work(delay);
    pass(slot, rng, ops + 1);
    slot.ops.store(++ops, std::memory_order_relaxed);
    if constexpr (kPhases) slot.phase.store(Phase::kOutside, std::memory_order_relaxed);
    if (sched) sched_yield();
    if (inject) inject_at(InjectPoint::kBetweenPasses);
  }
  usage.finish(slot.result);
}

template <bool kInstrumented, bool kPhases = true, class Lock, class Pass>
void worker_loop(const std::shared_ptr<LockRunShared<Lock>>& shared, int index, Pass pass) {
  LockRunShared<Lock>& s = *shared;
  WorkerSlot& slot = s.slots[index];
  tl_worker_index = index;
  tl_run = &s;
  // (before the lock's thread_enter, which may make the kernel layer's
  // task: worker_start makes it so once the run goes, or calls the run off)
  tl_rt_priority = s.scenario.real_time(index) ? 1 : 0;
  if (s.preference.on()) {
    tl_preference = &s.preference;
    tl_wait_signal = s.preference.signal_of(index);
  }
  if constexpr (requires { Lock::thread_enter(); }) Lock::thread_enter();  // e.g. RCU registration
  if (worker_start(s, index)) {
    if constexpr (kInstrumented) {
      // The instrumented instantiation: injection and/or measurement.
      const MeasureSpec& m = s.scenario.measure;
      std::unique_ptr<LockStatRecorder> recorder;
      if (m.any()) {
        LockStat& st = slot.result.lockstat;
        st.read.hold_hist = st.read.wait_hist = Histogram(m.hist);
        st.write.hold_hist = st.write.wait_hist = Histogram(m.hist);
        const bool reads = slot.result.role == Role::kReader;
        recorder = std::make_unique<LockStatRecorder>(reads ? st.read : st.write,
                                                      CycleClock::calibrate(), m, !reads);
        tl_lockstat = recorder.get();
      }
      if (s.scenario.injection) {
        ThreadInjector injector(*s.scenario.injection, *s.inject, s.scenario.seed, index);
        tl_injector = &injector;
        worker_loop_body<true>(s, slot, index, true, pass);
        tl_injector = nullptr;
        slot.result.inject_fired = injector.fired();
        slot.result.inject_visits = injector.visits();
        slot.result.injected_holding_s = double(injector.holding_pause_ns()) / 1e9;
      } else {
        worker_loop_body<true>(s, slot, index, false, pass);
      }
      tl_lockstat = nullptr;
    } else {
      worker_loop_body<kPhases>(s, slot, index, false, pass);
    }
  }
  tl_run = nullptr;
  tl_rt_priority = 0;
  tl_preference = nullptr;
  tl_wait_signal = nullptr;
  slot.phase.store(Phase::kDone, std::memory_order_release);
}

// --no-check's worker, the same for every family: readers of an rwlock
// take it shared, everyone else exclusive (acquire_as/release_as).
template <class Lock, bool kInstrumented>
void unchecked_worker(const std::shared_ptr<LockRunShared<Lock>>& shared, int index) {
  LockRunShared<Lock>& s = *shared;
  const bool reader = index < s.scenario.readers;
  // Copies, not loads through `s`: after a call into a library lock the
  // compiler must reload anything reachable from shared memory.
  const std::uint64_t cs = reader ? s.scenario.cs_read_loops : s.scenario.cs_write_loops;
  constexpr bool kRw = RwLock<Lock>;
  const Phase acquiring = !kRw ? Phase::kAcquire : reader ? Phase::kDownRead : Phase::kDownWrite;
  const Phase holding = !kRw ? Phase::kHold : reader ? Phase::kHoldRead : Phase::kHoldWrite;
  Lock& lock = s.lock;
  // One loop per role, so that no pass asks which role it plays.
  auto run_as = [&]<bool kShared>() {
    worker_loop<kInstrumented, kInstrumented>(
        shared, index,
        [&lock, cs, acquiring, holding](WorkerSlot& slot, PassRng&, std::uint64_t) {
          unchecked_pass<kInstrumented>(
              slot, cs, acquiring, holding, [&] { acquire_as<kShared>(lock); },
              [&] { release_as<kShared>(lock); });
        });
  };
  if constexpr (kRw) {
    if (reader) return run_as.template operator()<true>();
  }
  run_as.template operator()<false>();
}

// A worker of any family: --no-check's loop, or the worker loop over the
// family's checked pass, called as pass(slot, rng, seq).
template <class Lock, bool kInstrumented, class Pass>
void family_worker(const std::shared_ptr<LockRunShared<Lock>>& shared, int index, Pass pass) {
  if (!shared->scenario.check) return unchecked_worker<Lock, kInstrumented>(shared, index);
  worker_loop<kInstrumented>(shared, index, pass);
}

// Sums the workers' firing counts per spec and point, adds the global
// injectors' counts, and the schedule digest.
void collect_injections(const Scenario& sc, const InjectShared& shared, RunResult& result);

// --acq-writer-lim: each thread whose write acquisitions waited past the
// limit is an acquire-limit violation (how many, the longest).
void report_over_limit(const Scenario& sc, const RunResult& result, ViolationLog& log);

template <class Lock>
using WorkerFn = void (*)(std::shared_ptr<LockRunShared<Lock>>, int);

// Runs one scenario on one lock type:
//   probe(Lock&) -> std::vector<Violation>, on a fresh instance, on a thread
//     of its own and bounded by the watchdog (a broken lock may block it);
//   worker, on sc.threads() pinned threads, until the duration ends;
//   final_check(Lock&, ViolationLog&[, shared_ptr<void> keeping the lock alive]),
//   after every worker left.
// kInstrumented: the workers are the instrumented instantiation, so
// sc.measure is recorded.
template <class Lock, bool kInstrumented, class Probe, class FinalCheck>
RunResult run_lock_workers(const Scenario& sc, const LockMeta& meta, WorkerFn<Lock> worker,
                           Probe probe, FinalCheck final_check) {
  RunResult result;
  result.lock = std::string(meta.name);
  result.family = meta.family;
  result.fairness = meta.fairness;
  if constexpr (requires { Lock::keeps_fairness_with(sc.tuning); }) {
    if (!Lock::keeps_fairness_with(sc.tuning)) result.fairness = Fairness::kUnfair;  // a knob made it so
  }
  result.readers = sc.readers;
  result.writers = sc.writers;
  result.count = meta.family == Family::kSemaphore ? sc.count : 0;
  result.spins = meta.caps.spins;
  result.known_issue = std::string(meta.known_issue);
  result.sched = sc.sched;
  result.checked = sc.check;
  result.cpus = sc.plan.cpus;

  LockWarnings::instance().clear();
  LockOrder::instance().reset(sc.check);
  auto probe_found = std::make_shared<std::vector<Violation>>();
  bool probe_finished = run_with_timeout(
      [probe_found, sc, probe, spins = meta.caps.spins] {
        auto box = std::make_shared<LockBox<Lock>>(sc);
        *probe_found = probe(box->lock);
        // A spinning lock has no wake-up to lose, and a waiter it never
        // admits would spin on, leaked, for the rest of the process.
        if (!spins)
          for (Violation& v : probe_liveness<Lock>(sc)) probe_found->push_back(std::move(v));
      },
      sc.watchdog, &liveness_detail::waited_for_cpu_ns());
  if (!probe_finished) {
    result.hang_report.push_back(fmt::format(
        "semantics probe (trylock/downgrade and admitted waiters, on fresh instances) did not "
        "finish within {:.1f}s",
        std::chrono::duration<double>(sc.watchdog).count()));
    ViolationLog said;  // what the lock warned about before it hung
    drain_lock_warnings(said);
    said.copy_into(result);
    summarize_run(result);
    return result;
  }

  // Calibrated before the workers start, not by the first of them.
  const bool measured = kInstrumented && sc.measure.any();
  const ClockCalibration* clock = measured ? &CycleClock::calibrate() : nullptr;
  auto shared = std::make_shared<LockRunShared<Lock>>(sc);
  for (const Violation& v : *probe_found) shared->violations.report(v.kind, v.thread, v.detail);
  shared->preference.setup(result.fairness, meta.family, sc.readers, sc.count, sc.threads(),
                           QueuedBeforeSpinning<Lock> && sc.check,
                           [&](int i) -> WaitSignal& { return shared->slots[i].wait; });

  std::vector<std::thread> workers;
  try {
    for (int i = 0; i < sc.threads(); ++i) workers.emplace_back(worker, shared, i);
  } catch (const std::system_error& e) {
    // Out of threads (ulimit, memory): call the run off before it starts.
    shared->stop.store(true);
    for (auto& w : workers) w.join();
    result.error = fmt::format("could not start worker thread {}: {}", workers.size(), e.what());
    summarize_run(result);
    return result;
  }
  std::unique_ptr<InjectionController> controller;
  if (sc.injection && shared->inject) {
    std::vector<InjectionController::Target> targets;
    for (int i = 0; i < sc.threads(); ++i)
      targets.push_back({&shared->slots[i].tid, sc.plan.cpu_of_thread[size_t(i)], sc.real_time(i)});
    controller = std::make_unique<InjectionController>(*sc.injection, *shared->inject, sc.seed,
                                                       std::move(targets), sc.plan.cpus);
    controller->start();
  }
  {
    RtGuard guard(*shared);
    // The driver above the real-time workers too, so that its watchdog and
    // its stop keep their times while they spin (back to its own after).
    const RaisedForRun raised(guard.guarding());
    drive_run(shared, workers, meta, result);
    guard.stop();
    for (std::size_t i = 0; i < result.threads.size(); ++i)
      result.threads[i].rt_throttled = guard.throttled(int(i));
    if (std::string note = guard.note(result.threads); !note.empty())
      result.notes.push_back(std::move(note));
  }
  if (controller) controller->stop();
  if (sc.injection && shared->inject) collect_injections(sc, *shared->inject, result);
  if (clock) {
    result.measured = true;
    result.clock = clock->describe();
    result.clock_overhead_ns = clock->overhead_ns();
    for (const ThreadResult& t : result.threads) result.lockstat.merge(t.lockstat);
    report_over_limit(sc, result, shared->violations);
  }
  // Not with threads still inside (a hang, or a drain cut off by the join's
  // bound): the lock is theirs, not free, and that says nothing.
  if (result.hang_report.empty() && result.error.empty() && result.stuck_threads == 0) {
    check_idle(shared->lock, shared->violations);  // first: a trylock may set it at rest
    // A check that may leave a thread blocked in the lock gets a handle
    // that keeps the lock alive for as long as that thread needs it.
    if constexpr (std::is_invocable_v<FinalCheck, Lock&, ViolationLog&, std::shared_ptr<void>>)
      final_check(shared->lock, shared->violations, std::shared_ptr<void>(shared));
    else
      final_check(shared->lock, shared->violations);
    check_nested_free(*shared);
  }
  drain_lock_warnings(shared->violations);
  shared->violations.copy_into(result);
  summarize_run(result);
  return result;
}

// Retries `ok()` for up to about 100 ms: a lock released by its last holder
// may still be handing itself over to a waiter that has not yet run.
template <class Fn>
bool eventually(Fn ok) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (ok()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

// After every worker left, the lock must be free: `take` (a trylock) must
// succeed within `eventually`, and is then undone by `release`.
template <class Take, class Release>
void check_free_after_run(Take take, Release release, const char* what, ViolationLog& log) {
  if (eventually(take))
    release();
  else
    log.report(ViolationKind::kFinalState, kAfterRunThread, what);
}

}  // namespace rwstress
