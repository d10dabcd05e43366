// The counting-semaphore workload: every thread loops down / hold / up.
// Inside each hold the bound check counts the holders (never more than the
// count); with a count of 1 the protected record is checked as for a mutex.
// Where the semaphore has them, about one acquisition in sixteen goes
// through down_trylock or (every other time, where it exists) down_timeout.
// After the run, the count must be back where it started: exactly `count`
// units can be taken and no more.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "run/family_run.h"
#include "run/semantics_probe.h"

namespace rwstress {

// Long enough to sleep in the slow path, short enough to time out often.
inline constexpr std::chrono::microseconds kDownTimeout{200};

template <class Lock>
bool try_down_or_timeout(Lock& lock, std::uint64_t seq) {
  if constexpr (HasDownTimeout<Lock>) {
    if (seq & 1) return lock.down_timeout(kDownTimeout);
  }
  return try_down(lock);
}

template <bool kInstrumented, class Lock>
void semaphore_pass(LockRunShared<Lock>& s, int index, WorkerSlot& slot, PassRng& rng,
                    std::uint64_t seq) {
  ThreadResult& r = slot.result;
  maybe_inject<kInstrumented>(InjectPoint::kBeforeAcquire);
  const std::uint32_t nest = take_nested(s, index, slot, rng);
  acquire<kInstrumented, HasSemTrylock<Lock> || HasDownTimeout<Lock>>(
      slot, rng, s.scenario.try_mask, Phase::kTryAcquire, Phase::kAcquire,
      [&] { return try_down_or_timeout(s.lock, seq); }, [&] { s.lock.down(); });
  slot.phase.store(Phase::kHold, std::memory_order_relaxed);
  const int count = s.scenario.count;
  int inside = s.bound.enter(index, count, s.violations);
  if (inside > 1) ++r.reader_overlaps;
  if (inside > r.max_readers_seen) r.max_readers_seen = inside;
  if (count == 1) {
    const std::uint64_t value = record_value(index, seq);
    s.record.write(value);
    spin_work(s.scenario.cs_write_loops);
    s.record.check_holds(value, index, ViolationKind::kTornRecord,
                         "another holder changed the record during my hold", s.violations);
  } else {
    spin_work(s.scenario.cs_write_loops);
  }
  maybe_inject<kInstrumented>(InjectPoint::kInCs);
  s.bound.exit();
  release_tail<kInstrumented>(slot, Phase::kRelease, [&] { s.lock.up(); });
  release_nested(s, slot, nest);
}

template <class Lock, bool kInstrumented>
void semaphore_worker(std::shared_ptr<LockRunShared<Lock>> shared, int index) {
  LockRunShared<Lock>& s = *shared;
  family_worker<Lock, kInstrumented>(
      shared, index, [&](WorkerSlot& slot, PassRng& rng, std::uint64_t seq) {
        semaphore_pass<kInstrumented>(s, index, slot, rng, seq);
      });
}

// Takes up to `count` units with down_trylock, each retried for a while (a
// unit may still be on its way to a waiter). Returns how many it took.
template <class Lock>
int take_units(Lock& lock, int count) {
  int taken = 0;
  while (taken < count && eventually([&] { return try_down(lock); })) ++taken;
  return taken;
}

// Takes every unit the semaphore has, each retried for a while, then
// checks that one more is refused at once. Returns how many it took (at
// most `count`); they are given back before returning.
template <class Lock>
int drain_and_restore(Lock& lock, int count, bool* refused_extra) {
  const int got = count_free_units(lock, count + 1, [&](int held) {
    return held < count ? eventually([&] { return try_down(lock); }) : try_down(lock);
  });
  *refused_extra = got <= count;
  return std::min(got, count);
}

// down_trylock truth on a fresh semaphore of `count`: all units can be
// taken, then another thread's down_trylock (and down_timeout) fails; after
// one up another thread gets exactly that unit.
template <class Lock>
std::vector<Violation> probe_semaphore_semantics(Lock& lock, int count) {
  using namespace probe_detail;
  std::vector<Violation> found;
  if constexpr (HasSemTrylock<Lock>) {
    auto fail = [&](std::string what) { found.push_back({ViolationKind::kTrylockTruth, -1, what}); };
    const int taken = take_units(lock, count);
    if (taken < count) fail(fmt::format("only {} of {} units could be taken on a fresh semaphore",
                                        taken, count));
    if (in_other_thread([&] {
          if (!lock.down_trylock()) return false;
          lock.up();
          return true;
        }))
      fail("down_trylock succeeded with every unit taken");
    if constexpr (HasDownTimeout<Lock>) {
      if (in_other_thread([&] {
            if (!lock.down_timeout(std::chrono::milliseconds(2))) return false;
            lock.up();
            return true;
          }))
        fail("down_timeout succeeded with every unit taken");
    }
    for (int i = 0; i < taken; ++i) lock.up();
  }
  return found;
}

// Without down_trylock: how many units a helper thread takes with down()
// before it blocks for kUnitWait. A semaphore that lost units blocks it
// early; it is then given the missing units (up()) so that it can finish and
// be joined, and everything it took is given back. A helper that even that
// does not release (a lock whose up() wakes nobody) is left blocked, with
// `keep` holding the lock alive for it.
constexpr std::chrono::milliseconds kUnitWait{500};

template <class Lock>
int take_units_with_down(Lock& lock, int count, const std::shared_ptr<void>& keep) {
  struct Helper {
    std::atomic<int> taken{0};
    std::atomic<bool> done{false};
  };
  auto h = std::make_shared<Helper>();
  std::thread helper([&lock, count, h, keep] {
    for (int i = 0; i < count; ++i) {
      lock.down();
      h->taken.fetch_add(1);
    }
    h->done.store(true);
  });
  const auto wait_for = [&](auto until) {
    const auto deadline = std::chrono::steady_clock::now() + kUnitWait;
    while (!until() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  };
  wait_for([&] { return h->done.load(); });
  const int taken = h->taken.load();
  for (int given = taken; given < count && !h->done.load(); ++given) {
    const int before = h->taken.load();
    lock.up();
    wait_for([&] { return h->taken.load() > before; });
  }
  if (!h->done.load()) {
    helper.detach();
    return taken;
  }
  helper.join();
  for (int i = 0; i < count; ++i) lock.up();
  return taken;
}

template <class Lock>
void check_count_restored(Lock& lock, int count, ViolationLog& log,
                          const std::shared_ptr<void>& keep = nullptr) {
  if constexpr (!HasSemTrylock<Lock>) {
    const int taken = take_units_with_down(lock, count, keep);
    if (taken < count)
      log.report(ViolationKind::kSemaphoreCount, kAfterRunThread,
                 fmt::format("after the run only {} of the {} units could be taken: down() "
                             "blocked for {}ms on the next with every worker gone (units lost)",
                             taken, count, kUnitWait.count()));
  }
  if constexpr (HasSemTrylock<Lock>) {
    bool refused_extra = false;
    int taken = drain_and_restore(lock, count, &refused_extra);
    if (taken < count)
      log.report(ViolationKind::kSemaphoreCount, kAfterRunThread,
                 fmt::format("after the run only {} of the {} units could be taken", taken, count));
    if (!refused_extra)
      log.report(ViolationKind::kSemaphoreCount, kAfterRunThread,
                 fmt::format("after the run more than {} units could be taken", count));
  }
}

template <class Lock, bool kInstrumented = false>
RunResult run_semaphore(const Scenario& sc, const LockMeta& meta) {
  const int count = sc.count;
  return run_lock_workers<Lock, kInstrumented>(
      sc, meta, &semaphore_worker<Lock, kInstrumented>,
      [count](Lock& l) { return probe_semaphore_semantics(l, count); },
      [count](Lock& l, ViolationLog& log, const std::shared_ptr<void>& keep) {
        check_count_restored(l, count, log, keep);
      });
}

}  // namespace rwstress
