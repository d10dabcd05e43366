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

// Where a waiter spins, for the preference check of a lock that takes its
// place before it spins (kQueuedBeforeSpinning, model/lock_traits.h): in
// its place (it waits in the lock's order), or before it has one (phase-
// fair's writer waiting for its turn among writers, which readers need
// not wait for).
enum class SpinPlace : bool { kInPlace, kBeforePlace };

template <class Hooks>
class SpinWait {
 public:
  SpinWait() = default;
  explicit SpinWait(SpinPlace place) noexcept : place_(place) {}

  void once() noexcept {
    if constexpr (kControlled<Hooks>) {
      if (place_ == SpinPlace::kBeforePlace) controlled::spin_unplaced();
      Hooks::at(HookPoint::kSpinIteration);
      return;  // the hook was the turn (controlled::spin)
    }
    Hooks::at(HookPoint::kSpinIteration);
    // The timed preference check's: it waits in the lock.
    if (place_ == SpinPlace::kInPlace) signal_spin_turn();
    if (++spins_ < kSpinsBeforeYield) {
      cpu_relax();
    } else {
      sched_yield();
      spins_ = 0;
    }
  }

 private:
  int spins_ = 0;
  SpinPlace place_ = SpinPlace::kInPlace;
};

// Spins until done() is true.
template <class Hooks, class Done>
inline void spin_until(Done done, SpinPlace place = SpinPlace::kInPlace) noexcept {
  SpinWait<Hooks> wait(place);
  while (!done()) wait.once();
}

}  // namespace rwstress
