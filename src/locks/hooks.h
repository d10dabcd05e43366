// The hooks seam: named points inside the locks' slow paths.
//
// Every in-tree lock is a template over a Hooks type and calls
// Hooks::at(HookPoint::k...) where real lock bugs live: between enqueueing a
// waiter and sleeping, after a wake-up, before waking others, in spin loops,
// and between the halves of a multi-step release. NoHooks compiles to
// nothing; the harness instantiates a lock a second time with injecting hooks
// (injectors/). A lock never learns what a hook does.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include <unistd.h>

#include "explore/controlled.h"

namespace rwstress {

enum class HookPoint : std::uint8_t {
  kAfterEnqueue,   // waiter is on the wait list, not yet asleep
  kBeforeSleep,    // about to park in futex_wait
  kAfterWake,      // futex_wait returned (woken or spurious)
  kBeforeWake,     // a releaser is about to wake waiters
  kSpinIteration,  // one turn of a busy-wait loop
  kMidRelease,     // between two steps of a release that is not one atomic op
  kWaitUnlock,     // the lock's internal spin lock (its wait-list lock) just dropped
  kFastPath,       // a fast path between its check and its act
};

inline constexpr int kHookPointCount = 8;

inline constexpr const char* hook_point_name(HookPoint p) {
  switch (p) {
    case HookPoint::kAfterEnqueue: return "after-enqueue";
    case HookPoint::kBeforeSleep: return "before-sleep";
    case HookPoint::kAfterWake: return "after-wake";
    case HookPoint::kBeforeWake: return "before-wake";
    case HookPoint::kSpinIteration: return "spin";
    case HookPoint::kMidRelease: return "mid-release";
    case HookPoint::kWaitUnlock: return "wait-unlock";
    case HookPoint::kFastPath: return "fast-path";
  }
  return "?";
}

struct NoHooks {
  static constexpr void at(HookPoint) noexcept {}
  static constexpr bool spurious_futex_return() noexcept { return false; }
};

// The atomic seam (the way folly's SharedMutex takes an Atom template for
// its DeterministicSchedule tests, folded into the hooks type every lock
// already takes): a lock names its atomics Atomic<Hooks, T>. That is
// std::atomic<T> for NoHooks and the injecting hooks, so the ordinary build
// is unchanged (docs/PERFORMANCE.md, fast path), and controlled::Atomic<T>
// for ControlledHooks, where every access is a scheduling point.
template <class Hooks, class T>
struct AtomicSeam {
  using type = std::atomic<T>;
};
template <class Hooks, class T>
  requires requires { typename Hooks::template Atomic<T>; }
struct AtomicSeam<Hooks, T> {
  using type = typename Hooks::template Atomic<T>;
};
template <class Hooks, class T>
using Atomic = typename AtomicSeam<Hooks, T>::type;

template <class Hooks>
inline constexpr bool kControlled = requires { Hooks::kControlled; };

// Hooks whose instantiation records the operations it performs
// (controlled::record_ops): the controlled ones, and RecordingHooks below.
template <class Hooks>
inline constexpr bool kRecordsOps = kControlled<Hooks> || requires { Hooks::kRecordsOps; };

// The clock and the CPU a lock reads, through the same seam: the run's
// step clock and the thread's index under control (controlled.h), the
// steady clock and sched_getcpu() otherwise. A read by the lock's logic
// (lock_clock_now) is where explore --time-jumps may let time jump
// (controlled::read_clock()); the harness's own look (lock_clock_peek: the
// spin-bound judge) is not.
template <class Hooks>
inline std::chrono::steady_clock::time_point lock_clock_now() noexcept {
  if constexpr (kControlled<Hooks>)
    return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(controlled::read_clock()));
  else
    return std::chrono::steady_clock::now();
}
template <class Hooks>
inline std::chrono::steady_clock::time_point lock_clock_peek() noexcept {
  if constexpr (kControlled<Hooks>)
    return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(controlled::now_ns()));
  else
    return std::chrono::steady_clock::now();
}

// A lock word as the harness sees it between two steps (a lock's
// handoff_waiter(), lock_traits.h ReportsHandoffWaiter): its value now,
// with no scheduling point, controlled or not.
template <class Word>
inline auto lock_word_peek(const Word& word) noexcept {
  if constexpr (requires { word.raw(); })
    return word.raw().load(std::memory_order_relaxed);
  else
    return word.load(std::memory_order_relaxed);
}

// The calling thread's kernel thread id, as a lock records it in a waiter
// it queues (a lock's handoff_waiter() names a waiter by it).
inline int lock_thread_id() noexcept {
  static thread_local const int tid = controlled::thread_tid();
  return tid;
}

// need_resched() for an in-tree spinner that the kernel ends on it (the
// OSQ, rwsem_spin_on_owner()): under control a tick may come just before
// the check (controlled::tick(), a choice of the schedule, replayed), and
// the spinner gives up while the owner still runs; otherwise never (the
// spin's own bounds end it).
template <class Hooks>
inline bool spinner_told_to_stop() noexcept {
  if constexpr (kControlled<Hooks>)
    return controlled::tick();
  else
    return false;
}

// A fence through the same seam: under control the memory model of
// explore --memory c11 sees it too.
template <class Hooks>
inline void seam_fence(std::memory_order o) noexcept {
  if constexpr (kControlled<Hooks>) controlled::model_fence(int(o));
  if constexpr (kRecordsOps<Hooks>) controlled::note_op("fence", int(o), -1, nullptr);
  std::atomic_thread_fence(o);
}

// The hooks of a lock's controlled instantiation (rwstress explore): every
// hook point is a scheduling point named after it, a spin turn yields the
// turn (controlled::spin), and every atomic is controlled::Atomic.
struct ControlledHooks {
  static constexpr bool kControlled = true;
  template <class T>
  using Atomic = controlled::Atomic<T>;
  static void at(HookPoint p) noexcept {
    if (p == HookPoint::kSpinIteration)
      controlled::spin("spin");
    else
      controlled::point(hook_point_name(p));
  }
  static constexpr bool spurious_futex_return() noexcept { return false; }
};

// The ordinary instantiation with its operations recorded: controlled
// atomics (outside a controlled run each is the std::atomic operation it
// names, and records itself), every `kControlled` branch of the lock taking
// its ordinary side. The test that both builds perform the same operations
// (run/op_sequence.h) runs a lock over these hooks and over ControlledHooks.
struct RecordingHooks {
  static constexpr bool kRecordsOps = true;
  template <class T>
  using Atomic = controlled::Atomic<T>;
  static constexpr void at(HookPoint) noexcept {}
  static constexpr bool spurious_futex_return() noexcept { return false; }
};

}  // namespace rwstress
