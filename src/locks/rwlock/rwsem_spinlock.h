// rwsem-spinlock: David Howells' generic spinlock rwsem
// (lib/rwsem-spinlock.c, Linux 2.4.4-pre4, the 2001 rwsem benchmark's "GENERIC-SPIN").
//
// Algorithm: one spinlock guards an activity count and a FIFO wait list.
// A newcomer is granted at once only if the lock is compatible *and* nobody
// waits, so it never overtakes a queued waiter. A release that leaves the
// lock idle hands it directly to the head of the queue: a writer alone, or
// the run of readers at the head (the waker does the accounting, so a woken
// waiter owns the lock when it returns).
//
// Fairness: task-fair (FIFO), with readers at the head granted together.
//
// State (all under wait_lock_):
//   activity_ == 0    idle
//   activity_ >  0    that many readers hold it
//   activity_ == -1   one writer holds it
//   waiters_          FIFO of RwsemWaiter records on the sleepers' stacks
#pragma once

#include "locks/hooks.h"
#include "locks/raw_spinlock.h"
#include "locks/rwlock/rwsem_waiter.h"

namespace rwstress {

template <class Hooks = NoHooks>
class RwsemSpinlock {
 public:
  template <class H>
  using WithHooks = RwsemSpinlock<H>;  // the same lock over other hooks
  void down_read() noexcept {
    wait_lock_.lock();
    if (activity_ >= 0 && waiters_.empty()) {
      ++activity_;
      wait_lock_.unlock();
      return;
    }
    sleep_queued(false);
  }

  bool down_read_trylock() noexcept {
    SpinGuard guard(wait_lock_);
    if (activity_ < 0 || !waiters_.empty()) return false;
    ++activity_;
    return true;
  }

  void up_read() noexcept {
    SpinGuard guard(wait_lock_);
    // Readers are granted whenever compatible, so a waiter left behind an
    // idle lock is a writer.
    if (--activity_ == 0 && !waiters_.empty()) wake(false);
  }

  void down_write() noexcept {
    wait_lock_.lock();
    if (activity_ == 0 && waiters_.empty()) {
      activity_ = -1;
      wait_lock_.unlock();
      return;
    }
    sleep_queued(true);
  }

  bool down_write_trylock() noexcept {
    SpinGuard guard(wait_lock_);
    if (activity_ != 0 || !waiters_.empty()) return false;
    activity_ = -1;
    return true;
  }

  void up_write() noexcept {
    SpinGuard guard(wait_lock_);
    activity_ = 0;
    if (!waiters_.empty()) wake(false);
  }

  void downgrade_write() noexcept {
    SpinGuard guard(wait_lock_);
    activity_ = 1;
    if (!waiters_.empty()) wake(true);
  }

 private:
  // Called with wait_lock_ held; returns owning the lock.
  void sleep_queued(bool write) noexcept {
    RwsemWaiter self(write);
    waiters_.push_back(&self);
    wait_lock_.unlock();
    Hooks::at(HookPoint::kAfterEnqueue);
    rwsem_wait_for_grant<Hooks>(self);
  }

  // Called with wait_lock_ held and waiters queued.
  void wake(bool readers_only) noexcept {
    GrantBatch batch = rwsem_take_grant_batch(waiters_, ReaderBatch::kHeadRun, readers_only);
    if (batch.writer)
      activity_ = -1;
    else
      activity_ += batch.readers;
    Hooks::at(HookPoint::kBeforeWake);
    rwsem_grant_batch(batch);
  }

  RawSpinlock<Hooks> wait_lock_;
  int activity_ = 0;
  RwsemWaitList waiters_;
};

}  // namespace rwstress
