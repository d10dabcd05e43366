// LinuxRwsem: the modern Linux rwsem, kernel/locking/rwsem.c as of Linux
// 6.1 (LTS; Waiman Long's rework as it stands since 6.0), without RT-task,
// lockdep and debug paths.
//
// Count word (long):
//   bit 0      RWSEM_WRITER_LOCKED
//   bit 1      RWSEM_FLAG_WAITERS: the wait list is not empty
//   bit 2      RWSEM_FLAG_HANDOFF: the lock belongs to the first waiter next
//   bits 8-62  reader count (RWSEM_READER_BIAS = 1 << 8)
// Fast paths: a reader adds READER_BIAS and is in unless WRITER_LOCKED,
// WAITERS or HANDOFF was set; a writer cmpxchg's 0 -> WRITER_LOCKED.
// Slow paths, as in 6.1:
//   - a writer spins optimistically before queueing, one spinner at a time
//     (the OSQ), on the owner while a writer holds and for a bounded time
//     while readers hold (rwsem_rspin_threshold: 0.5 us per reader + 0.5);
//   - a reader whose bias went in while no writer holds, no hand-off is
//     pending and no other reader holds keeps the lock even past queued
//     writers (reader lock stealing, tuning.reader_steal), and wakes the
//     readers queued behind;
//   - a newcomer that queues wakes whom the count allows
//     (rwsem_cond_wake_waiter): with no writer holding, the readers at the
//     front join the readers that hold, or the front is woken if nobody
//     holds;
//   - a release that finds WAITERS wakes the front: a writer to retry, or
//     every queued reader (up to 256) granted at once;
//   - a waiter that has waited longer than tuning.handoff_after_us sets
//     HANDOFF (tuning.handoff), always on behalf of the first waiter
//     (handoff_set); only that waiter may then take the lock, and it spins
//     on the owner instead of sleeping until it does;
//   - downgrade_write turns the write hold into a read hold and wakes the
//     queued readers.
// One deviation: the kernel spins on a writer owner while owner->on_cpu,
// which userspace cannot see; here the spinner gives up after
// tuning.spin_limit turns with the same owner (--spin-limit), as it does
// when the owner is preempted.
// Fairness: hand-off (stealing, with every wait bounded) while hand-off is
// on; --rwsem-handoff off makes it unfair.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

#include "locks/hooks.h"
#include "locks/lock_tuning.h"
#include "locks/raw_spinlock.h"
#include "locks/rwlock/rwsem_waiter.h"
#include "locks/spin_bound.h"
#include "platform/cpu_relax.h"

namespace rwstress {

struct LinuxRwsemWaiter : RwsemWaiter {
  using RwsemWaiter::RwsemWaiter;
  std::chrono::steady_clock::time_point timeout;
  bool handoff_set = false;
  int tid = lock_thread_id();  // handoff_waiter() names it
};

// The busted zoo's variants of this lock (busted_rwlocks.h).
enum class LinuxRwsemBug : unsigned char {
  kNone,
  kBrokenSteal,        // busted-rwsem-handoff
  kLeakOsq,            // busted-rwsem-osq-leak
  kEndlessReaderSpin,  // busted-rwsem-endless-rspin
  kKeepsHandoff,       // busted-rwsem-handoff-kept
};

template <class Hooks = NoHooks, LinuxRwsemBug kBug = LinuxRwsemBug::kNone>
class LinuxRwsem {
 public:
  template <class H>
  using WithHooks = LinuxRwsem<H, kBug>;  // the same lock over other hooks
  static constexpr long kWriterLocked = 1L << 0;
  static constexpr long kWaiters = 1L << 1;
  static constexpr long kHandoff = 1L << 2;
  static constexpr long kReaderBias = 1L << 8;
  static constexpr long kReaderMask = ~(kReaderBias - 1);
  static constexpr long kLockMask = kWriterLocked | kReaderMask;
  static constexpr long kReadFailedMask = kWriterLocked | kWaiters | kHandoff;
  static constexpr int kMaxReadersWakeup = 256;
  static constexpr bool kAsksNeedResched = true;  // its spinners, as the kernel's (explore --ticks)
  static constexpr bool kReadsClock = true;  // the hand-off's wait, the reader spin's deadline

  LinuxRwsem() = default;
  explicit LinuxRwsem(const LockTuning& t) : tuning_(t) {}
  // Whether the hand-off class still holds under these knobs (else the
  // harness judges it as an unfair lock).
  static constexpr bool keeps_fairness_with(const LockTuning& t) noexcept { return t.handoff != 0; }

  void down_read() noexcept {
    long c = count_.fetch_add(kReaderBias, std::memory_order_acquire);
    if (!(c & kReadFailedMask)) return;
    read_slowpath(c + kReaderBias);
  }

  bool down_read_trylock() noexcept {
    long c = count_.load(std::memory_order_relaxed);
    while (!(c & kReadFailedMask))
      if (count_.compare_exchange_weak(c, c + kReaderBias, std::memory_order_acquire,
                                       std::memory_order_relaxed))
        return true;
    return false;
  }

  void up_read() noexcept {
    long c = count_.fetch_sub(kReaderBias, std::memory_order_release) - kReaderBias;
    if ((c & (kLockMask | kWaiters)) == kWaiters) wake(WakeType::kAny);
  }

  void down_write() noexcept {
    long expected = 0;
    if (!count_.compare_exchange_strong(expected, kWriterLocked, std::memory_order_acquire,
                                        std::memory_order_relaxed))
      write_slowpath();
    owner_.store(self(), std::memory_order_relaxed);
  }

  bool down_write_trylock() noexcept {
    long expected = 0;
    if (!count_.compare_exchange_strong(expected, kWriterLocked, std::memory_order_acquire,
                                        std::memory_order_relaxed))
      return false;
    owner_.store(self(), std::memory_order_relaxed);
    return true;
  }

  void up_write() noexcept {
    owner_.store(nullptr, std::memory_order_relaxed);
    long c = count_.fetch_sub(kWriterLocked, std::memory_order_release);
    if (c & kWaiters) wake(WakeType::kAny);
  }

  void downgrade_write() noexcept {
    owner_.store(nullptr, std::memory_order_relaxed);
    long c = count_.fetch_add(kReaderBias - kWriterLocked, std::memory_order_acq_rel);
    if (c & kWaiters) wake(WakeType::kReadOwned);
  }

  long count_for_test() const noexcept { return count_.load(); }

  // The idle check (lock_traits.h, HasIdleCheck): after every thread left.
  const char* not_idle() const noexcept {
    const long c = count_.load(std::memory_order_relaxed);
    if (c & kHandoff) return "count has HANDOFF set";
    if (c & kWaiters) return "count has WAITERS set with nobody waiting";
    if (c != 0) return "count is not 0 (a reader or writer still counted)";
    if (owner_.load(std::memory_order_relaxed)) return "owner is set";
    if (osq_.load(std::memory_order_relaxed)) return "the OSQ is held (an optimistic spinner never left it)";
    if (!list_.empty()) return "the wait list is not empty";
    if (wait_lock_.is_locked()) return "wait_lock is held";
    return nullptr;
  }

  // Whom it owes the lock (lock_traits.h, ReportsHandoffWaiter): with
  // HANDOFF set for the first waiter (its handoff_set), that waiter's
  // thread id; read raw, between two steps of an explore schedule.
  bool reports_handoff() const noexcept { return true; }
  int handoff_waiter() const noexcept {
    if (!(lock_word_peek(count_) & kHandoff)) return 0;
    const auto* first = static_cast<const LinuxRwsemWaiter*>(list_.front());
    return first && first->handoff_set ? first->tid : 0;
  }

 private:
  enum class WakeType { kAny, kReaders, kReadOwned };

  // Readers to grant, collected under wait_lock and granted after it (a
  // granted reader is off the list and waits for its word, so its record
  // lives until the grant). A writer is only woken to retry: it may take
  // the lock and return before we get to it, so its word is cleared under
  // wait_lock and only the futex address is kept for after.
  struct WakeList {
    RwsemWaiter* readers[kMaxReadersWakeup];
    int n = 0;
    controlled::Atomic<std::uint32_t>* writer_word = nullptr;
    void add(RwsemWaiter* w) noexcept { readers[n++] = w; }
    void wake_writer(RwsemWaiter* w) noexcept {
      w->waiting.store(0, std::memory_order_release);
      writer_word = &w->waiting;
    }
    void grant_all() noexcept {
      if (n || writer_word) Hooks::at(HookPoint::kBeforeWake);
      rwsem_grant_all(readers, n);  // remote CPUs first: see rwsem_grant_batch()
      if (writer_word) futex_wake(*writer_word);
      n = 0;
      writer_word = nullptr;
    }
  };

  static const void* self() noexcept {
    static thread_local char token;
    return &token;
  }

  void wake(WakeType type) noexcept {
    WakeList wl;
    wait_lock_.lock();
    if (!list_.empty()) mark_wake(type, wl);
    wait_lock_.unlock();
    wl.grant_all();
  }

  // rwsem_mark_wake(): under wait_lock. A writer at the front is only woken
  // (it takes the lock itself); readers at the front are granted, every
  // queued reader with them, and their bias added here.
  void mark_wake(WakeType type, WakeList& wl) noexcept {
    auto* first = static_cast<LinuxRwsemWaiter*>(list_.front());
    if (first->wants_write) {
      if (type == WakeType::kAny) wl.wake_writer(first);
      return;
    }
    long adjustment = 0;
    if (type != WakeType::kReadOwned) {
      adjustment = kReaderBias;
      long old = count_.fetch_add(adjustment, std::memory_order_acquire);
      if (old & kWriterLocked) {
        // A writer stole the lock. A reader that has waited too long asks
        // for the hand-off.
        if (tuning_.handoff && lock_clock_now<Hooks>() > first->timeout) {
          if (!(old & kHandoff)) adjustment -= kHandoff;
          first->handoff_set = true;
        }
        count_.fetch_sub(adjustment, std::memory_order_relaxed);
        return;
      }
    }
    int woken = 0;
    for (RwsemWaiter* w = list_.front(); w && woken < kMaxReadersWakeup;) {
      RwsemWaiter* next = list_.next_of(w);
      if (!w->wants_write) {
        list_.remove(w);
        wl.add(w);
        ++woken;
      }
      w = next;
    }
    long add = long(woken) * kReaderBias - adjustment;
    long now = count_.load(std::memory_order_relaxed);
    if (list_.empty()) add -= kWaiters;
    if (woken && (now & kHandoff)) add -= kHandoff;
    count_.fetch_add(add, std::memory_order_relaxed);
  }

  // rwsem_cond_wake_waiter() (6.0+): under wait_lock, after a newcomer
  // queued. With no writer holding, the readers at the front may join the
  // readers that hold; with nobody holding, the front is woken.
  void cond_wake_waiter(long c, WakeList& wl) noexcept {
    if (c & kWriterLocked) return;
    mark_wake((c & kReaderMask) ? WakeType::kReaders : WakeType::kAny, wl);
  }

  void read_slowpath(long c) noexcept {
    // Reader lock stealing: our bias is in and no writer holds or is owed
    // the lock, so we hold it; we then wake the queued readers, who may
    // share it. As in the kernel, no stealing from other readers (count of
    // readers > 1): a constant stream of readers would keep a sleeping
    // writer from ever being woken to ask for the hand-off.
    const bool may_steal = kBug == LinuxRwsemBug::kBrokenSteal
                               ? !(c & kWriterLocked)
                               : !(c & (kWriterLocked | kHandoff)) &&
                                     (c & kReaderMask) == kReaderBias;
    if (tuning_.reader_steal && may_steal) {
      if (c & kWaiters) wake(WakeType::kReadOwned);
      return;
    }
    LinuxRwsemWaiter w(false);
    w.timeout = lock_clock_now<Hooks>() +
                std::chrono::microseconds(tuning_.handoff_after_us);
    long adjustment = -kReaderBias;
    WakeList wl;
    wait_lock_.lock();
    if (list_.empty()) {
      // Nobody queued and no writer: our bias already holds the lock.
      if (!(count_.load(std::memory_order_acquire) & kWriterLocked)) {
        wait_lock_.unlock();
        return;
      }
      adjustment += kWaiters;
    }
    list_.push_back(&w);
    Hooks::at(HookPoint::kAfterEnqueue);
    c = count_.fetch_add(adjustment, std::memory_order_acq_rel) + adjustment;
    cond_wake_waiter(c, wl);
    wait_lock_.unlock();
    wl.grant_all();
    rwsem_wait_for_grant<Hooks>(w);
  }

  // rwsem_try_write_lock() as of 6.1: under wait_lock. While HANDOFF is
  // set, only the first waiter may take the lock if it is the one the bit
  // was set for; any waiter that has waited too long may set the bit, but
  // always on behalf of the first waiter.
  bool try_write_lock(LinuxRwsemWaiter& w) noexcept {
    auto* first = static_cast<LinuxRwsemWaiter*>(list_.front());
    long c = count_.load(std::memory_order_relaxed), next;
    do {
      const bool has_handoff = c & kHandoff;
      if (has_handoff && first->handoff_set && &w != first) return false;
      next = c;
      if (c & kLockMask) {
        if (has_handoff || !tuning_.handoff || lock_clock_now<Hooks>() < w.timeout)
          return false;
        next |= kHandoff;
      } else {
        next |= kWriterLocked;
        if constexpr (kBug != LinuxRwsemBug::kKeepsHandoff) next &= ~kHandoff;
        if (first == &w && !list_.next_of(&w)) next &= ~kWaiters;
      }
    } while (!count_.compare_exchange_weak(c, next, std::memory_order_acquire,
                                           std::memory_order_relaxed));
    if (next & kHandoff) {
      first->handoff_set = true;
      return false;
    }
    list_.remove(&w);
    return true;
  }

  // rwsem_try_write_lock_unqueued().
  bool try_write_lock_unqueued() noexcept {
    long c = count_.load(std::memory_order_relaxed);
    while (!(c & (kLockMask | kHandoff)))
      if (count_.compare_exchange_weak(c, c | kWriterLocked, std::memory_order_acquire,
                                       std::memory_order_relaxed))
        return true;
    return false;
  }

  // rwsem_optimistic_spin(). One spinner at a time works the count (the
  // OSQ); a would-be spinner waits for its turn as long as the spinner
  // ahead of it could spin, then queues, as osq_lock() gives up on
  // need_resched. The spinner spins on a writer owner until the owner
  // changes (or spin_limit turns, standing in for owner->on_cpu), and on
  // readers until rwsem_rspin_threshold() (0.5 us per reader, + 0.5 us,
  // at most 31 readers). Each of those bounds is stated to the judge as it
  // spins (SpinBound, docs/checkers.md "spin-bound").
  bool optimistic_spin() noexcept {
    if (tuning_.spin_limit <= 0) return false;
    SpinBound<Hooks> bound;
    bound.turns(tuning_.spin_limit, &osq_, "linux-rwsem waiting for the OSQ");
    for (int turn = 0; osq_.exchange(true, std::memory_order_acquire); ++turn) {
      if (turn >= tuning_.spin_limit || spinner_told_to_stop<Hooks>()) return false;
      bound.turn();
    }
    bool taken = false;
    const void* owner = nullptr;
    int same_owner = 0;
    bool reader_phase = false;
    std::chrono::steady_clock::time_point reader_deadline;
    // need_resched() ends the kernel's spin when the owners keep changing;
    // here a bound on all turns does (and under control a tick may).
    const long most_turns = 8L * tuning_.spin_limit;
    for (long turn = 0; turn < most_turns && !spinner_told_to_stop<Hooks>(); ++turn) {
      if (try_write_lock_unqueued()) {
        taken = true;
        // The busted zoo's busted-rwsem-osq-leak: the OSQ stays held.
        if constexpr (kBug == LinuxRwsemBug::kLeakOsq) return true;
        break;
      }
      const long c = count_.load(std::memory_order_relaxed);
      if (c & kHandoff) break;  // the lock is owed to the first waiter
      if (c & kWriterLocked) {
        reader_phase = false;
        const void* now_owner = owner_.load(std::memory_order_relaxed);
        same_owner = now_owner == owner ? same_owner + 1 : 0;
        owner = now_owner;
        bound.turns(tuning_.spin_limit, now_owner, "linux-rwsem spinning on one writer owner");
        if (same_owner >= tuning_.spin_limit) break;  // owner->on_cpu, as far as we can tell
      } else if (c & kReaderMask) {
        const auto now = lock_clock_now<Hooks>();
        if (!reader_phase) {
          const long readers = std::min<long>((c & kReaderMask) / kReaderBias, 30);
          reader_deadline = now + std::chrono::nanoseconds((readers + 1) * 500);
          reader_phase = true;
        } else if (kBug != LinuxRwsemBug::kEndlessReaderSpin && now > reader_deadline) {
          break;
        }
        bound.until(reader_deadline, "linux-rwsem spinning on a reader-owned lock");
      } else {
        bound.clear();  // free: the next look takes it or finds an owner
      }
      bound.turn();
    }
    osq_.store(false, std::memory_order_release);
    return taken;
  }

  // The first waiter, once HANDOFF is set for it, spins until the holder
  // releases instead of sleeping (6.1's rwsem_spin_on_owner() in the wait
  // loop). True if the lock was seen free: retry at once.
  bool handoff_spin() noexcept {
    SpinBound<Hooks> bound;
    bound.turns(tuning_.spin_limit, this, "linux-rwsem's first waiter spinning for its hand-off");
    for (int i = 0; i < tuning_.spin_limit && !spinner_told_to_stop<Hooks>(); ++i) {
      if (!(count_.load(std::memory_order_relaxed) & kLockMask)) return true;
      bound.turn();
    }
    return false;
  }

  void write_slowpath() noexcept {
    if (optimistic_spin()) return;
    LinuxRwsemWaiter w(true);
    w.timeout = lock_clock_now<Hooks>() +
                std::chrono::microseconds(tuning_.handoff_after_us);
    WakeList wl;
    wait_lock_.lock();
    const bool was_empty = list_.empty();
    list_.push_back(&w);
    Hooks::at(HookPoint::kAfterEnqueue);
    if (was_empty) {
      count_.fetch_or(kWaiters, std::memory_order_relaxed);
    } else {
      // Not first: whoever the count allows goes ahead of us.
      cond_wake_waiter(count_.load(std::memory_order_relaxed), wl);
    }
    for (;;) {
      if (try_write_lock(w)) break;
      w.waiting.store(1, std::memory_order_relaxed);  // armed before wait_lock drops
      const bool owed = w.handoff_set;  // written under wait_lock by whoever set HANDOFF
      wait_lock_.unlock();
      wl.grant_all();
      if (!(owed && handoff_spin())) rwsem_wait_for_grant<Hooks>(w);  // here: until woken
      wait_lock_.lock();
    }
    wait_lock_.unlock();
    wl.grant_all();
  }

  Atomic<Hooks, long> count_{0};
  Atomic<Hooks, const void*> owner_{nullptr};
  Atomic<Hooks, bool> osq_{false};  // a writer is spinning optimistically
  LockTuning tuning_;
  RawSpinlock<Hooks> wait_lock_;
  RwsemWaitList list_;
};

}  // namespace rwstress
