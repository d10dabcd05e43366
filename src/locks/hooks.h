// The hooks seam: named points inside the locks' slow paths.
//
// Every in-tree lock is a template over a Hooks type and calls
// Hooks::at(HookPoint::k...) where real lock bugs live: between enqueueing a
// waiter and sleeping, after a wake-up, before waking others, in spin loops,
// and between the halves of a multi-step release. NoHooks compiles to
// nothing; the harness instantiates a lock a second time with injecting hooks
// (injectors/). A lock never learns what a hook does.
#pragma once

#include <cstdint>

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

}  // namespace rwstress
