// The per-CPU slot a reader uses in the per-CPU rwlocks (brlock,
// percpu-rwsem). Userspace threads migrate, so a thread keeps the slot it
// was given on first use (round robin) rather than its current CPU: a
// reader must release the slot it took, and threads spread over slots the
// way the kernel's tasks spread over CPUs.
#pragma once

#include <atomic>

#include "locks/hooks.h"

namespace rwstress {

inline constexpr int kPercpuSlots = 64;

inline int reader_slot_of_thread() noexcept {
  static std::atomic<int> next{0};
  static thread_local int slot = next.fetch_add(1, std::memory_order_relaxed) % kPercpuSlots;
  return slot;
}

// Under control a thread's slot is its index in the run, so a replay puts
// every reader on the same slot as the schedule it replays.
template <class Hooks>
inline int reader_slot() noexcept {
  if constexpr (kControlled<Hooks>)
    return controlled::thread_index() % kPercpuSlots;
  else
    return reader_slot_of_thread();
}

}  // namespace rwstress
