// The lock contract: families, fairness classes and capabilities as typed
// traits (C++20 concepts), so the harness never guesses from names.
#pragma once

#include <chrono>
#include <concepts>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>

#include "locks/lock_tuning.h"

struct rwstress_lock_ops;  // include/rwstress/plugin.h

namespace rwstress {

enum class Family { kRwlock, kSemaphore, kMutex };

enum class Fairness {
  kReaderPref,  // readers never wait for waiting writers; writers may starve
  kWriterPref,  // waiting writers block new readers; readers may starve
  kTaskFair,    // FIFO: nobody is overtaken indefinitely
  kPhaseFair,   // read and write phases alternate
  kUnfair,      // stealing allowed; no progress promise to anyone
  kHandoff,     // stealing allowed, but a waiter that has waited past the lock's
                // bound is handed the lock next (the kernel's rwsem and mutex):
                // no share is promised, every waiter's wait is bounded
};
inline constexpr int kFairnessCount = 6;

const char* family_name(Family f);
// The test's shape as every table and key prints it: "4R+2W" (rwlock),
// "4T" (mutex), "4T/c2" (a semaphore's threads and initial count).
std::string test_shape(Family f, int readers, int writers, int count);
const char* fairness_name(Fairness f);
inline std::ostream& operator<<(std::ostream& os, Fairness f) { return os << fairness_name(f); }

// Whether the fairness class promises threads of a role a share of the
// lock: a thread of a promised role that gets (almost) nothing is STARVED.
bool promises_share(Fairness f, bool writer_role);
// Whether it promises them that every wait ends: the share classes, and
// hand-off, whose promise is a bounded wait and not a share (a writer among
// eight readers of the kernel's rwsem gets one write per 4 ms hand-off
// bound, 1/10,000 of a reader's operations, as it should). A waiter of a
// hand-off lock kept waiting far past the bound is STARVED (verdict.h).
bool promises_bounded_wait(Fairness f, bool writer_role);

template <class L>
concept RwLock = requires(L l) {
  l.down_read();
  l.up_read();
  l.down_write();
  l.up_write();
};

template <class L>
concept HasReadTrylock = requires(L l) {
  { l.down_read_trylock() } -> std::same_as<bool>;
};

template <class L>
concept HasWriteTrylock = requires(L l) {
  { l.down_write_trylock() } -> std::same_as<bool>;
};

template <class L>
concept HasDowngrade = requires(L l) { l.downgrade_write(); };

// Semaphores: down/up on a count set at construction. down_trylock returns
// true when it took the semaphore (the kernel's returns 0 then: the adapters
// in src/ translate), down_timeout true when it took it within the time.
template <class L>
concept CountingSemaphore = (std::constructible_from<L, int> ||
                             std::constructible_from<L, const rwstress_lock_ops*, long>) &&
                            requires(L l) {
  l.down();
  l.up();
};

template <class L>
concept HasSemTrylock = requires(L l) {
  { l.down_trylock() } -> std::same_as<bool>;
};

template <class L>
concept HasDownTimeout = requires(L l, std::chrono::nanoseconds t) {
  { l.down_timeout(t) } -> std::same_as<bool>;
};

// Mutexes and spinlocks: lock/unlock, trylock true when it took the lock.
template <class L>
concept MutexLock = requires(L l) {
  l.lock();
  l.unlock();
};

// One acquisition, and its release, in the lock's own terms: shared or
// exclusive for a reader-writer lock (kShared), down/up for a semaphore,
// lock/unlock for a mutex (kShared ignored). The bare loops (fast path,
// test_rwlock yardstick, --no-check) all acquire through these.
template <bool kShared, class L>
inline void acquire_as(L& l) {
  if constexpr (RwLock<L>) {
    if constexpr (kShared)
      l.down_read();
    else
      l.down_write();
  } else if constexpr (CountingSemaphore<L>) {
    l.down();
  } else {
    l.lock();
  }
}

template <bool kShared, class L>
inline void release_as(L& l) {
  if constexpr (RwLock<L>) {
    if constexpr (kShared)
      l.up_read();
    else
      l.up_write();
  } else if constexpr (CountingSemaphore<L>) {
    l.up();
  } else {
    l.unlock();
  }
}

template <class L>
concept HasTrylock = requires(L l) {
  { l.trylock() } -> std::same_as<bool>;
};

// The trylock where the lock has one; "failed" where it has none. Generic
// code names the call once instead of branching at every site.
template <class L>
bool try_down_read(L& lock) {
  if constexpr (HasReadTrylock<L>)
    return lock.down_read_trylock();
  else
    return false;
}

template <class L>
bool try_down_write(L& lock) {
  if constexpr (HasWriteTrylock<L>)
    return lock.down_write_trylock();
  else
    return false;
}

template <class L>
bool try_lock(L& lock) {
  if constexpr (HasTrylock<L>)
    return lock.trylock();
  else
    return false;
}

template <class L>
bool try_down(L& lock) {
  if constexpr (HasSemTrylock<L>)
    return lock.down_trylock();
  else
    return false;
}

// RCU-like: readers never exclude writers; they read a published version
// (read_current()), and writers publish(new) and retire(old, seq) it.
template <class L>
concept SnapshotReads = requires { L::kSnapshotReads; };

// A mutex whose holder may take it again (the big kernel lock).
template <class L>
concept Recursive = MutexLock<L> && requires { L::kRecursive; };

// A mutex that schedule() drops and re-takes around a sleep (the big
// kernel lock): the holder loses its protection across the sleep.
template <class L>
concept DroppedAroundSleep = requires(L l, int depth) {
  { l.release_for_schedule() } -> std::same_as<int>;
  l.reacquire_after_schedule(depth);
};

// Waiters spin (cpu_relax, at most a yield) instead of sleeping in the
// kernel. Declared by the lock: `static constexpr bool kSpins = true;`.
template <class L>
concept SpinningLock = requires { L::kSpins; };

// A lock whose spinners ask need_resched() where the kernel's do (a tick
// there is a choice under explore: --ticks). Declared by the lock:
// `static constexpr bool kAsksNeedResched = true;`.
template <class L>
concept AsksNeedResched = requires { L::kAsksNeedResched; };

// A lock whose logic reads its clock (lock_clock_now: a hand-off after so
// long a wait, a spin's deadline, a timed wait's): under explore a time
// jump there is a choice (--time-jumps). Declared by the lock:
// `static constexpr bool kReadsClock = true;`.
template <class L>
concept ReadsClock = requires { L::kReadsClock; };

// The idle check of the lock contract (docs/checkers.md, `not-idle`): once
// every thread has left, every field of the lock is back at rest -- its
// word, its wait list, its spinner queue, its hand-off bit -- or the lock
// says which is not: `not_idle()` returns nullptr, or one line naming the
// field. Run after every timed run whose threads all finished and after
// every explore schedule that ran to its end. A lock that cannot tell has
// no such method, and only the trylock check (the lock is free) runs.
// A spinning lock whose every busy-wait turn in an acquisition comes after
// the waiter has taken its place (a ticket drawn, a queue node linked, a
// waiting-writer count raised), never before (no spin on an internal lock
// first), except the turns it marks as before its place
// (SpinPlace::kBeforePlace, locks/spin_wait.h: phase-fair's writer waiting
// for its turn among writers): a waiter seen spinning in its place is
// waiting in the lock's order, which the preference check then holds
// others to (explore_run.h, run/preference_check.h).
// Declared: `static constexpr bool kQueuedBeforeSpinning = true;`.
template <class L>
concept QueuedBeforeSpinning = requires { L::kQueuedBeforeSpinning; };

template <class L>
concept HasIdleCheck = requires(const L& l) {
  { l.not_idle() } -> std::convertible_to<const char*>;
};

// A hand-off lock that says whom it owes the lock (the kernel's HANDOFF bit
// set for its first waiter): `handoff_waiter()` returns that waiter's
// kernel thread id, or 0; `reports_handoff()` whether this instance can
// tell at all. Read between two steps of an explore schedule with every
// thread stopped: no lock, no sleep, no scheduling point. Explore then
// counts the newcomers let in while that waiter waits (explore_run.h,
// handoff_owed).
template <class L>
concept ReportsHandoffWaiter = requires(const L& l) {
  { l.handoff_waiter() } -> std::convertible_to<int>;
  { l.reports_handoff() } -> std::convertible_to<bool>;
};

struct Capabilities {
  bool read_trylock = false;
  bool write_trylock = false;
  bool downgrade = false;
  bool trylock = false;  // mutex trylock or semaphore down_trylock
  bool timeout = false;  // semaphore down_timeout
  bool spins = false;    // waiters spin instead of sleeping
  bool tuned = false;    // built from a LockTuning: reads the knobs (locks/lock_tuning.h)
  bool killable = false;  // some acquisitions are killable (plugin RWSTRESS_LOCK_KILLABLE)
  bool resched_checks = false;  // its spinners ask need_resched() (explore --ticks)
  bool reads_clock = false;     // its logic reads its clock (explore --time-jumps)

  bool any_trylock() const { return read_trylock || write_trylock || trylock; }
  std::string describe() const;  // "read-trylock,write-trylock,downgrade" or "-"
};

template <class L>
constexpr Capabilities capabilities_of() {
  return Capabilities{HasReadTrylock<L>, HasWriteTrylock<L>, HasDowngrade<L>,
                      HasTrylock<L> || HasSemTrylock<L>, HasDownTimeout<L>, SpinningLock<L>,
                      std::is_constructible_v<L, const LockTuning&>, false, AsksNeedResched<L>,
                      ReadsClock<L>};
}

struct LockMeta {
  std::string_view name;
  Family family;
  Fairness fairness;
  std::string_view origin;
  Capabilities caps;
  bool busted;  // a deliberately broken lock: excluded from family selections
  // A bug known in the library itself (not in rwstress), with its reference.
  // The lock stays a control, but a HANG from it is expected, not a flag.
  std::string_view known_issue = {};
  // A --plugin lock's ops table (registry/plugins.cc), else nullptr.
  const rwstress_lock_ops* plugin = nullptr;
  // A --plugin lock built on the kernel-compat layer (it exports
  // rwstress_kernel_attach_v1): the signal and resched injectors reach it.
  bool kernel_layer = false;
  // A --plugin lock whose plugin marks scheduling points
  // (<rwstress/explore.h>: it exports rwstress_explore_attach_v1).
  bool explore_points = false;
  // ... built on the ABI 3 header, whose accesses tell explore's memory
  // model what they are (explore --memory c11 may run it).
  bool explore_model = false;
};

// Whether explore --memory c11 may run the lock: an in-tree one (its
// atomic seam tells the model), or a plugin built on the ABI 3 header.
inline bool memory_modelled(const LockMeta& m) { return !m.plugin || m.explore_model; }

}  // namespace rwstress
