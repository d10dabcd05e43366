// rwsem-aa: Andrea Arcangeli's generic rwsem (the 2.4.4-pre3 "generic
// rwsem" patch of the -aa tree; the 2001 rwsem benchmark's environment (1)).
//
// Algorithm: one spinlock guards a signed count and a FIFO wait list. The
// count is the sum of the biases of the holders: each reader adds
// kReadBias, a writer adds kWriteBias (the sign bit), so count < 0 means "a
// writer holds it" and count > 0 counts readers. A newcomer that finds the
// lock incompatible, or finds anyone queued, queues with the bias it will
// "retire" into the count when granted. The waker adds each granted
// waiter's bias itself before waking it (direct handoff): a writer at the
// head alone, else the readers at the head up to the first writer.
//
// This tree reconstructs the design from its description on linux-kernel
// (spinlock + count + list, bias-per-waiter handoff); the patch itself is not
// quoted. It differs from rwsem-spinlock in representation, not in policy.
//
// Fairness: task-fair (FIFO), readers at the head granted together.
//
// Count layout (under wait_lock_):
//   0                      idle
//   n * kReadBias          n readers
//   kWriteBias             one writer (LONG_MIN: the sign bit)
#pragma once

#include <climits>

#include "locks/hooks.h"
#include "locks/raw_spinlock.h"
#include "locks/rwlock/rwsem_waiter.h"

namespace rwstress {

template <class Hooks = NoHooks>
class RwsemAa {
 public:
  static constexpr long kReadBias = 1;
  static constexpr long kWriteBias = LONG_MIN;

  void down_read() noexcept { down(kReadBias); }
  void down_write() noexcept { down(kWriteBias); }
  bool down_read_trylock() noexcept { return trydown(kReadBias); }
  bool down_write_trylock() noexcept { return trydown(kWriteBias); }

  void up_read() noexcept {
    SpinGuard guard(wait_lock_);
    count_ -= kReadBias;
    if (count_ == 0 && !waiters_.empty()) wake(false);
  }

  void up_write() noexcept {
    SpinGuard guard(wait_lock_);
    count_ -= kWriteBias;
    if (!waiters_.empty()) wake(false);
  }

  void downgrade_write() noexcept {
    SpinGuard guard(wait_lock_);
    count_ -= kWriteBias;  // in two steps: kReadBias - kWriteBias overflows
    count_ += kReadBias;
    if (!waiters_.empty()) wake(true);
  }

 private:
  static bool compatible(long count, long bias) noexcept {
    return bias == kWriteBias ? count == 0 : count >= 0;
  }

  void down(long bias) noexcept {
    wait_lock_.lock();
    if (waiters_.empty() && compatible(count_, bias)) {
      count_ += bias;
      wait_lock_.unlock();
      return;
    }
    RwsemWaiter self(bias == kWriteBias);
    waiters_.push_back(&self);
    wait_lock_.unlock();
    Hooks::at(HookPoint::kAfterEnqueue);
    rwsem_wait_for_grant<Hooks>(self);
  }

  bool trydown(long bias) noexcept {
    SpinGuard guard(wait_lock_);
    if (!waiters_.empty() || !compatible(count_, bias)) return false;
    count_ += bias;
    return true;
  }

  // Called with wait_lock_ held and waiters queued: retire the granted
  // waiters' biases into the count, then wake them.
  void wake(bool readers_only) noexcept {
    if (!readers_only && count_ != 0) return;  // readers still hold it
    GrantBatch batch = rwsem_take_grant_batch(waiters_, ReaderBatch::kHeadRun, readers_only);
    for (RwsemWaiter* w = batch.first; w; w = w->next)
      count_ += w->wants_write ? kWriteBias : kReadBias;
    Hooks::at(HookPoint::kBeforeWake);
    rwsem_grant_batch(batch);
  }

  RawSpinlock<Hooks> wait_lock_;
  long count_ = 0;
  RwsemWaitList waiters_;
};

}  // namespace rwstress
