// TicketSpinlock: the FIFO ticket lock (Mellor-Crummey & Scott 1991; Linux
// x86 2.6.25-4.1, Nick Piggin).
//
// Two 32-bit counters on one cache line: `next`, the next ticket to hand
// out, and `owner`, the ticket being served. lock takes a ticket with one
// fetch_add on `next` and waits for `owner` to reach it; unlock advances
// `owner` with a plain release store (only the holder writes it). Both wrap
// at 2^32 and are only compared for equality, so wrapping is harmless.
// Fairness: strict FIFO (task-fair).
#pragma once

#include <atomic>
#include <cstdint>

#include "locks/hooks.h"
#include "locks/spin_wait.h"

namespace rwstress {

template <class Hooks = NoHooks>
class TicketSpinlock {
 public:
  template <class H>
  using WithHooks = TicketSpinlock<H>;  // the same lock over other hooks
  static constexpr bool kSpins = true;
  static constexpr bool kQueuedBeforeSpinning = true;  // the preference check (lock_traits.h)
  void lock() noexcept {
    const std::uint32_t ticket = next_.fetch_add(1, std::memory_order_relaxed);
    if (owner_.load(std::memory_order_acquire) == ticket) return;
    spin_until<Hooks>([&] { return owner_.load(std::memory_order_acquire) == ticket; });
  }

  // Takes the lock only when nobody holds or waits: `next` == `owner`.
  bool trylock() noexcept {
    std::uint32_t ticket = owner_.load(std::memory_order_acquire);
    return next_.compare_exchange_strong(ticket, ticket + 1, std::memory_order_acquire,
                                         std::memory_order_relaxed);
  }

  void unlock() noexcept {
    owner_.store(owner_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }

 private:
  Atomic<Hooks, std::uint32_t> next_{0};
  Atomic<Hooks, std::uint32_t> owner_{0};
};

}  // namespace rwstress
