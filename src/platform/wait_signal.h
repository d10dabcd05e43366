// What a lock's own busy-wait tells the harness of a timed run about the
// worker calling it: that it has taken a spin turn in its acquisition in
// progress (the timed preference check, run/preference_check.h). A lock
// that declares it takes its place before it spins (kQueuedBeforeSpinning:
// a ticket drawn, a node linked, a waiting-writer count raised) is then
// waiting in the lock, and its place is visible to whoever sees the turn:
// the lock's own write that took the place comes before the release store
// here.
//
// The harness numbers each blocking acquisition of a worker (`call`, odd
// while it is in progress) and points tl_wait_signal at the worker's
// signal for runs that judge preference; everywhere else it is nullptr
// and a spin turn costs a thread-local load and a branch.
#pragma once

#include <atomic>
#include <cstdint>

namespace rwstress {

struct WaitSignal {
  std::atomic<std::uint64_t> call{0};  // 2n + 1 while acquisition n is in progress, 2n after
  std::atomic<std::uint64_t> spun{0};  // `call` as of the worker's last spin turn
};

inline thread_local WaitSignal* tl_wait_signal = nullptr;

// One spin turn of the calling worker (SpinWait, the in-tree spinners').
inline void signal_spin_turn() noexcept {
  WaitSignal* w = tl_wait_signal;
  if (!w) return;
  const std::uint64_t c = w->call.load(std::memory_order_relaxed);
  if ((c & 1) == 0 || w->spun.load(std::memory_order_relaxed) == c) return;
  w->spun.store(c, std::memory_order_release);
}

}  // namespace rwstress
