// RawSpinlock: the internal spinlock that guards the wait lists of the
// sleeping locks, in the role of the kernel's spinlock_t.
//
// Algorithm: test-and-test-and-set. Fairness: none (stealing).
// Lock word: one byte-sized flag, 0 = free, 1 = held.
//
// A kernel spinlock holder cannot be preempted; a userspace one can. A waiter
// that has spun kSpinsBeforeYield turns is most likely spinning on a holder
// that lost its CPU, so it yields instead of burning its time slice. Without
// that, an oversubscribed run (more threads than CPUs) measures the
// scheduler's time slice, not the lock.
#pragma once

#include <atomic>
#include <cstdint>

#include <sched.h>

#include "locks/hooks.h"
#include "platform/cpu_relax.h"

namespace rwstress {

template <class Hooks = NoHooks>
class RawSpinlock {
 public:
  void lock() noexcept {
    for (;;) {
      if (!locked_.exchange(1, std::memory_order_acquire)) return;
      int spins = 0;
      while (locked_.load(std::memory_order_relaxed)) {
        Hooks::at(HookPoint::kSpinIteration);
        if (++spins < kSpinsBeforeYield) {
          cpu_relax();
        } else {
          sched_yield();
          spins = 0;
        }
      }
    }
  }

  bool try_lock() noexcept {
    return !locked_.load(std::memory_order_relaxed) &&
           !locked_.exchange(1, std::memory_order_acquire);
  }

  void unlock() noexcept { locked_.store(0, std::memory_order_release); }

  bool is_locked() const noexcept { return locked_.load(std::memory_order_relaxed) != 0; }

 private:
  // About a microsecond of pause on current x86: longer than any wait-list
  // critical section in this tree, far shorter than a scheduler time slice.
  static constexpr int kSpinsBeforeYield = 128;

  std::atomic<std::uint8_t> locked_{0};
};

template <class Spinlock>
class SpinGuard {
 public:
  explicit SpinGuard(Spinlock& l) noexcept : lock_(l) { lock_.lock(); }
  ~SpinGuard() { lock_.unlock(); }
  SpinGuard(const SpinGuard&) = delete;
  SpinGuard& operator=(const SpinGuard&) = delete;

 private:
  Spinlock& lock_;
};

}  // namespace rwstress
