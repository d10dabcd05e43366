// BigKernelLock: the Linux 2.2/2.4 big kernel lock (lock_kernel /
// unlock_kernel, include/linux/smp_lock.h), as the 2000 BKL report measured it.
//
// A spinlock with an owner and a per-owner depth: the owner may take it
// again (lock_depth counts up), and it is released only when the depth
// returns to zero. A holder that sleeps does not keep it: schedule() drops
// it (release_kernel_lock) and takes it back on wake-up
// (reacquire_kernel_lock), so code under the BKL loses its protection
// across any sleep. Fairness: none (the underlying spinlock steals).
#pragma once

#include <atomic>
#include <cstdint>

#include "locks/hooks.h"
#include "locks/raw_spinlock.h"

namespace rwstress {

template <class Hooks = NoHooks>
class BigKernelLock {
 public:
  template <class H>
  using WithHooks = BigKernelLock<H>;  // the same lock over other hooks
  static constexpr bool kSpins = true;
  static constexpr bool kRecursive = true;

  void lock() noexcept {
    const void* me = self();
    if (owner_.load(std::memory_order_relaxed) == me) {
      ++depth_;
      return;
    }
    spin_.lock();
    owner_.store(me, std::memory_order_relaxed);
    depth_ = 1;
  }

  bool trylock() noexcept {
    const void* me = self();
    if (owner_.load(std::memory_order_relaxed) == me) {
      ++depth_;
      return true;
    }
    if (!spin_.trylock()) return false;
    owner_.store(me, std::memory_order_relaxed);
    depth_ = 1;
    return true;
  }

  void unlock() noexcept {
    if (--depth_ > 0) return;
    owner_.store(nullptr, std::memory_order_relaxed);
    spin_.unlock();
  }

  // schedule() while holding: drop the lock entirely, remembering the
  // depth; take it back (at the same depth) after the sleep.
  int release_for_schedule() noexcept {
    int depth = depth_;
    depth_ = 0;
    owner_.store(nullptr, std::memory_order_relaxed);
    Hooks::at(HookPoint::kBeforeSleep);
    spin_.unlock();
    return depth;
  }
  void reacquire_after_schedule(int depth) noexcept {
    Hooks::at(HookPoint::kAfterWake);
    spin_.lock();
    owner_.store(self(), std::memory_order_relaxed);
    depth_ = depth;
  }

 private:
  static const void* self() noexcept {
    static thread_local char token;
    return &token;
  }

  RawSpinlock<Hooks> spin_;
  Atomic<Hooks, const void*> owner_{nullptr};  // read by non-owners: only compared with themselves
  int depth_ = 0;                            // the owner's
};

}  // namespace rwstress
