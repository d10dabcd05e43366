// The one futex wrapper every in-tree sleeping lock parks through (in the
// locks layer: its waits take the hooks seam, locks/hooks.h).
//
// It is the second injection seam (docs/injection.md): a hooks type may make
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

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

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

// Stores `value` into word and wakes one sleeper on it, in one system call
// (FUTEX_WAKE_OP with uaddr2 == uaddr). This is how a lock hands itself to
// a sleeper: the store and the wake happen under the futex hash-bucket lock,
// so the waker cannot be preempted between them. With a store followed by a
// separate futex_wake, a waker preempted in between (by the timer, on a
// loaded machine) leaves a thread that owns the lock asleep for a whole time
// slice while the others run on: on 2 loaded CPUs that showed as a false
// STARVED for correct FIFO rwsems. The kernel's atomic op is a full barrier,
// so everything the waker wrote before is visible to the woken thread once
// it reads `value`.
//
// After this returns the sleeper may be gone (its word was on its stack);
// the kernel is done with the word before it returns.
inline void futex_set_and_wake(std::atomic<std::uint32_t>& word, std::uint32_t value) noexcept {
#if defined(__SANITIZE_THREAD__)
  __tsan_release(&word);  // TSan cannot see the kernel's store as a release
#endif
  auto* addr = reinterpret_cast<std::uint32_t*>(&word);
  // FUTEX_OP_SET with a 12-bit immediate; the comparison (for the second
  // wake) is never true with nr_wake2 = 0.
  if (value < 0x800) {
    const std::uint32_t op = FUTEX_OP(FUTEX_OP_SET, value, FUTEX_OP_CMP_EQ, 0);
    if (syscall(SYS_futex, addr, FUTEX_WAKE_OP_PRIVATE, 1, reinterpret_cast<void*>(0), addr,
                op) >= 0)
      return;
  }
  word.store(value, std::memory_order_release);  // no FUTEX_WAKE_OP here: two steps
  futex_wake(word);
}

inline void futex_wake_all(std::atomic<std::uint32_t>& word) noexcept { futex_wake(word, INT_MAX); }

}  // namespace rwstress
