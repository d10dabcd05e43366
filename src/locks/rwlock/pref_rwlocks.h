// Preference reader-writer spinlocks: the two textbook extremes.
//
// ReaderPrefRwlock (the classic Linux arch rwlock_t before qrwlock): one
// word, readers add kReader, a writer sets kWriter only on a zero word. A
// reader waits only for a writer that holds the lock, never for one that
// waits, so a steady stream of readers can starve writers. Fairness:
// reader-preference.
//
// WriterPrefRwlock (Courtois, Heymans & Parnas 1971, "problem 2", on one
// word): writers announce themselves in a waiting count; while any writer
// waits or holds, new readers wait. A steady stream of writers can starve
// readers. Fairness: writer-preference.
#pragma once

#include <atomic>
#include <cstdint>

#include "locks/hooks.h"
#include "locks/spin_wait.h"

namespace rwstress {

template <class Hooks = NoHooks>
class ReaderPrefRwlock {
 public:
  template <class H>
  using WithHooks = ReaderPrefRwlock<H>;  // the same lock over other hooks
  static constexpr bool kSpins = true;
  void down_read() noexcept {
    std::uint32_t c = word_.fetch_add(kReader, std::memory_order_acquire);
    if (c & kWriter)  // keep our count: the writer's release lets us in
      spin_until<Hooks>([&] { return !(word_.load(std::memory_order_acquire) & kWriter); });
  }
  bool down_read_trylock() noexcept {
    std::uint32_t c = word_.load(std::memory_order_relaxed);
    return !(c & kWriter) && word_.compare_exchange_strong(c, c + kReader, std::memory_order_acquire,
                                                           std::memory_order_relaxed);
  }
  void up_read() noexcept { word_.fetch_sub(kReader, std::memory_order_release); }

  void down_write() noexcept {
    SpinWait<Hooks> wait;
    for (;;) {
      std::uint32_t expected = 0;
      if (word_.compare_exchange_weak(expected, kWriter, std::memory_order_acquire,
                                      std::memory_order_relaxed))
        return;
      wait.once();
    }
  }
  bool down_write_trylock() noexcept {
    std::uint32_t expected = 0;
    return word_.compare_exchange_strong(expected, kWriter, std::memory_order_acquire,
                                         std::memory_order_relaxed);
  }
  void up_write() noexcept { word_.fetch_and(~kWriter, std::memory_order_release); }

 private:
  static constexpr std::uint32_t kWriter = 1;
  static constexpr std::uint32_t kReader = 2;
  Atomic<Hooks, std::uint32_t> word_{0};
};

// kReadersPassWaiting: the busted zoo's busted-wpref-readers-pass (its
// readers look only at a writer holding, not at writers waiting: the lock
// behaves reader-preference while it declares writer-preference).
template <class Hooks = NoHooks, bool kReadersPassWaiting = false>
class WriterPrefRwlock {
 public:
  template <class H>
  using WithHooks = WriterPrefRwlock<H, kReadersPassWaiting>;  // the same lock over other hooks
  static constexpr bool kSpins = true;
  static constexpr bool kQueuedBeforeSpinning = true;  // the preference check (lock_traits.h)
  void down_read() noexcept {
    SpinWait<Hooks> wait;
    for (;;) {
      std::uint32_t c = word_.load(std::memory_order_relaxed);
      if (!(c & kReaderBlockers) && word_.compare_exchange_weak(c, c + kReader, std::memory_order_acquire,
                                                                std::memory_order_relaxed))
        return;
      wait.once();
    }
  }
  bool down_read_trylock() noexcept {
    std::uint32_t c = word_.load(std::memory_order_relaxed);
    return !(c & kReaderBlockers) && word_.compare_exchange_strong(
                                     c, c + kReader, std::memory_order_acquire,
                                     std::memory_order_relaxed);
  }
  void up_read() noexcept { word_.fetch_sub(kReader, std::memory_order_release); }

  void down_write() noexcept {
    word_.fetch_add(kWaitingWriter, std::memory_order_relaxed);
    SpinWait<Hooks> wait;
    for (;;) {
      std::uint32_t c = word_.load(std::memory_order_relaxed);
      if (!(c & (kHeld | kReaderMask)) &&
          word_.compare_exchange_weak(c, c - kWaitingWriter + kHeld, std::memory_order_acquire,
                                      std::memory_order_relaxed))
        return;
      wait.once();
    }
  }
  bool down_write_trylock() noexcept {
    std::uint32_t c = word_.load(std::memory_order_relaxed);
    return !(c & (kHeld | kReaderMask)) &&
           word_.compare_exchange_strong(c, c + kHeld, std::memory_order_acquire,
                                         std::memory_order_relaxed);
  }
  void up_write() noexcept { word_.fetch_sub(kHeld, std::memory_order_release); }

 private:
  // bit 0: a writer holds; bits 1-15: writers waiting; bits 16-31: readers.
  static constexpr std::uint32_t kHeld = 1;
  static constexpr std::uint32_t kWaitingWriter = 2;
  static constexpr std::uint32_t kWriterMask = 0xffff;
  static constexpr std::uint32_t kReader = 1u << 16;
  static constexpr std::uint32_t kReaderMask = 0xffff0000u;
  // What keeps a reader out: a writer holding or waiting (bug: holding only).
  static constexpr std::uint32_t kReaderBlockers = kReadersPassWaiting ? kHeld : kWriterMask;
  Atomic<Hooks, std::uint32_t> word_{0};
};

}  // namespace rwstress
