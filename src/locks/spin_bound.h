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
#include <string>

#include "locks/hooks.h"
#include "platform/cpu_relax.h"
#include "platform/lock_warnings.h"

namespace rwstress {

template <class Hooks>
class SpinBound {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  // No turn past `deadline` (lock_clock_now) while the state it waits on
  // lasts; `spin` names the spin for the report ("spinning on a
  // reader-owned rwsem", say).
  void until(TimePoint deadline, const char* spin) noexcept {
    if (kind_ == Kind::kDeadline && deadline == deadline_) return;
    kind_ = Kind::kDeadline;
    deadline_ = deadline;
    overdue_ = false;
    reported_ = false;
    spin_ = spin;
  }
  // At most `n` turns while it waits on `on` (an owner, say): stated
  // again with the same `on`, the count goes on.
  void turns(long n, const void* on, const char* spin) noexcept {
    if (kind_ == Kind::kTurns && on == on_) return;
    kind_ = Kind::kTurns;
    on_ = on;
    turns_ = n;
    left_ = n;
    reported_ = false;
    spin_ = spin;
  }
  void clear() noexcept { kind_ = Kind::kNone; }

  // One busy-wait turn, judged against the bound stated.
  void turn() noexcept {
    judge();
    Hooks::at(HookPoint::kSpinIteration);
    cpu_relax();
  }

 private:
  enum class Kind : unsigned char { kNone, kDeadline, kTurns };

  void judge() noexcept {
    if (reported_) return;
    switch (kind_) {
      case Kind::kDeadline:
        if (lock_clock_now<Hooks>() <= deadline_) return;
        if (!overdue_) {
          overdue_ = true;
          return;
        }
        broken(std::string(spin_) +
               ": a busy-wait turn past its deadline, after a turn already past it (the "
               "lock's look at its clock between the two did not end the spin)");
        return;
      case Kind::kTurns:
        if (left_-- > 0) return;
        broken(std::string(spin_) + ": more than its " + std::to_string(turns_) +
               " busy-wait turns with the state it waits on unchanged");
        return;
      case Kind::kNone:
        return;
    }
  }

  void broken(std::string detail) noexcept {
    reported_ = true;  // until the lock states a new bound
    try {
      if constexpr (kControlled<Hooks>) {  // which step of the schedule: its trace shows it
        // The trace numbers its steps from 1: the spinner's last is this one.
        const controlled::Schedule* s = controlled::schedule_so_far();
        if (s && !s->trace.empty()) detail += " (after step " + std::to_string(s->trace.size()) + ")";
      }
      LockWarnings::instance().raise(tl_worker_index, std::move(detail), LockSaid::kSpinBound);
    } catch (...) {  // out of memory in a report: the run goes on without it
    }
  }

  Kind kind_ = Kind::kNone;
  TimePoint deadline_{};
  bool overdue_ = false;
  bool reported_ = false;
  const void* on_ = nullptr;
  long turns_ = 0;
  long left_ = 0;
  const char* spin_ = "";
};

}  // namespace rwstress
