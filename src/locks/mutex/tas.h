// TasSpinlock: test-and-set, the textbook spinlock every later one improves.
//
// Algorithm: every waiter spins on an atomic exchange. Each failed exchange
// takes the cache line exclusive, so waiters slow the holder down (the
// motivation for TTAS and queued locks: Anderson 1990, Mellor-Crummey &
// Scott 1991). Fairness: none. Lock word: one byte, 0 free, 1 held.
#pragma once

#include <atomic>
#include <cstdint>

#include "locks/hooks.h"
#include "locks/spin_wait.h"

namespace rwstress {

template <class Hooks = NoHooks>
class TasSpinlock {
 public:
  template <class H>
  using WithHooks = TasSpinlock<H>;  // the same lock over other hooks
  static constexpr bool kSpins = true;
  void lock() noexcept {
    SpinWait<Hooks> wait;
    while (locked_.exchange(1, std::memory_order_acquire)) wait.once();
  }
  bool trylock() noexcept { return !locked_.exchange(1, std::memory_order_acquire); }
  void unlock() noexcept { locked_.store(0, std::memory_order_release); }

 private:
  Atomic<Hooks, std::uint8_t> locked_{0};
};

}  // namespace rwstress
