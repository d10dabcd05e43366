// What a lock says about itself from inside a run: the kernel-compat
// layer's WARN_ON, BUG_ON and lockdep checks (include/rwstress/kernel.h),
// and a spinner that went past the bound its lock declared
// (locks/spin_bound.h). Any thread may raise one (a worker, the probe's,
// the main thread around init); the run going on takes them as violations
// when its workers have left (run/checkers.h, drain_lock_warnings). One
// entry per distinct kind, place and message, with how often it fired.
//
// It sits under the locks (platform) so that a lock header can raise one;
// the run turns them into violations of its own kinds.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include <rwstress/spin_bound.h>

namespace rwstress {

// The worker index of the calling thread (the harness sets it), for what
// is raised from inside a lock; -1 (the model's kProbeThread) on any
// other thread.
inline thread_local int tl_worker_index = -1;

enum class LockSaid : std::uint8_t {
  kWarning,    // a WARN_ON, BUG_ON or lockdep check fired: lock-warning
  kSpinBound,  // a spinner took a turn past its declared bound: spin-bound
  kLockOrder,  // a cycle among the layer's lock classes (platform/lock_order.h): lock-order
};

class LockWarnings {
 public:
  struct Entry {
    LockSaid kind;
    int thread;
    std::string detail;
    std::uint64_t times;
  };

  static LockWarnings& instance();

  void raise(int thread, std::string detail, LockSaid kind = LockSaid::kWarning);
  void clear();
  // What was raised since the last take() or clear(), and how many more
  // were raised after kDistinct distinct entries; the list is empty after.
  std::vector<Entry> take(std::uint64_t& beyond);

 private:
  static constexpr std::size_t kDistinct = 16;
  std::mutex mutex_;
  std::vector<Entry> entries_;
  std::uint64_t beyond_ = 0;
};

// One busy-wait turn of a spin whose bound `b` states
// (<rwstress/spin_bound.h>), at `now_ns` of the lock's clock: a turn past
// the bound raises spin-bound for the calling worker (under explore, with
// the schedule's step), once per bound stated. The in-tree locks'
// SpinBound (locks/spin_bound.h) and a plugin's turns (host ABI 6) both
// come here.
void judge_spin_turn(rwstress_spin_bound& b, std::uint64_t now_ns) noexcept;

}  // namespace rwstress
