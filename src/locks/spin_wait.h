// SpinWait: one busy-wait turn as every in-tree spinning lock takes it.
//
// A kernel spinner's lock holder cannot be preempted; a userspace one can.
// After kSpinsBeforeYield turns the holder (or, in a queued lock, the
// predecessor about to hand over) has most likely lost its CPU, so the
// spinner yields instead of burning its time slice. Without that an
// oversubscribed run measures the scheduler's time slice, not the lock.
//
// A yielder goes behind the threads runnable on its CPU, often for a whole
// time slice. Parking on a futex instead (spin, then sleep until the holder
// lets go) was tried on 1 December 2026 for the rwsems' and semaphores'
// wait-list spinlocks: it removed those slice-long waits at 2R+1W, but at
// 200 readers and 1 writer on 2 CPUs the parked writer was woken behind up
// to 200 parked readers, and aa-rwsem-fair's writer fell from 400-800
// writes a second to 1-6. So every spinner here still yields.
#pragma once

#include <sched.h>

#include "locks/hooks.h"
#include "platform/cpu_relax.h"
#include "platform/wait_signal.h"

namespace rwstress {

// About a microsecond of pause on current x86: longer than any lock-internal
// critical section in this tree, far shorter than a scheduler time slice.
inline constexpr int kSpinsBeforeYield = 128;

template <class Hooks>
class SpinWait {
 public:
  void once() noexcept {
    Hooks::at(HookPoint::kSpinIteration);
    if constexpr (kControlled<Hooks>) return;  // the hook was the turn (controlled::spin)
    signal_spin_turn();  // the timed preference check's: it waits in the lock
    if (++spins_ < kSpinsBeforeYield) {
      cpu_relax();
    } else {
      sched_yield();
      spins_ = 0;
    }
  }

 private:
  int spins_ = 0;
};

// Spins until done() is true.
template <class Hooks, class Done>
inline void spin_until(Done done) noexcept {
  SpinWait<Hooks> wait;
  while (!done()) wait.once();
}

}  // namespace rwstress
