// The one futex wrapper every in-tree sleeping lock parks through (in the
// locks layer: its waits take the hooks seam, locks/hooks.h).
//
// It is the second injection seam (docs/injection.md): a hooks type may make
// futex_wait() return at once, as a spurious wake-up would. Callers must
// already treat every return as "maybe woken": futex(2) itself returns on
// signals and on a changed word, so a lock that takes a return as a grant is
// broken with or without injection.
#pragma once

#include <algorithm>
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

// Wakes up to `count` threads sleeping on word; returns how many it woke.
inline int futex_wake(std::atomic<std::uint32_t>& word, int count = 1) noexcept {
  return int(syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, count,
                     nullptr, nullptr, 0));
}

// The same calls on a controlled word (a lock's controlled instantiation,
// and the sleep words of waiter records, which are controlled words in
// every build: they live on slow paths that make a system call anyway).
// Inside a controlled run the sleep is modelled (controlled.h); outside
// one they are the calls above on the word itself.
template <class Hooks = NoHooks>
inline void futex_wait(controlled::Atomic<std::uint32_t>& word, std::uint32_t expected) noexcept {
  if (Hooks::spurious_futex_return()) return;
  if (controlled::active())
    controlled::futex_wait(&word.raw(), expected, "futex_wait");
  else
    futex_wait<NoHooks>(word.raw(), expected);
}

template <class Hooks = NoHooks>
inline void futex_wait_for(controlled::Atomic<std::uint32_t>& word, std::uint32_t expected,
                           std::chrono::nanoseconds limit) noexcept {
  if (Hooks::spurious_futex_return()) return;
  if (controlled::active())
    controlled::futex_wait_for(&word.raw(), expected,
                               std::uint64_t(std::max<std::int64_t>(0, limit.count())),
                               "futex_wait_for");
  else
    futex_wait_for<NoHooks>(word.raw(), expected, limit);
}

inline void futex_wake(controlled::Atomic<std::uint32_t>& word, int count = 1) noexcept {
  if (controlled::active())
    controlled::futex_wake(&word.raw(), count);
  else
    futex_wake(word.raw(), count);
}

// Hands a word to its sleeper: stores `value` (release), then wakes one
// sleeper on it. Every grant in the tree goes through here. After the store
// the sleeper may return and reuse its stack; a wake on a reused word is
// harmless (every sleeper re-checks its word).
//
// Tried on 1 December 2026 and reverted the same day: doing both in one
// FUTEX_WAKE_OP (the op setting the word) so that a waker cannot be
// preempted between them. Beside busy loops it removed xadd's false STARVED
// at 2R+1W (2 of 16 sessions before, 0 of 64 after), but on a quiet 2-vCPU
// machine it made `--lock xadd --readers 2 --writers 1 --no-check
// --duration 100ms` STARVED in 7 of 81 runs against 1 of 81 with the two
// steps. Traced later, that writer loses its time in a run queue after its
// own release (wake-up preemption, model/verdict.h kRunqShareWhenGranted);
// why one system call made that more frequent was not measured. The loaded
// case is covered by the verdict rule kOthersShare.
template <class Word>
inline void futex_set_and_wake(Word& word, std::uint32_t value) noexcept {
  word.store(value, std::memory_order_release);
  futex_wake(word);
}

template <class Word>
inline void futex_wake_all(Word& word) noexcept {
  futex_wake(word, INT_MAX);
}

}  // namespace rwstress
