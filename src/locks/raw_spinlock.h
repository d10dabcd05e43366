// RawSpinlock: the internal spinlock that guards the wait lists of the
// sleeping locks, in the role of the kernel's spinlock_t.
//
// Algorithm: test-and-test-and-set. Fairness: none (stealing).
// Lock word: one byte-sized flag, 0 = free, 1 = held.
//
// Waiters spin through SpinWait (yields when the holder seems preempted).
#pragma once

#include <atomic>
#include <cstdint>

#include "locks/hooks.h"
#include "locks/spin_wait.h"

namespace rwstress {

template <class Hooks = NoHooks>
class RawSpinlock {
 public:
  void lock() noexcept {
    for (;;) {
      if (!locked_.exchange(1, std::memory_order_acquire)) return;
      spin_until<Hooks>([&] { return !locked_.load(std::memory_order_relaxed); });
    }
  }

  bool trylock() noexcept {
    return !locked_.load(std::memory_order_relaxed) &&
           !locked_.exchange(1, std::memory_order_acquire);
  }

  // The wait-unlock point: what the holder decided under the lock (to sleep,
  // to give up, to wake someone) is not acted on yet.
  void unlock() noexcept {
    locked_.store(0, std::memory_order_release);
    Hooks::at(HookPoint::kWaitUnlock);
  }

  bool is_locked() const noexcept { return locked_.load(std::memory_order_relaxed) != 0; }

 private:
  Atomic<Hooks, std::uint8_t> locked_{0};
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
