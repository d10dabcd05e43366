// Andrea Arcangeli's generic rwsems of 2001, in their two published forms.
//
// RwsemAa ("aa-rwsem"): the rwsem-generic patch for Linux 2.4.4-pre3
// (revisions -1 to -4, April 2001), the one the 2001 rwsem benchmark ran as
// "2.4.4-pre3 + AA-rwsem". The patch text is not archived where this tree
// could read it; its design is, in Arcangeli's and Howells' messages on
// linux-kernel, 17-20 April 2001 (thread "generic rwsem [Re: Alpha "process
// table hang"]"):
//   - one spinlock guards the count and the slow path, held while a sleeper
//     sets itself up ("the other cpus will stop dirtifying my stuff after
//     their first trylock until I unlock");
//   - two wait queues, readers and writers, woken by hand without the wait
//     queues' own locks;
//   - down_read is recursive: a reader waits only for a writer that holds
//     the lock, never for one that waits, so "task0 down_read, task1
//     down_write, task0 down_read" does not deadlock. Arcangeli, 20 April:
//     "I provide recursive down_read and that in turn can starve the
//     down_write (my first patches weren't implementing fair semaphores)".
//   - a woken sleeper re-takes the spinlock and re-checks; it is woken, not
//     handed the lock, and may sleep again.
// Which sleepers a release wakes is not in those messages. Here, as 2.4's
// wake_up() does for one exclusive and all non-exclusive waiters: the last
// reader out wakes one sleeping writer; a writer's release wakes every
// sleeping reader and one sleeping writer, and they race for the spinlock.
// Fairness: unfair. Writers may starve (the benchmark's rws-rw without
// SCHED gave 3,330,281 reads to 1,009 writes), and so may readers: a woken
// reader is not handed the lock, and a writer that keeps its CPU re-takes
// it first (docs/locks.md).
// Count (under wait_lock_): 0 idle, n > 0 readers, kWriter one writer.
//
// RwsemAaFair ("aa-rwsem-fair"): rwsem-fair-20, the fair rewrite (from
// rwsem-generic-5 on) as posted against 2.4.10-pre12 on 20 September 2001
// (linux-kernel, "Re: Deadlock on the mm->mmap_sem", attachment
// 00_rwsem-fair-20, lib/rwsem.c and include/linux/rwsem.h). Followed line
// by line:
//   - the count is the sum of everyone's bias, holders and sleepers alike: a
//     reader adds kReadBias, a writer kWriteBias (the upper half), and a
//     sleeper leaves its bias in the count: a writer's stays as it is, a
//     reader's is turned into a writer's (it adds kReadBlockingBias), so
//     that a sleeping reader blocks newcomers just as a writer does;
//   - a newcomer sleeps if it finds anyone ahead (count < 0 for a reader,
//     count != 0 for a writer), so the queue is FIFO;
//   - a release that leaves no active reader and some bias in the upper half
//     wakes from the head: readers (each turned back into one active
//     reader) up to a writer, or that writer alone if no reader is active;
//   - the waker grants under the spinlock; the woken sleeper re-takes the
//     spinlock before it returns.
// Fairness: task-fair (FIFO, the readers at the head woken together).
// Count layout (under wait_lock_, 64-bit long):
//   bits 0-31   active readers (kReadMask)
//   bits 32-63  minus the number of writers and sleepers (kWriteBias each)
//
// Neither has a trylock or downgrade_write: 2.4.4 and 2.4.10 had neither.
#pragma once

#include <climits>

#include "locks/hooks.h"
#include "locks/raw_spinlock.h"
#include "locks/rwlock/rwsem_waiter.h"

namespace rwstress {

template <class Hooks = NoHooks>
class RwsemAa {
 public:
  template <class H>
  using WithHooks = RwsemAa<H>;  // the same lock over other hooks
  void down_read() noexcept {
    wait_lock_.lock();
    if (count_ == kWriter) sleep_until(readers_, false, [this] { return count_ != kWriter; });
    ++count_;
    wait_lock_.unlock();
  }

  void down_write() noexcept {
    wait_lock_.lock();
    if (count_ != 0) sleep_until(writers_, true, [this] { return count_ == 0; });
    count_ = kWriter;
    wait_lock_.unlock();
  }

  void up_read() noexcept {
    SpinGuard guard(wait_lock_);
    if (--count_ == 0) wake(writers_, 1);
  }

  void up_write() noexcept {
    SpinGuard guard(wait_lock_);
    count_ = 0;
    wake(readers_, INT_MAX);
    wake(writers_, 1);
  }

  long count_for_test() noexcept {
    SpinGuard guard(wait_lock_);
    return count_;
  }
  bool writer_queued_for_test() noexcept {
    SpinGuard guard(wait_lock_);
    return !writers_.empty();
  }

 private:
  static constexpr long kWriter = -1;

  // Called with wait_lock_ held; returns with it held and `admitted` true.
  // The sleeper stays on its queue until it gets in: a wake-up only makes
  // it re-check.
  template <class Admitted>
  void sleep_until(RwsemWaitList& queue, bool write, Admitted admitted) noexcept {
    RwsemWaiter self(write);
    queue.push_back(&self);
    Hooks::at(HookPoint::kAfterEnqueue);
    do {
      self.waiting.store(1, std::memory_order_relaxed);  // armed before wait_lock_ drops
      wait_lock_.unlock();
      rwsem_wait_for_grant<Hooks>(self);  // here: until woken, not granted
      wait_lock_.lock();
    } while (!admitted());
    queue.remove(&self);
  }

  // Wakes up to `n` sleepers of one queue that are not already awake, as
  // wake_up() counts only tasks it actually woke. Under wait_lock_, so no
  // sleeper can leave (and free its record) before this returns.
  void wake(RwsemWaitList& queue, int n) noexcept {
    if (queue.empty()) return;
    Hooks::at(HookPoint::kBeforeWake);
    for (RwsemWaiter* w = queue.front(); w && n > 0; w = queue.next_of(w)) {
      if (!w->waiting.load(std::memory_order_relaxed)) continue;
      futex_set_and_wake(w->waiting, 0);
      --n;
    }
  }

  RawSpinlock<Hooks> wait_lock_;
  long count_ = 0;
  RwsemWaitList readers_;
  RwsemWaitList writers_;
};

template <class Hooks = NoHooks>
class RwsemAaFair {
 public:
  template <class H>
  using WithHooks = RwsemAaFair<H>;  // the same lock over other hooks
  static constexpr long kReadBias = 1;
  static constexpr long kWriteBias = static_cast<long>(~(~0UL >> (sizeof(long) * CHAR_BIT / 2)));
  static constexpr long kReadBlockingBias = kWriteBias - kReadBias;
  static constexpr long kWriteBlockingBias = 0;
  static constexpr long kReadMask = ~kWriteBias;

  void down_read() noexcept {
    wait_lock_.lock();
    const long before = count_;
    count_ += kReadBias;
    if (before < 0) down_failed(false);
    wait_lock_.unlock();
  }

  void down_write() noexcept {
    wait_lock_.lock();
    const long before = count_;
    count_ += kWriteBias;
    if (before != 0) down_failed(true);
    wait_lock_.unlock();
  }

  void up_read() noexcept {
    SpinGuard guard(wait_lock_);
    count_ -= kReadBias;
    if (count_ < 0 && !(count_ & kReadMask)) wake();
  }

  void up_write() noexcept {
    SpinGuard guard(wait_lock_);
    count_ -= kWriteBias;
    if (count_ != 0) wake();
  }

  long count_for_test() noexcept {
    SpinGuard guard(wait_lock_);
    return count_;
  }

 private:
  static long retire_of(const RwsemWaiter& w) noexcept {
    return w.wants_write ? kWriteBlockingBias : kReadBlockingBias;
  }

  // Called with wait_lock_ held and our bias already added; returns with it
  // held, granted.
  void down_failed(bool write) noexcept {
    RwsemWaiter self(write);
    count_ += retire_of(self);
    waiters_.push_back(&self);
    Hooks::at(HookPoint::kAfterEnqueue);
    do {
      wait_lock_.unlock();
      rwsem_wait_for_grant<Hooks>(self);
      wait_lock_.lock();
    } while (self.waiting.load(std::memory_order_relaxed));
  }

  // With wait_lock_ held: grants from the head, readers up to a writer, or
  // a writer alone when no reader is active. A granted reader's blocking
  // bias is taken back out, leaving one active reader; a granted writer's
  // bias stays as the holder's. The sleeper cannot return before we drop
  // wait_lock_, so its record stays valid through the futex_wake.
  void wake() noexcept {
    Hooks::at(HookPoint::kBeforeWake);
    while (RwsemWaiter* w = waiters_.front()) {
      const bool last = w->wants_write;
      if (last && (count_ & kReadMask)) break;
      count_ -= retire_of(*w);
      waiters_.remove(w);
      rwsem_grant(w);
      if (last) break;
    }
  }

  RawSpinlock<Hooks> wait_lock_;
  long count_ = 0;
  RwsemWaitList waiters_;
};

}  // namespace rwstress
