// CountingHooks: the simplest injecting hooks. It injects nothing and counts
// how often each hook point is reached, process-wide. The tests use it to
// prove that the seam reaches every slow path; the injectors of the
// fault-injection work plug in at the same place.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "locks/hooks.h"

namespace rwstress {

struct CountingHooks {
  static inline std::array<std::atomic<std::uint64_t>, kHookPointCount> hits{};

  static void at(HookPoint p) noexcept { hits[int(p)].fetch_add(1, std::memory_order_relaxed); }
  static bool spurious_futex_return() noexcept { return false; }

  static std::uint64_t count(HookPoint p) noexcept { return hits[int(p)].load(); }
  static void reset() noexcept {
    for (auto& h : hits) h.store(0);
  }
};

}  // namespace rwstress
