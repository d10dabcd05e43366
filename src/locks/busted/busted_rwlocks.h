// The busted zoo, rwlock part: each lock is a correct design with one real
// bug class put back in. docs/locks.md cites the class and a historic
// instance for each; `rwstress selftest` shows each is caught.
#pragma once

#include <atomic>
#include <cstdint>

#include "locks/futex.h"
#include "locks/hooks.h"
#include "locks/rwlock/fair_rwlocks.h"
#include "locks/rwlock/pref_rwlocks.h"
#include "locks/rwlock/rwsem_linux.h"
#include "locks/spin_wait.h"

namespace rwstress {

// The correct design the spinning bugs below start from: a
// reader-preference word lock (kWriter bit, readers count in units of
// kReader), as ReaderPrefRwlock. Each busted lock hides one of these
// operations behind its own broken version.
template <class Hooks>
class BustedWordBase {
 public:
  static constexpr bool kSpins = true;
  static constexpr std::uint32_t kWriter = 1;
  static constexpr std::uint32_t kReader = 2;

  void down_read() noexcept {
    std::uint32_t c = word_.fetch_add(kReader, std::memory_order_acquire);
    if (c & kWriter) wait_no_writer();
  }
  bool down_read_trylock() noexcept {
    std::uint32_t c = word_.load(std::memory_order_relaxed);
    return !(c & kWriter) &&
           word_.compare_exchange_strong(c, c + kReader, std::memory_order_acquire);
  }
  void up_read() noexcept { word_.fetch_sub(kReader, std::memory_order_release); }
  void down_write() noexcept {
    spin_until<Hooks>([&] { return down_write_trylock(); });
  }
  bool down_write_trylock() noexcept {
    std::uint32_t expected = 0;
    return word_.compare_exchange_strong(expected, kWriter, std::memory_order_acquire);
  }
  void up_write() noexcept { word_.fetch_and(~kWriter, std::memory_order_release); }

 protected:
  void wait_no_writer() noexcept {
    spin_until<Hooks>([&] { return !(word_.load(std::memory_order_acquire) & kWriter); });
  }
  Atomic<Hooks, std::uint32_t> word_{0};
};

// busted-reader-in-writer: down_read counts itself but never waits for a
// writer that holds the lock (the missing "while (cnt & WRITER) spin").
template <class Hooks = NoHooks>
class BustedReaderInWriter : public BustedWordBase<Hooks> {
 public:
  template <class H>
  using WithHooks = BustedReaderInWriter<H>;  // the same lock over other hooks
  using Base = BustedWordBase<Hooks>;
  using Base::kReader;
  using Base::kWriter;
  void down_read() noexcept { this->word_.fetch_add(kReader, std::memory_order_acquire); }
};

// busted-writer-in-readers: down_write checks only the writer bit, not the
// reader count (a mask that forgot the readers).
template <class Hooks = NoHooks>
class BustedWriterInReaders : public BustedWordBase<Hooks> {
 public:
  template <class H>
  using WithHooks = BustedWriterInReaders<H>;  // the same lock over other hooks
  using Base = BustedWordBase<Hooks>;
  using Base::kReader;
  using Base::kWriter;
  void down_write() noexcept {
    spin_until<Hooks>(
        [&] { return !(this->word_.fetch_or(kWriter, std::memory_order_acquire) & kWriter); });
  }
};

// busted-racy-readers: the reader count is updated with a load and a store
// instead of one atomic read-modify-write ("count++" on a plain int):
// concurrent readers lose updates, so the count reads 0 with a reader
// inside (a writer gets in), or never returns to 0 (writers starve).
template <class Hooks = NoHooks>
class BustedRacyReaders : public BustedWordBase<Hooks> {
 public:
  template <class H>
  using WithHooks = BustedRacyReaders<H>;  // the same lock over other hooks
  using Base = BustedWordBase<Hooks>;
  using Base::kReader;
  using Base::kWriter;
  void down_read() noexcept {
    this->wait_no_writer();
    this->word_.store(this->word_.load(std::memory_order_relaxed) + kReader, std::memory_order_relaxed);
  }
  void up_read() noexcept {
    this->word_.store(this->word_.load(std::memory_order_relaxed) - kReader, std::memory_order_release);
  }
};

// busted-downgrade: downgrade_write clears the writer bit without counting
// the caller as a reader, so a writer can get in while the downgraded
// thread still reads.
template <class Hooks = NoHooks>
class BustedDowngrade : public BustedWordBase<Hooks> {
 public:
  template <class H>
  using WithHooks = BustedDowngrade<H>;  // the same lock over other hooks
  using Base = BustedWordBase<Hooks>;
  using Base::kReader;
  using Base::kWriter;
  void up_read() noexcept {
    if (downgraded_) {
      downgraded_ = false;  // nothing was counted for us
      return;
    }
    Base::up_read();
  }
  void downgrade_write() noexcept {
    downgraded_ = true;
    this->word_.fetch_and(~kWriter, std::memory_order_release);  // bug: no + kReader
  }

 private:
  static inline thread_local bool downgraded_ = false;
};

// busted-unfair-claims-fair: a sleeping reader-preference lock that
// declares itself task-fair. Exclusion is correct; the claim is the bug: a
// stream of overlapping readers keeps the count above zero and the writer
// asleep, which must come out STARVED, not PASS. (It sleeps rather than
// spins so that the verdict stands on an oversubscribed machine, where a
// spinning lock's fairness is not judged.)
template <class Hooks = NoHooks>
class BustedUnfairClaimsFair {
 public:
  template <class H>
  using WithHooks = BustedUnfairClaimsFair<H>;  // the same lock over other hooks
  using Word = BustedWordBase<Hooks>;
  void down_read() noexcept {
    std::uint32_t c = word_.fetch_add(Word::kReader, std::memory_order_acquire);
    if (c & Word::kWriter)  // keep our count: readers go first when it drops
      wait_until([&] { return !(word_.load(std::memory_order_acquire) & Word::kWriter); });
  }
  void up_read() noexcept {
    if (word_.fetch_sub(Word::kReader, std::memory_order_release) ==
        Word::kReader)
      wake_all();
  }
  void down_write() noexcept {
    wait_until([&] {
      std::uint32_t expected = 0;
      return word_.compare_exchange_strong(expected, Word::kWriter,
                                           std::memory_order_acquire);
    });
  }
  void up_write() noexcept {
    word_.fetch_and(~Word::kWriter, std::memory_order_release);
    wake_all();
  }

 private:
  template <class Ready>
  void wait_until(Ready ready) noexcept {
    for (;;) {
      const std::uint32_t seq = wake_seq_.load(std::memory_order_acquire);
      if (ready()) return;
      futex_wait<Hooks>(wake_seq_, seq);
    }
  }
  void wake_all() noexcept {
    wake_seq_.fetch_add(1, std::memory_order_release);
    futex_wake_all(wake_seq_);
  }

  Atomic<Hooks, std::uint32_t> word_{0};
  Atomic<Hooks, std::uint32_t> wake_seq_{0};
};

// busted-rwsem-handoff: linux-rwsem whose reader lock stealing lets a
// reader in whenever no writer holds the lock: past a waiter that holds
// HANDOFF, and past other readers (the kernel steals only as the sole
// reader, and never under HANDOFF). A stream of overlapping readers then
// keeps the count above zero for as long as it lasts, and a queued writer
// waits through it: the starvation the hand-off bit exists to end (the
// kernel's "locking/rwsem: Prevent potential lock starvation", 2019, fixed
// reader optimistic spinning that did the same). Safe, and unfair only in
// waiting: a hand-off lock's bounded-wait judgment is what catches it.
template <class Hooks = NoHooks>
using BustedRwsemHandoff = LinuxRwsem<Hooks, LinuxRwsemBug::kBrokenSteal>;

// busted-rwsem-osq-leak: linux-rwsem whose optimistic spinner, when it
// wins the lock, returns without leaving the OSQ. Every later writer then
// finds the queue taken, gives up spinning and sleeps: the lock stays safe
// and live, a little slower, and no exclusion, liveness or fairness check
// can see it. Only the idle check does: after every thread has left, the
// OSQ is still held (`not-idle`). The shape of the OSQ unqueue bugs
// (osq_lock.c's, and a spinner's early return that skips osq_unlock()).
template <class Hooks = NoHooks>
using BustedRwsemOsqLeak = LinuxRwsem<Hooks, LinuxRwsemBug::kLeakOsq>;

// busted-rwsem-endless-rspin: linux-rwsem whose optimistic spinner, on a
// reader-owned lock, never looks at its deadline (rwsem_rspin_threshold()):
// it spins until the readers leave, or its bound on all turns ends it. A
// reader cannot be preempted out of the kernel's way, so in the kernel the
// writer burns its CPU for as long as the readers hold; here it blocks
// nobody, gets in when they leave, and every exclusion, liveness and
// fairness check passes it. The spin-bound judge does not: it still states
// its deadline, and its second turn past it is the violation.
template <class Hooks = NoHooks>
using BustedRwsemEndlessRspin = LinuxRwsem<Hooks, LinuxRwsemBug::kEndlessReaderSpin>;

// busted-rwsem-handoff-kept: linux-rwsem whose writer, taking the lock in
// try_write_lock(), does not clear HANDOFF (the kernel's
// rwsem_try_write_lock() clears it with the same cmpxchg). HANDOFF is set
// only after a waiter waited handoff_after_us (4 ms, RWSEM_WAIT_TIMEOUT):
// timed runs get there, and the bit left behind with nobody to hand to
// keeps every later acquisition out (a HANG); under explore, whose steps
// are a microsecond, only a time jump at the lock's clock read gets there
// (explore --time-jumps).
template <class Hooks = NoHooks>
using BustedRwsemHandoffKept = LinuxRwsem<Hooks, LinuxRwsemBug::kKeepsHandoff>;

// busted-wpref-readers-pass: the writer-preference rwlock whose readers
// look only at a writer holding, not at writers waiting: it admits a
// reader while a writer waits, which writer-preference forbids, and
// behaves reader-preference (a writer among readers that keep overlapping
// waits as long as they come). Safe and live; the preference check under
// explore sees the admission that broke the rule.
template <class Hooks = NoHooks>
using BustedWprefReadersPass = WriterPrefRwlock<Hooks, true>;

// busted-pf-late-writer: the phase-fair PF-T lock whose writer, its turn
// among writers come, first waits for the readers to leave and only then
// sets its bits in rin (and waits for the readers it counts there, as
// PF-T does). Safe: a reader that came in between is waited for. But a
// read phase follows a read phase while it waits, which phase-fair
// forbids: readers that keep overlapping hold it off as long as they
// come (reader-preference in fact). The preference check sees it, timed
// (its spin in its place says it waits) and under explore.
template <class Hooks = NoHooks>
using BustedPfLateWriter = PhaseFairRwlock<Hooks, true>;

}  // namespace rwstress
