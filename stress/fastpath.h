// The uncontended fast path of one lock type: `pairs` acquire+release pairs
// on one thread, on a fresh instance, timed as a whole. Registered next to
// each lock's run function, so the fast-path benchmark (bench/) covers every
// implementation in the registry without a list of its own.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "stress/lock_traits.h"
#include "stress/scenario.h"

namespace rwstress {

// Nanoseconds for `pairs` pairs. `shared`: read pairs for an rwlock; the
// other families have one mode and ignore it.
using FastPathFn = double (*)(std::uint64_t pairs, bool shared);

template <class Lock>
double fastpath_pairs(std::uint64_t pairs, bool shared) {
  Scenario sc;
  sc.count = 1;
  auto lock = std::make_unique<LockBox<Lock>>(sc);
  Lock& l = lock->lock;
  const auto t0 = std::chrono::steady_clock::now();
  if constexpr (RwLock<Lock>) {
    if (shared) {
      for (std::uint64_t i = 0; i < pairs; ++i) {
        l.down_read();
        l.up_read();
      }
    } else {
      for (std::uint64_t i = 0; i < pairs; ++i) {
        l.down_write();
        l.up_write();
      }
    }
  } else if constexpr (CountingSemaphore<Lock>) {
    for (std::uint64_t i = 0; i < pairs; ++i) {
      l.down();
      l.up();
    }
  } else {
    for (std::uint64_t i = 0; i < pairs; ++i) {
      l.lock();
      l.unlock();
    }
  }
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace rwstress
