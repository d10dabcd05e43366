// The busted zoo, rwlock part: each lock is a correct design with one real
// bug class put back in. docs/locks.md cites the class and a historic
// instance for each; `rwstress selftest` shows each is caught.
#pragma once

#include <atomic>
#include <cstdint>

#include "locks/hooks.h"
#include "locks/spin_wait.h"
#include "platform/futex.h"

namespace rwstress {

// A reader-preference word lock (kWriter bit, readers count in kReader).
// The bugs below each change one line of it.
namespace busted_detail {
inline constexpr std::uint32_t kWriter = 1;
inline constexpr std::uint32_t kReader = 2;
}  // namespace busted_detail

// busted-reader-in-writer: down_read counts itself but never waits for a
// writer that holds the lock (the missing "while (cnt & WRITER) spin").
class BustedReaderInWriter {
 public:
  static constexpr bool kSpins = true;
  void down_read() noexcept { word_.fetch_add(busted_detail::kReader, std::memory_order_acquire); }
  void up_read() noexcept { word_.fetch_sub(busted_detail::kReader, std::memory_order_release); }
  void down_write() noexcept {
    spin_until<NoHooks>([&] {
      std::uint32_t expected = 0;
      return word_.compare_exchange_weak(expected, busted_detail::kWriter,
                                         std::memory_order_acquire);
    });
  }
  void up_write() noexcept { word_.fetch_and(~busted_detail::kWriter, std::memory_order_release); }

 private:
  std::atomic<std::uint32_t> word_{0};
};

// busted-writer-in-readers: down_write checks only the writer bit, not the
// reader count (a mask that forgot the readers).
class BustedWriterInReaders {
 public:
  static constexpr bool kSpins = true;
  void down_read() noexcept {
    std::uint32_t c = word_.fetch_add(busted_detail::kReader, std::memory_order_acquire);
    if (c & busted_detail::kWriter)
      spin_until<NoHooks>(
          [&] { return !(word_.load(std::memory_order_acquire) & busted_detail::kWriter); });
  }
  void up_read() noexcept { word_.fetch_sub(busted_detail::kReader, std::memory_order_release); }
  void down_write() noexcept {
    spin_until<NoHooks>([&] {
      return !(word_.fetch_or(busted_detail::kWriter, std::memory_order_acquire) &
               busted_detail::kWriter);
    });
  }
  void up_write() noexcept { word_.fetch_and(~busted_detail::kWriter, std::memory_order_release); }

 private:
  std::atomic<std::uint32_t> word_{0};
};

// busted-racy-readers: the reader count is updated with a load and a store
// instead of one atomic read-modify-write ("count++" on a plain int):
// concurrent readers lose updates, so the count reads 0 with a reader
// inside (a writer gets in), or never returns to 0 (writers starve).
class BustedRacyReaders {
 public:
  static constexpr bool kSpins = true;
  void down_read() noexcept {
    spin_until<NoHooks>([&] { return !(word_.load(std::memory_order_acquire) & busted_detail::kWriter); });
    std::uint32_t c = word_.load(std::memory_order_relaxed);
    word_.store(c + busted_detail::kReader, std::memory_order_relaxed);
  }
  void up_read() noexcept {
    std::uint32_t c = word_.load(std::memory_order_relaxed);
    word_.store(c - busted_detail::kReader, std::memory_order_release);
  }
  void down_write() noexcept {
    spin_until<NoHooks>([&] {
      std::uint32_t expected = 0;
      return word_.compare_exchange_weak(expected, busted_detail::kWriter,
                                         std::memory_order_acquire);
    });
  }
  void up_write() noexcept { word_.fetch_and(~busted_detail::kWriter, std::memory_order_release); }

 private:
  std::atomic<std::uint32_t> word_{0};
};

// busted-downgrade: downgrade_write clears the writer bit without counting
// the caller as a reader, so a writer can get in while the downgraded
// thread still reads.
class BustedDowngrade {
 public:
  static constexpr bool kSpins = true;
  void down_read() noexcept {
    std::uint32_t c = word_.fetch_add(busted_detail::kReader, std::memory_order_acquire);
    if (c & busted_detail::kWriter)
      spin_until<NoHooks>(
          [&] { return !(word_.load(std::memory_order_acquire) & busted_detail::kWriter); });
  }
  bool down_read_trylock() noexcept {
    std::uint32_t c = word_.load(std::memory_order_relaxed);
    return !(c & busted_detail::kWriter) &&
           word_.compare_exchange_strong(c, c + busted_detail::kReader, std::memory_order_acquire);
  }
  void up_read() noexcept {
    if (downgraded_) {
      downgraded_ = false;  // nothing was counted for us
      return;
    }
    word_.fetch_sub(busted_detail::kReader, std::memory_order_release);
  }
  void down_write() noexcept {
    spin_until<NoHooks>([&] { return down_write_trylock(); });
  }
  bool down_write_trylock() noexcept {
    std::uint32_t expected = 0;
    return word_.compare_exchange_strong(expected, busted_detail::kWriter,
                                         std::memory_order_acquire);
  }
  void up_write() noexcept { word_.fetch_and(~busted_detail::kWriter, std::memory_order_release); }
  void downgrade_write() noexcept {
    downgraded_ = true;
    word_.fetch_and(~busted_detail::kWriter, std::memory_order_release);  // bug: no + kReader
  }

 private:
  std::atomic<std::uint32_t> word_{0};
  static inline thread_local bool downgraded_ = false;
};

// busted-unfair-claims-fair: a sleeping reader-preference lock that
// declares itself task-fair. Exclusion is correct; the claim is the bug: a
// stream of overlapping readers keeps the count above zero and the writer
// asleep, which must come out STARVED, not PASS. (It sleeps rather than
// spins so that the verdict stands on an oversubscribed machine, where a
// spinning lock's fairness is not judged.)
class BustedUnfairClaimsFair {
 public:
  void down_read() noexcept {
    std::uint32_t c = word_.fetch_add(busted_detail::kReader, std::memory_order_acquire);
    if (c & busted_detail::kWriter)  // keep our count: readers go first when it drops
      wait_until([&] { return !(word_.load(std::memory_order_acquire) & busted_detail::kWriter); });
  }
  void up_read() noexcept {
    if (word_.fetch_sub(busted_detail::kReader, std::memory_order_release) ==
        busted_detail::kReader)
      wake_all();
  }
  void down_write() noexcept {
    wait_until([&] {
      std::uint32_t expected = 0;
      return word_.compare_exchange_strong(expected, busted_detail::kWriter,
                                           std::memory_order_acquire);
    });
  }
  void up_write() noexcept {
    word_.fetch_and(~busted_detail::kWriter, std::memory_order_release);
    wake_all();
  }

 private:
  template <class Ready>
  void wait_until(Ready ready) noexcept {
    for (;;) {
      const std::uint32_t seq = wake_seq_.load(std::memory_order_acquire);
      if (ready()) return;
      futex_wait(wake_seq_, seq);
    }
  }
  void wake_all() noexcept {
    wake_seq_.fetch_add(1, std::memory_order_release);
    futex_wake_all(wake_seq_);
  }

  std::atomic<std::uint32_t> word_{0};
  std::atomic<std::uint32_t> wake_seq_{0};
};

}  // namespace rwstress
