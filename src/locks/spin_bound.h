// SpinBound: the bound a spinning lock promises to keep on its busy-wait,
// and the judge of it (docs/checkers.md, "spin-bound").
//
// A spin that is meant to end — on a deadline of the lock's clock (the
// kernel's rwsem_rspin_threshold()), or after so many turns while what it
// waits on stays the same (a stand-in for owner->on_cpu) — that does not
// end blocks nobody in a test: the owner leaves sooner or later and the
// spinner gets in. So the lock says what its bound is as it spins, and
// takes its turns through turn(); a turn past the bound is raised from
// inside the lock as spin-bound (platform/lock_warnings.h), with the
// spinner's worker index, in timed runs and under explore alike (the
// lock's clock there is the run's step clock: each step is a microsecond).
// A plugin states the same bounds through <rwstress/spin_bound.h>.
//
// The lock states the bound each time it looks and finds the state it
// waits on as before (the same deadline, or the same owner: the bound goes
// on), a new one when that state changes, and clears it when it spins on something the
// bound does not cover. A deadline has one turn of grace: time passes
// between the lock's look at its clock and its turn (a preemption, other
// threads' steps), so the first turn past the deadline may be honest. A
// second turn past the same deadline is not: the lock looked after the
// first, the time was up, and it spun on. A number of turns has no grace:
// the lock counts them itself. One report per bound stated.
#pragma once

#include <chrono>
#include <cstdint>

#include <rwstress/spin_bound.h>

#include "locks/hooks.h"
#include "platform/cpu_relax.h"
#include "platform/lock_warnings.h"

namespace rwstress {

// The bound's state and its judge are those a plugin's spin has
// (<rwstress/spin_bound.h>, platform/lock_warnings.h judge_spin_turn): one
// rule for both.
template <class Hooks>
class SpinBound {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  // No turn past `deadline` (lock_clock_now) while the state it waits on
  // lasts; `spin` names the spin for the report ("spinning on a
  // reader-owned rwsem", say).
  void until(TimePoint deadline, const char* spin) noexcept {
    rwstress_spin_bound_until(&state_, ns(deadline), spin);
  }
  // At most `n` turns while it waits on `on` (an owner, say): stated
  // again with the same `on`, the count goes on.
  void turns(long n, const void* on, const char* spin) noexcept {
    rwstress_spin_bound_turns(&state_, n, on, spin);
  }
  void clear() noexcept { rwstress_spin_bound_clear(&state_); }

  // One busy-wait turn, judged against the bound stated.
  void turn() noexcept {
    if (state_.kind != RWSTRESS_SPIN_BOUND_NONE) judge_spin_turn(state_, ns(lock_clock_peek<Hooks>()));
    Hooks::at(HookPoint::kSpinIteration);
    cpu_relax();
  }

 private:
  static std::uint64_t ns(TimePoint t) noexcept {
    return std::uint64_t(
        std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
  }

  rwstress_spin_bound state_ = RWSTRESS_SPIN_BOUND_INIT;
};

}  // namespace rwstress
