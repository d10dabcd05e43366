// Ticket-based fair reader-writer spinlocks.
//
// PhaseFairRwlock: Brandenburg & Anderson's PF-T ("Spin-based
// reader-writer synchronization for multiprocessor real-time systems",
// 2010). Reads and writes alternate in phases: a reader waits for at most
// one write phase, a writer for at most one read phase and the writers
// queued ahead of it. Words: rin / rout count readers in and out in units
// of kReaderInc; the low two bits of rin say a writer is present (PRES) and
// which write phase it is (PHID), so a reader blocked by one writer is
// released by the end of that writer's phase even if the next writer is
// already present. Writers order themselves with a ticket pair (win, wout).
// kAnnouncesLate: the busted zoo's busted-pf-late-writer (its writer, its
// turn come, waits for the readers to leave before it tells them it
// waits: still safe, but readers that keep coming pass it).
//
// TaskFairRwlock: the fair reader-writer ticket lock (Mellor-Crummey &
// Scott 1991, "Scalable reader-writer synchronization for shared-memory
// multiprocessors", the "simple fair" lock). One 64-bit request word and
// one completion word, each counting readers (low 32 bits) and writers
// (high 32 bits). A reader waits until every writer that asked before it
// completed; a writer until every request before it completed: strict FIFO.
// A reader count that wraps carries one into the writer half of requests
// and, when that reader completes, of completions: it looks like one more
// writer that completes together with it, so the order is kept.
#pragma once

#include <atomic>
#include <cstdint>

#include "locks/hooks.h"
#include "locks/spin_wait.h"

namespace rwstress {

template <class Hooks = NoHooks, bool kAnnouncesLate = false>
class PhaseFairRwlock {
 public:
  template <class H>
  using WithHooks = PhaseFairRwlock<H, kAnnouncesLate>;  // the same lock over other hooks
  static constexpr bool kSpins = true;
  // A reader spins after its increment of rin, a writer after it set its
  // bits in rin; its spin for its writer ticket comes before that, and
  // says so (the preference check, lock_traits.h).
  static constexpr bool kQueuedBeforeSpinning = true;
  void down_read() noexcept {
    const std::uint32_t w = rin_.fetch_add(kReaderInc, std::memory_order_acquire) & kWriterBits;
    if (w) spin_until<Hooks>([&] { return (rin_.load(std::memory_order_acquire) & kWriterBits) != w; });
  }
  void up_read() noexcept { rout_.fetch_add(kReaderInc, std::memory_order_release); }

  void down_write() noexcept {
    const std::uint32_t ticket = win_.fetch_add(1, std::memory_order_relaxed);
    spin_until<Hooks>([&] { return wout_.load(std::memory_order_acquire) == ticket; },
                      SpinPlace::kBeforePlace);
    if constexpr (kAnnouncesLate)  // waits in its place, unseen by the readers
      spin_until<Hooks>([&] {
        return rout_.load(std::memory_order_acquire) ==
               (rin_.load(std::memory_order_acquire) & ~kWriterBits);
      });
    const std::uint32_t w = kPresent | (ticket & kPhaseId);
    const std::uint32_t readers_in = rin_.fetch_add(w, std::memory_order_acquire) & ~kWriterBits;
    spin_until<Hooks>([&] { return rout_.load(std::memory_order_acquire) == readers_in; });
  }
  void up_write() noexcept {
    rin_.fetch_and(~kWriterBits, std::memory_order_release);  // the read phase begins
    wout_.fetch_add(1, std::memory_order_release);
  }

 private:
  static constexpr std::uint32_t kReaderInc = 0x100;
  static constexpr std::uint32_t kWriterBits = 0x3;
  static constexpr std::uint32_t kPresent = 0x2;
  static constexpr std::uint32_t kPhaseId = 0x1;

  alignas(64) Atomic<Hooks, std::uint32_t> rin_{0};
  alignas(64) Atomic<Hooks, std::uint32_t> rout_{0};
  alignas(64) Atomic<Hooks, std::uint32_t> win_{0};
  alignas(64) Atomic<Hooks, std::uint32_t> wout_{0};
};

template <class Hooks = NoHooks>
class TaskFairRwlock {
 public:
  template <class H>
  using WithHooks = TaskFairRwlock<H>;  // the same lock over other hooks
  static constexpr bool kSpins = true;
  static constexpr bool kQueuedBeforeSpinning = true;  // the preference check (lock_traits.h)
  void down_read() noexcept {
    const std::uint64_t ticket = requests_.fetch_add(kReader, std::memory_order_relaxed);
    spin_until<Hooks>([&] {
      return writers(completions_.load(std::memory_order_acquire)) == writers(ticket);
    });
  }
  void up_read() noexcept { completions_.fetch_add(kReader, std::memory_order_release); }

  void down_write() noexcept {
    const std::uint64_t ticket = requests_.fetch_add(kWriter, std::memory_order_relaxed);
    spin_until<Hooks>([&] { return completions_.load(std::memory_order_acquire) == ticket; });
  }
  void up_write() noexcept { completions_.fetch_add(kWriter, std::memory_order_release); }

  // Succeeds only when nothing is requested beyond what completed.
  bool down_write_trylock() noexcept {
    std::uint64_t done = completions_.load(std::memory_order_acquire);
    return requests_.compare_exchange_strong(done, done + kWriter, std::memory_order_acquire,
                                             std::memory_order_relaxed);
  }
  bool down_read_trylock() noexcept {
    std::uint64_t req = requests_.load(std::memory_order_relaxed);
    if (writers(completions_.load(std::memory_order_acquire)) != writers(req)) return false;
    return requests_.compare_exchange_strong(req, req + kReader, std::memory_order_acquire,
                                             std::memory_order_relaxed);
  }

 private:
  static constexpr std::uint64_t kReader = 1;
  static constexpr std::uint64_t kWriter = std::uint64_t(1) << 32;
  static std::uint32_t writers(std::uint64_t v) noexcept { return std::uint32_t(v >> 32); }

  alignas(64) Atomic<Hooks, std::uint64_t> requests_{0};
  alignas(64) Atomic<Hooks, std::uint64_t> completions_{0};
};

}  // namespace rwstress
