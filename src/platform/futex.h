// The one futex wrapper every in-tree sleeping lock parks through.
//
// It is the second injection seam (DESIGN.md §3): a hooks type may make
// futex_wait() return at once, as a spurious wake-up would. Callers must
// already treat every return as "maybe woken": futex(2) itself returns on
// signals and on a changed word, so a lock that takes a return as a grant is
// broken with or without injection.
#pragma once

#include <atomic>
#include <chrono>
#include <cerrno>
#include <climits>
#include <cstdint>

#include <linux/futex.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "locks/hooks.h"

namespace rwstress {

static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t),
              "futex word must be a plain 32-bit word");

// Sleeps while word == expected. Returns on a wake, a changed word, a signal,
// or (with injecting hooks) for no reason at all.
template <class Hooks = NoHooks>
inline void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected) noexcept {
  if (Hooks::spurious_futex_return()) return;
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected,
          nullptr, nullptr, 0);
}

// As futex_wait, but gives up after `limit` (relative, CLOCK_MONOTONIC).
template <class Hooks = NoHooks>
inline void futex_wait_for(std::atomic<std::uint32_t>& word, std::uint32_t expected,
                           std::chrono::nanoseconds limit) noexcept {
  if (Hooks::spurious_futex_return()) return;
  if (limit.count() <= 0) return;
  timespec ts{time_t(limit.count() / 1000000000), long(limit.count() % 1000000000)};
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected, &ts,
          nullptr, 0);
}

// Wakes up to `count` threads sleeping on word.
inline void futex_wake(std::atomic<std::uint32_t>& word, int count = 1) noexcept {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, count, nullptr,
          nullptr, 0);
}

inline void futex_wake_all(std::atomic<std::uint32_t>& word) noexcept { futex_wake(word, INT_MAX); }

}  // namespace rwstress
