// KernelSemaphore: the modern Linux counting semaphore
// (kernel/locking/semaphore.c, Linux 2.6.26+, Matthew Wilcox).
//
// A spinlock guards a plain count and a FIFO list of waiters. down takes a
// unit if count > 0, else queues and sleeps; up with waiters hands the unit
// straight to the first waiter (the count is not raised, so nobody can
// steal it), else raises the count. down_trylock and down_timeout as in the
// kernel (ours return true on success; the kernel's down_trylock returns 0).
// Fairness: FIFO (task-fair).
#pragma once

#include <chrono>

#include "locks/hooks.h"
#include "locks/raw_spinlock.h"
#include "locks/rwlock/rwsem_waiter.h"

namespace rwstress {

// kLateGrantLost: the busted zoo's busted-sem-late-timeout (busted_mutexes.h).
template <class Hooks = NoHooks, bool kLateGrantLost = false>
class KernelSemaphore {
 public:
  template <class H>
  using WithHooks = KernelSemaphore<H, kLateGrantLost>;  // the same lock over other hooks
  static constexpr bool kReadsClock = true;  // down_timeout's deadline (explore --time-jumps)
  explicit KernelSemaphore(int count) noexcept : count_(count) {}

  void down() noexcept {
    lock_.lock();
    if (count_ > 0) {
      --count_;
      lock_.unlock();
      return;
    }
    RwsemWaiter w(false);
    enqueue(w);
    lock_.unlock();
    rwsem_wait_for_grant<Hooks>(w);
  }

  bool down_trylock() noexcept {
    SpinGuard guard(lock_);
    if (count_ <= 0) return false;
    --count_;
    return true;
  }

  bool down_timeout(std::chrono::nanoseconds limit) noexcept {
    const auto deadline = lock_clock_now<Hooks>() + limit;
    lock_.lock();
    if (count_ > 0) {
      --count_;
      lock_.unlock();
      return true;
    }
    RwsemWaiter w(false);
    enqueue(w);
    lock_.unlock();
    bool late = false;
    while (w.waiting.load(std::memory_order_acquire)) {
      auto left = deadline - lock_clock_now<Hooks>();
      if (left <= std::chrono::nanoseconds::zero()) {
        SpinGuard guard(lock_);
        if (w.next) {  // still queued: give up
          list_.remove(&w);
          return false;
        }
        late = true;
        break;  // up() already took us off the list: the unit is ours
      }
      Hooks::at(HookPoint::kBeforeSleep);
      futex_wait_for<Hooks>(w.waiting, 1, left);
      Hooks::at(HookPoint::kAfterWake);
    }
    rwsem_wait_for_grant<Hooks>(w);  // granted, or about to be
    return !(kLateGrantLost && late);  // the busted one reports the late grant as a timeout
  }

  void up() noexcept {
    lock_.lock();
    RwsemWaiter* w = list_.front();
    if (!w) {
      ++count_;
      lock_.unlock();
      return;
    }
    list_.remove(w);
    w->next = nullptr;  // "not queued" for a waiter whose timeout fires now
    lock_.unlock();
    Hooks::at(HookPoint::kBeforeWake);
    rwsem_grant(w);
  }

  // The idle check (lock_traits.h, HasIdleCheck): after every thread left
  // (the count itself: the after-run unit count, semaphore_run.h).
  const char* not_idle() const noexcept {
    if (!list_.empty()) return "the wait list is not empty";
    if (lock_.is_locked()) return "the semaphore's spinlock is held";
    return nullptr;
  }

 protected:  // busted-sem-double-up reuses everything but up()
  void enqueue(RwsemWaiter& w) noexcept {
    list_.push_back(&w);
    Hooks::at(HookPoint::kAfterEnqueue);
  }

  RawSpinlock<Hooks> lock_;
  int count_;
  RwsemWaitList list_;
};

}  // namespace rwstress
