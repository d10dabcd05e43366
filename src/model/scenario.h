// One run's typed parameters, derived once from the command line.
#pragma once

#include <chrono>
#include <cstdint>
#include <type_traits>

#include "injectors/inject_spec.h"
#include "locks/lock_tuning.h"
#include "model/lock_traits.h"
#include "model/lockstat.h"
#include "platform/topology.h"

namespace rwstress {

// locktorture caps its nested_locks at 8 (lockdep's chain tables); so
// does --nested-locks, one bit of a drawn mask each.
inline constexpr int kMaxNestedLocks = 8;

struct Scenario {
  Family family = Family::kRwlock;
  int readers = 4;
  int writers = 2;   // for a mutex or a semaphore: the threads doing lock/unlock or down/up
  int count = 2;     // a semaphore's initial count
  LockTuning tuning;
  bool sched = false;  // sched_yield() after each pass, as the 2001 rwsem benchmark's SCHED=yes
  std::chrono::nanoseconds duration = std::chrono::seconds(4);
  std::uint64_t cs_read_loops = 0;   // work inside a read hold, in empty-loop turns
  std::uint64_t cs_write_loops = 0;  // work inside a write hold
  std::uint64_t delay_loops = 0;     // work between acquisitions
  // One acquisition in try_mask + 1 goes through the trylock (where the
  // lock has one), and one write hold in try_mask + 1 ends in a downgrade:
  // --try-every, a power of two (16 by default).
  std::uint32_t try_mask = 15;
  // One acquisition in killable_every takes a killable or interruptible
  // entry point, where the lock has them (RWSTRESS_LOCK_KILLABLE: the
  // kernel-compat glue); 0: none. --killable-every.
  int killable_every = 4;
  std::uint64_t seed = 0;
  std::chrono::nanoseconds watchdog = std::chrono::seconds(10);
  bool fail_fast = false;
  PlacementPlan plan;                 // one CPU per worker thread
  const Topology* topology = nullptr;  // pins threads; nullptr only in unit tests
  const InjectionPlan* injection = nullptr;  // --inject; read only by the injected instantiation
  bool check = true;    // false: --no-check, the bare measurement loop
  MeasureSpec measure;  // --lockstat / --hist; read only by the instrumented instantiation
  const rwstress_lock_ops* plugin = nullptr;  // a --plugin lock's ops (LockMeta::plugin)
  // Real-time threads (SCHED_FIFO, priority 1): the last rt_threads, and
  // with writer_fifo every writer (every thread of a mutex or semaphore),
  // as locktorture's writer_fifo. --rt-threads, --writer-fifo.
  int rt_threads = 0;
  bool writer_fifo = false;
  // --nested-locks N (at most kMaxNestedLocks): N more instances of the
  // lock under test, of which the exclusive side (writers; every thread of
  // a mutex or semaphore) takes a drawn subset, in ascending order, before
  // the lock itself and lets go of them after it, as locktorture's
  // nested_locks (family_run.h, NestedLock).
  int nested_locks = 0;

  int threads() const { return readers + writers; }
  bool real_time(int index) const {
    return index >= threads() - rt_threads ||
           (writer_fifo && (family != Family::kRwlock || index >= readers));
  }
};

// Builds a lock from the scenario: a --plugin lock takes its ops table (and
// a semaphore's count), semaphores take their count, tunable locks their
// knobs, every other lock is default-constructed. Returns a
// prvalue, so locks need not be movable.
template <class Lock>
Lock make_lock(const Scenario& sc) {
  if constexpr (std::is_constructible_v<Lock, const rwstress_lock_ops*, long>)
    return Lock(sc.plugin, sc.family == Family::kSemaphore ? long(sc.count) : 0L);
  else if constexpr (std::is_constructible_v<Lock, int>)
    return Lock(sc.count);
  else if constexpr (std::is_constructible_v<Lock, const LockTuning&>)
    return Lock(sc.tuning);
  else
    return Lock();
}

// A lone instance on the heap (for the semantics probe and the fast-path
// benchmark): locks need not be movable.
template <class Lock>
struct LockBox {
  explicit LockBox(const Scenario& s) : lock(make_lock<Lock>(s)) {}
  Lock lock;
};

}  // namespace rwstress
