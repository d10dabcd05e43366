// The mutex/spinlock workload: every thread loops lock / hold / unlock.
// Inside each hold the exclusion check (no two holders) and the protected
// record (every word this holder's value until it leaves) run, as for an
// rwlock writer. Where the lock has them: about one acquisition in sixteen
// through trylock; for a recursive lock, one hold in sixteen takes it again
// nested; for a lock that schedule() drops (the BKL), one hold in sixteen
// "sleeps" in the middle, and the holder re-checks nothing it wrote before
// the sleep, because the lock did not protect it across the sleep.
#pragma once

#include <sched.h>

#include <thread>

#include "run/family_run.h"
#include "run/semantics_probe.h"

namespace rwstress {

template <bool kInstrumented, class Lock>
void mutex_pass(LockRunShared<Lock>& s, int index, WorkerSlot& slot, PassRng& rng,
                std::uint64_t seq) {
  maybe_inject<kInstrumented>(InjectPoint::kBeforeAcquire);
  const std::uint32_t nest = take_nested(s, index, slot, rng);
  acquire<kInstrumented, HasTrylock<Lock>>(
      slot, rng, s.scenario.try_mask, Phase::kTryAcquire, Phase::kAcquire, [&] { return try_lock(s.lock); },
      [&] { s.lock.lock(); });
  slot.phase.store(Phase::kHold, std::memory_order_relaxed);
  if constexpr (Recursive<Lock>) {
    if (rng() % kTryEvery == 0) {
      s.lock.lock();  // nested: must not deadlock, must not release early
      s.lock.unlock();
    }
  }
  if constexpr (DroppedAroundSleep<Lock>) {
    if (rng() % kTryEvery == 0) {
      int depth = s.lock.release_for_schedule();
      sched_yield();
      s.lock.reacquire_after_schedule(depth);
    }
  }
  exclusive_hold<kInstrumented>(s, index, seq, "another holder changed the record during my hold");
  s.exclusion.writer_exit();
  release_tail<kInstrumented>(slot, Phase::kRelease, [&] { s.lock.unlock(); });
  release_nested(s, slot, nest);
}

template <class Lock, bool kInstrumented>
void mutex_worker(std::shared_ptr<LockRunShared<Lock>> shared, int index) {
  LockRunShared<Lock>& s = *shared;
  family_worker<Lock, kInstrumented>(
      shared, index, [&](WorkerSlot& slot, PassRng& rng, std::uint64_t seq) {
        mutex_pass<kInstrumented>(s, index, slot, rng, seq);
      });
}

// Trylock truth: free -> another thread's trylock succeeds; held -> it fails;
// after unlock the lock is free again.
template <class Lock>
std::vector<Violation> probe_mutex_semantics(Lock& lock) {
  using namespace probe_detail;
  std::vector<Violation> found;
  if constexpr (HasTrylock<Lock>) {
    auto other_takes = [&] {
      return in_other_thread([&] {
        if (!lock.trylock()) return false;
        lock.unlock();
        return true;
      });
    };
    auto free_for_other = [&] {
      return eventually_in_other_thread([&] {
        if (!lock.trylock()) return false;
        lock.unlock();
        return true;
      });
    };
    if (!free_for_other()) {
      found.push_back({ViolationKind::kTrylockTruth, -1, "trylock never succeeded on a free lock"});
      return found;
    }
    lock.lock();
    if (other_takes())
      found.push_back({ViolationKind::kTrylockTruth, -1,
                       "trylock succeeded while another thread held the lock"});
    lock.unlock();
    if (!free_for_other())
      found.push_back({ViolationKind::kTrylockTruth, -1,
                       "after a failed trylock and unlock the lock was not free"});
  }
  return found;
}

template <class Lock>
void check_mutex_free(Lock& lock, ViolationLog& log) {
  if constexpr (HasTrylock<Lock>)
    check_free_after_run([&] { return lock.trylock(); }, [&] { lock.unlock(); },
                         "the lock was not free after every thread had released it", log);
}

template <class Lock, bool kInstrumented = false>
RunResult run_mutex(const Scenario& sc, const LockMeta& meta) {
  return run_lock_workers<Lock, kInstrumented>(
      sc, meta, &mutex_worker<Lock, kInstrumented>,
      [](Lock& l) { return probe_mutex_semantics(l); },
      [](Lock& l, ViolationLog& log) { check_mutex_free(l, log); });
}

}  // namespace rwstress
