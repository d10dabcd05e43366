// SemI386: the Linux 2.4 i386 counting semaphore (arch/i386/kernel/
// semaphore.c, include/asm-i386/semaphore.h), the "semaphore" of the 2000 BKL report.
//
// An atomic count (negative: somebody waits) and a `sleepers` count, both
// read under a spinlock by the slow path only. down decrements; if the
// result is negative it goes to __down, which folds "everybody else's"
// decrement back into the count and retries until the count stays
// non-negative. up increments; if the result is <= 0 it wakes one sleeper.
// A waiter that gets the semaphore wakes the next one ("passes the baton"),
// so a newcomer's fast-path decrement may take a unit ahead of sleepers:
// stealing. The 2.4 wait queue is a futex on a wake sequence here.
// Fairness: unfair.
#pragma once

#include <atomic>
#include <cstdint>

#include "locks/futex.h"
#include "locks/hooks.h"
#include "locks/raw_spinlock.h"

namespace rwstress {

template <class Hooks = NoHooks>
class SemI386 {
 public:
  template <class H>
  using WithHooks = SemI386<H>;  // the same lock over other hooks
  explicit SemI386(int count) noexcept : count_(count) {}

  void down() noexcept {
    if (count_.fetch_sub(1, std::memory_order_acquire) - 1 < 0) slow_down();
  }

  bool down_trylock() noexcept {
    if (count_.fetch_sub(1, std::memory_order_acquire) - 1 >= 0) return true;
    // __down_trylock: give back our decrement and the sleepers'.
    SpinGuard guard(lock_);
    int sleepers = sleepers_ + 1;
    sleepers_ = 0;
    if (!add_negative(sleepers)) wake_one();
    return false;
  }

  void up() noexcept {
    if (count_.fetch_add(1, std::memory_order_release) + 1 <= 0) wake_one();
  }

  int count_for_test() const noexcept { return count_.load(); }

 private:
  // atomic_add_negative(): adds, returns whether the result is negative.
  bool add_negative(int delta) noexcept {
    return count_.fetch_add(delta, std::memory_order_acq_rel) + delta < 0;
  }

  void wake_one() noexcept {
    Hooks::at(HookPoint::kBeforeWake);
    wake_seq_.fetch_add(1, std::memory_order_release);
    futex_wake(wake_seq_, 1);
  }

  void slow_down() noexcept {
    lock_.lock();
    Hooks::at(HookPoint::kAfterEnqueue);
    ++sleepers_;
    for (;;) {
      // The wake-up we would sleep through is the one after this look: an
      // up() between the check below and the sleep moves wake_seq_ past it
      // and the sleep returns at once. (Sampled after the check, as this
      // port did until December 2026, an up() in between woke nobody and the
      // sleeper slept on for good: rwstress explore found the schedule.)
      const std::uint32_t seq = wake_seq_.load(std::memory_order_acquire);
      int sleepers = sleepers_;
      // Add "everybody else" back into the count: they are not playing,
      // because we hold the lock. Non-negative means the unit is ours.
      if (!add_negative(sleepers - 1)) {
        sleepers_ = 0;
        break;
      }
      sleepers_ = 1;  // us: see the -1 above
      lock_.unlock();
      Hooks::at(HookPoint::kBeforeSleep);
      futex_wait<Hooks>(wake_seq_, seq);
      Hooks::at(HookPoint::kAfterWake);
      lock_.lock();
    }
    lock_.unlock();
    wake_one();  // pass the baton: another sleeper may be able to go too
  }

  Atomic<Hooks, int> count_;
  int sleepers_ = 0;  // under lock_
  RawSpinlock<Hooks> lock_;
  Atomic<Hooks, std::uint32_t> wake_seq_{0};  // the wait queue
};

}  // namespace rwstress
