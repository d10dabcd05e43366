// rwsem-xadd: David Howells' XADD rwsem (include/asm-i386/rwsem.h and
// lib/rwsem.c as in his April 2001 rwsem series against Linux 2.4.4-pre6,
// the one the 2001 rwsem benchmark ran as its environments (2) and (3)).
//
// Algorithm: the uncontended paths are one atomic add on a count word; the
// wait list and its spinlock are touched only when the add says "contended".
// The low 16 bits count the active lockers (holders, plus lockers that have
// added their bias and are about to back out); the high half is the negated
// number of writers-or-waiters. A reader that sees a negative result, or a
// writer that did not move the count from 0, takes the slow path: it queues,
// swaps its active bias for a waiting bias, and if nobody is active wakes the
// queue itself. A waker first claims the 0 -> 1 transition of the active
// part (so two wakers never grant at once), then grants the writer at the
// head, or readers, converting each granted waiter's waiting bias into an
// active one before waking anybody.
//
// Count layout (32 bits, as on i386):
//   bits 0..15   active part: ACTIVE_BIAS per active locker
//   bits 16..31  waiting part: WAITING_BIAS per writer holder or waiter
//   0x00000000          idle
//   0x0000000n          n readers, nobody waiting
//   0xffff0001          one writer (ACTIVE_WRITE_BIAS), nobody waiting
//   negative            a writer holds it, or somebody waits
//
// Fairness: task-fair (FIFO), readers at the head granted together.
// The kUnfairWake variant (the 2001 rwsem benchmark's environment (3), "a tweak to make
// rwsem_wake() less fair") grants *every* queued reader whenever the head is
// a reader, overtaking queued writers. The benchmark report does not say what the 2001
// tweak was; this is the variant Linux adopted in 3.10 ("wake all readers
// when first waiter is a reader"), see docs/locks.md.
#pragma once

#include <atomic>
#include <cstdint>

#include "locks/hooks.h"
#include "locks/lock_tuning.h"
#include "locks/raw_spinlock.h"
#include "locks/rwlock/rwsem_waiter.h"

namespace rwstress {

// kForgetDowngradeWake: a planted bug for the tests of rwstress explore's
// downgrade check (downgrade_write wakes nobody); never registered.
template <class Hooks = NoHooks, bool kUnfairWake = false, bool kForgetDowngradeWake = false>
class RwsemXadd {
 public:
  template <class H>
  using WithHooks = RwsemXadd<H, kUnfairWake, kForgetDowngradeWake>;  // the same lock, other hooks
  static constexpr std::int32_t kUnlockedValue = 0x00000000;
  static constexpr std::int32_t kActiveBias = 0x00000001;
  static constexpr std::int32_t kActiveMask = 0x0000ffff;
  static constexpr std::int32_t kWaitingBias = -0x00010000;
  static constexpr std::int32_t kActiveReadBias = kActiveBias;
  static constexpr std::int32_t kActiveWriteBias = kWaitingBias + kActiveBias;

  RwsemXadd() = default;
  // --xadd-wake unfair turns the fair variant into the slightly-unfair one
  // at run time, so one workload can be compared with one knob changed.
  explicit RwsemXadd(const LockTuning& t) noexcept {
    if (t.xadd_unfair_wake) reader_batch_ = ReaderBatch::kAllQueued;
    original_retry_ = t.xadd_original_retry;
  }
  // Whether it is still FIFO under these knobs (the harness then judges
  // starvation as for a task-fair lock; else as for an unfair one).
  static constexpr bool keeps_fairness_with(const LockTuning& t) noexcept {
    return !kUnfairWake && !t.xadd_unfair_wake;
  }

  void down_read() noexcept {
    if (count_.fetch_add(kActiveReadBias, std::memory_order_acquire) + kActiveReadBias < 0)
      down_failed(false, kWaitingBias - kActiveBias);
  }

  bool down_read_trylock() noexcept {
    std::int32_t c = count_.load(std::memory_order_relaxed);
    while (c >= 0) {
      if (count_.compare_exchange_weak(c, c + kActiveReadBias, std::memory_order_acquire,
                                       std::memory_order_relaxed))
        return true;
    }
    return false;
  }

  void up_read() noexcept {
    std::int32_t c = count_.fetch_sub(kActiveReadBias, std::memory_order_release) - kActiveReadBias;
    if (c < 0 && (c & kActiveMask) == 0) wake();
  }

  void down_write() noexcept {
    if (count_.fetch_add(kActiveWriteBias, std::memory_order_acquire) != kUnlockedValue)
      down_failed(true, -kActiveBias);
  }

  bool down_write_trylock() noexcept {
    std::int32_t expected = kUnlockedValue;
    return count_.compare_exchange_strong(expected, kActiveWriteBias, std::memory_order_acquire,
                                          std::memory_order_relaxed);
  }

  void up_write() noexcept {
    std::int32_t c =
        count_.fetch_sub(kActiveWriteBias, std::memory_order_release) - kActiveWriteBias;
    if (c < 0 && (c & kActiveMask) == 0) wake();
  }

  // Turns the held write lock into a read lock, then lets in the readers
  // queued at the head.
  void downgrade_write() noexcept {
    std::int32_t c = count_.fetch_sub(kWaitingBias, std::memory_order_release) - kWaitingBias;
    if (c < 0) {
      SpinGuard guard(wait_lock_);
      if (!kForgetDowngradeWake && !waiters_.empty()) do_wake(true);
    }
  }

  std::int32_t count_for_test() const noexcept { return count_.load(); }

  // The idle check (lock_traits.h, HasIdleCheck): after every thread left.
  const char* not_idle() const noexcept {
    if (count_.load(std::memory_order_relaxed) != kUnlockedValue)
      return "count is not RWSEM_UNLOCKED_VALUE (an active or waiting bias left)";
    if (!waiters_.empty()) return "the wait list is not empty";
    if (wait_lock_.is_locked()) return "wait_lock is held";
    return nullptr;
  }

 private:

  // `adjustment` swaps the active bias this locker added for a waiting bias
  // (a writer's ACTIVE_WRITE_BIAS already holds its waiting bias).
  void down_failed(bool write, std::int32_t adjustment) noexcept {
    RwsemWaiter self(write);
    wait_lock_.lock();
    waiters_.push_back(&self);
    std::int32_t c = count_.fetch_add(adjustment) + adjustment;
    // Nobody active: whoever released did not wake (we were still active),
    // so the queue, maybe us, must be woken from here.
    if ((c & kActiveMask) == 0) do_wake(false);
    wait_lock_.unlock();
    Hooks::at(HookPoint::kAfterEnqueue);
    rwsem_wait_for_grant<Hooks>(self);
  }

  void wake() noexcept {
    SpinGuard guard(wait_lock_);
    if (!waiters_.empty()) do_wake(false);
  }

  // Called with wait_lock_ held and waiters queued. A downgrading caller
  // holds a read lock already and grants readers only.
  void do_wake(bool downgrading) noexcept {
    if (!downgrading && !claim_wake()) return;
    GrantBatch batch = rwsem_take_grant_batch(waiters_, reader_batch_, downgrading);
    if (batch.readers > 0) {
      // Each granted reader trades its waiting bias for an active bias; the
      // active bias claim_wake() added stands for the first of them.
      std::int32_t adjust = batch.readers * (kActiveBias - kWaitingBias);
      if (!downgrading) adjust -= kActiveBias;
      count_.fetch_add(adjust);
    }
    // A granted writer keeps its waiting bias and takes the claimed active
    // bias: together ACTIVE_WRITE_BIAS.
    Hooks::at(HookPoint::kBeforeWake);
    rwsem_grant_batch(batch);
  }

  // Takes the active part from 0 to 1 so that only one waker grants. If
  // someone is active, backs out: their release will wake. If they released
  // while our bias was up, they skipped the wake, so try again. 2.4.4 tried
  // again only if the whole count was 0 after backing out, which it never
  // is with waiters queued (their waiting bias is in it): with
  // original_retry_ the queue is stranded, no holder and nobody woken, until
  // the next locker arrives (the mid-release hook point sits in that window).
  bool claim_wake() noexcept {
    for (;;) {
      if ((count_.fetch_add(kActiveBias) & kActiveMask) == 0) return true;
      Hooks::at(HookPoint::kMidRelease);
      const std::int32_t c = count_.fetch_sub(kActiveBias) - kActiveBias;
      if (original_retry_ ? c != 0 : (c & kActiveMask) != 0) return false;
    }
  }

  Atomic<Hooks, std::int32_t> count_{kUnlockedValue};
  ReaderBatch reader_batch_ = kUnfairWake ? ReaderBatch::kAllQueued : ReaderBatch::kHeadRun;
  bool original_retry_ = false;
  RawSpinlock<Hooks> wait_lock_;
  RwsemWaitList waiters_;
};

template <class Hooks = NoHooks>
using RwsemXaddUnfair = RwsemXadd<Hooks, true>;

}  // namespace rwstress
