// TtasBackoffSpinlock: test-and-test-and-set with bounded exponential backoff
// (Anderson 1990; Agarwal & Cherian 1989).
//
// Waiters spin reading the word (shared cache line, no traffic while it is
// held); when it looks free they try the exchange, and after each failed
// exchange wait a randomised, doubling number of pause turns, up to
// kMaxBackoff. Fairness: none (the newest arrival often wins).
#pragma once

#include <atomic>
#include <cstdint>

#include "locks/hooks.h"
#include "locks/spin_wait.h"

namespace rwstress {

template <class Hooks = NoHooks>
class TtasBackoffSpinlock {
 public:
  template <class H>
  using WithHooks = TtasBackoffSpinlock<H>;  // the same lock over other hooks
  static constexpr bool kSpins = true;
  void lock() noexcept {
    if (!locked_.exchange(1, std::memory_order_acquire)) return;
    SpinWait<Hooks> wait;
    std::uint32_t limit = kMinBackoff;
    std::uint32_t jitter = backoff_seed();
    for (;;) {
      while (locked_.load(std::memory_order_relaxed)) wait.once();
      if (!locked_.exchange(1, std::memory_order_acquire)) return;
      jitter = jitter * 1103515245u + 12345u;  // per-waiter LCG: waiters back off apart
      for (std::uint32_t i = (jitter >> 16) % limit; i > 0; --i) wait.once();
      if (limit < kMaxBackoff) limit *= 2;
    }
  }
  bool trylock() noexcept {
    return !locked_.load(std::memory_order_relaxed) &&
           !locked_.exchange(1, std::memory_order_acquire);
  }
  void unlock() noexcept { locked_.store(0, std::memory_order_release); }

 private:
  // Waiters back off apart: each starts from its own stack address, or,
  // under control, from its thread index (a replay draws the same turns).
  static std::uint32_t backoff_seed() noexcept {
    if constexpr (kControlled<Hooks>) {
      return std::uint32_t(controlled::thread_index()) * 2654435761u | 1;
    } else {
      int here;
      return std::uint32_t(reinterpret_cast<std::uintptr_t>(&here)) | 1;
    }
  }
  static constexpr std::uint32_t kMinBackoff = 4;
  static constexpr std::uint32_t kMaxBackoff = 1024;
  Atomic<Hooks, std::uint8_t> locked_{0};
};

}  // namespace rwstress
