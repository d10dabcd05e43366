// The busted zoo, mutex and semaphore part (see busted_rwlocks.h).
#pragma once

#include <atomic>
#include <cstdint>

#include "locks/futex.h"
#include "locks/hooks.h"
#include "locks/raw_spinlock.h"
#include "locks/rwlock/rwsem_waiter.h"
#include "locks/semaphore/kernel_semaphore.h"
#include "locks/spin_wait.h"

namespace rwstress {

// busted-racy-tas: test-and-set done as a load and a store: two threads
// both see 0 and both store 1.
template <class Hooks = NoHooks>
class BustedRacyTas {
 public:
  template <class H>
  using WithHooks = BustedRacyTas<H>;  // the same lock over other hooks
  static constexpr bool kSpins = true;
  void lock() noexcept {
    spin_until<Hooks>([&] {
      if (locked_.load(std::memory_order_acquire)) return false;
      locked_.store(1, std::memory_order_relaxed);
      return true;
    });
  }
  void unlock() noexcept { locked_.store(0, std::memory_order_release); }

 private:
  Atomic<Hooks, std::uint32_t> locked_{0};
};

// busted-relaxed-unlock: a test-and-set lock whose unlock is a relaxed
// store, a missing RELEASE: the next holder may see the data as it was
// before the last hold. x86 orders every store as a release, so no timed
// run can show it; `explore --memory c11` does (the ordering check).
template <class Hooks = NoHooks>
class BustedRelaxedUnlock {
 public:
  template <class H>
  using WithHooks = BustedRelaxedUnlock<H>;  // the same lock over other hooks
  static constexpr bool kSpins = true;
  void lock() noexcept {
    spin_until<Hooks>([&] { return locked_.exchange(1, std::memory_order_acquire) == 0; });
  }
  bool trylock() noexcept { return locked_.exchange(1, std::memory_order_acquire) == 0; }
  void unlock() noexcept { locked_.store(0, std::memory_order_relaxed); }

 private:
  Atomic<Hooks, std::uint32_t> locked_{0};
};

// busted-lying-trylock: trylock reports success whether or not it got the
// lock (the inverted return value of the kernel's down_trylock, which
// returns 0 on success, is the classic way to write this).
template <class Hooks = NoHooks>
class BustedLyingTrylock {
 public:
  template <class H>
  using WithHooks = BustedLyingTrylock<H>;  // the same lock over other hooks
  static constexpr bool kSpins = true;
  void lock() noexcept { l_.lock(); }
  bool trylock() noexcept {
    l_.trylock();
    return true;
  }
  void unlock() noexcept { l_.unlock(); }

 private:
  RawSpinlock<Hooks> l_;
};

// busted-ticket-wrap: a ticket lock whose tickets are two bits wide. With
// more than four threads waiting, two hold the same ticket and enter
// together (Linux x86 used 8-bit tickets, valid only below 256 CPUs).
template <class Hooks = NoHooks>
class BustedTicketWrap {
 public:
  template <class H>
  using WithHooks = BustedTicketWrap<H>;  // the same lock over other hooks
  static constexpr bool kSpins = true;
  void lock() noexcept {
    const std::uint32_t ticket = next_.fetch_add(1, std::memory_order_relaxed) & kMask;
    spin_until<Hooks>([&] { return (owner_.load(std::memory_order_acquire) & kMask) == ticket; });
  }
  void unlock() noexcept {
    owner_.store((owner_.load(std::memory_order_relaxed) + 1) & kMask, std::memory_order_release);
  }

 private:
  static constexpr std::uint32_t kMask = 0x3;
  Atomic<Hooks, std::uint32_t> next_{0};
  Atomic<Hooks, std::uint32_t> owner_{0};
};

// busted-early-release: the unlock becomes visible before the critical
// section's last stores -- a release written without release ordering
// (WRITE_ONCE for smp_store_release) on a weakly ordered CPU. x86 keeps
// stores in order, so the lock emulates the reordering: a waiter that has
// watched the same holder for kVisibleAfter turns (about half a
// millisecond) treats the lock as released, as if the holder's unlock store
// had overtaken its stores. Only a holder that is slow inside its critical
// section -- preempted, or put to sleep there by `--inject sleep@in-cs` --
// opens the window.
template <class Hooks = NoHooks>
class BustedEarlyRelease {
 public:
  template <class H>
  using WithHooks = BustedEarlyRelease<H>;  // the same lock over other hooks
  static constexpr bool kSpins = true;
  // The one lock whose builds perform different operations (run/op_sequence.h):
  static constexpr const char* kBuildsDiffer =
      "the unlock's compare-exchange is release in the ordinary build, which emulates the "
      "reordering by turns, and relaxed under explore, where the memory model makes it";
  void lock() noexcept {
    std::uint32_t seen = word_.load(std::memory_order_relaxed), same = 0;
    for (;;) {
      if (!(seen & 1) && word_.compare_exchange_weak(seen, seen + 1, std::memory_order_acquire))
        return;
      std::uint32_t now = word_.load(std::memory_order_relaxed);
      same = now == seen ? same + 1 : 0;
      seen = now;
      if (same >= kVisibleAfter && word_.compare_exchange_weak(seen, seen + 2,
                                                               std::memory_order_acquire))
        return;  // "saw" the release that has not happened yet
      Hooks::at(HookPoint::kSpinIteration);
      cpu_relax();
    }
  }
  void unlock() noexcept {
    std::uint32_t c = word_.load(std::memory_order_relaxed);
    // Clear the held bit if it is still ours to clear; a thief keeps it set.
    while (!word_.compare_exchange_weak(c, (c | 1) + 1, kUnlockOrder)) {
    }
  }

 private:
  // Under explore the reordering this lock emulates is the memory model's
  // to make: there the release is written without release ordering, as
  // the bug it stands for is (explore --memory c11 finds it). The
  // emulation by turns cannot fire there: a spinner turns only while
  // every other thread spins, never while the holder works inside.
  static constexpr std::memory_order kUnlockOrder =
      kControlled<Hooks> ? std::memory_order_relaxed : std::memory_order_release;
  static constexpr std::uint32_t kVisibleAfter = 1u << 14;
  Atomic<Hooks, std::uint32_t> word_{0};  // bit 0: held; the rest counts hand-overs
};

// A FIFO sleeping mutex in the style of the kernel semaphore's slow path,
// with one of two waiter bugs:
//   kLostWakeup: the waiter checks its grant, then re-arms its wake word and
//     sleeps. A grant landing between the check and the re-arm is lost: the
//     waiter sleeps forever (HANG). The window is a few instructions wide.
//   kSpuriousGrant: the waiter sleeps once and takes any return from
//     futex_wait as the grant. futex(2) returns on signals and spuriously,
//     so the waiter walks in while another thread holds the lock (FAIL).
enum class WaiterBug { kLostWakeup, kSpuriousGrant };

template <WaiterBug kBug, class Hooks = NoHooks>
class BustedSleepingMutex {
 public:
  template <class H>
  using WithHooks = BustedSleepingMutex<kBug, H>;  // the same lock over other hooks
  void lock() noexcept {
    lock_.lock();
    if (!held_) {
      held_ = true;
      lock_.unlock();
      return;
    }
    // One waiter record per thread, not on the stack: the spurious-grant
    // waiter leaves before its waker is done with the record.
    static thread_local Waiter w;
    w.node.waiting.store(1, std::memory_order_relaxed);
    w.granted.store(false, std::memory_order_relaxed);
    list_.push_back(&w.node);
    lock_.unlock();
    Hooks::at(HookPoint::kAfterEnqueue);
    if constexpr (kBug == WaiterBug::kLostWakeup) {
      while (!w.granted.load(std::memory_order_acquire)) {
        Hooks::at(HookPoint::kBeforeSleep);
        w.node.waiting.store(1, std::memory_order_relaxed);  // bug: re-armed after the check
        futex_wait<Hooks>(w.node.waiting, 1);
        Hooks::at(HookPoint::kAfterWake);
      }
    } else {
      Hooks::at(HookPoint::kBeforeSleep);
      futex_wait<Hooks>(w.node.waiting, 1);  // bug: any return is "granted"
      Hooks::at(HookPoint::kAfterWake);
    }
  }

  void unlock() noexcept {
    lock_.lock();
    RwsemWaiter* next = list_.front();
    if (!next) {
      held_ = false;
      lock_.unlock();
      return;
    }
    list_.remove(next);  // ownership passes to it: held_ stays true
    lock_.unlock();
    auto* w = reinterpret_cast<Waiter*>(next);
    Hooks::at(HookPoint::kBeforeWake);
    next->waiting.store(0, std::memory_order_release);
    w->granted.store(true, std::memory_order_release);
    futex_wake(next->waiting);
  }

 private:
  struct Waiter {
    RwsemWaiter node{true};  // first: the list holds &node
    Atomic<Hooks, bool> granted{false};
  };

  RawSpinlock<Hooks> lock_;
  bool held_ = false;  // under lock_
  RwsemWaitList list_;
};

// busted-sem-double-up: the kernel semaphore's up() that hands its unit to
// the first waiter *and* raises the count, so one more thread than the
// count gets in. Everything else is KernelSemaphore's. Its own WithHooks:
// inheriting the base's made every --inject run test the correct semaphore
// (the fuzzer found it: 0 of 22 trials caught it, all with an injector).
template <class Hooks = NoHooks>
class BustedSemDoubleUp : public KernelSemaphore<Hooks> {
 public:
  template <class H>
  using WithHooks = BustedSemDoubleUp<H>;  // the same lock over other hooks
  using KernelSemaphore<Hooks>::KernelSemaphore;

  void up() noexcept {
    this->lock_.lock();
    RwsemWaiter* w = this->list_.front();
    ++this->count_;  // bug: also done when the unit goes to a waiter below
    if (w) {
      this->list_.remove(w);
      w->next = nullptr;
    }
    this->lock_.unlock();
    if (w) rwsem_grant(w);
  }
};

// busted-sem-late-timeout: the kernel semaphore's down_timeout that, when
// its timeout runs out just as up() hands it the unit (up() has taken it
// off the list but not yet granted it), reports a timeout: the unit it was
// handed is lost, and one holder fewer than the count can ever get in.
// Everything else is KernelSemaphore's (kernel_semaphore.h, kLateGrantLost).
template <class Hooks = NoHooks>
using BustedSemLateTimeout = KernelSemaphore<Hooks, true>;

}  // namespace rwstress
