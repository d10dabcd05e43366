// The admission rule of a lock's fairness class (docs/checkers.md,
// "preference"): a thread must not be let in before a waiter that was
// already waiting in the lock when it asked, and is still in that same
// acquisition, where the class forbids it. Explore checks it at every
// admission of a schedule (run/explore_run.h); a timed run counts the
// admissions that break it, for the locks whose waiting it can see
// (TimedPreference below).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "model/lock_traits.h"
#include "platform/wait_signal.h"
#include "run/checkers.h"

namespace rwstress {

// Whether a thread asking exclusively or not may not pass a waiter asking
// exclusively or not: writer-preference and phase-fair (a reader past a
// waiting writer; phase-fair only outside a write phase, which the caller
// judges), task-fair (anyone past a waiter, unless both share: two readers,
// or two holders of a semaphore with more than one unit, are let in
// together and may return in any order).
inline bool may_not_pass(Fairness f, bool me_exclusive, bool waiter_exclusive) {
  switch (f) {
    case Fairness::kWriterPref: return !me_exclusive && waiter_exclusive;
    case Fairness::kPhaseFair: return !me_exclusive && waiter_exclusive;
    case Fairness::kTaskFair: return me_exclusive || waiter_exclusive;
    default: return false;
  }
}

// Whether a thread of `family` holds exclusively: a writer of an rwlock,
// any mutex holder, a holder of a semaphore of one unit.
inline bool holds_exclusively(Family family, bool writer, int count) {
  if (family == Family::kRwlock) return writer;
  if (family == Family::kSemaphore) return count == 1;
  return true;
}

// The violation's words: "reader R0 was let in while writer W2, already
// waiting in the lock when it asked, still waited: a writer-pref lock
// admits no reader while a writer waits".
std::string preference_broken(Fairness f, Family family, int me, bool me_exclusive, int waiter,
                              bool waiter_exclusive);

// The timed run's check, for a lock whose waiters show that they wait: one
// that takes its place before it spins (QueuedBeforeSpinning) and spins
// through SpinWait, whose turns say so (platform/wait_signal.h). A sleeper
// is not judged here: its wake-up and its return are apart by a scheduler
// latency in which a newcomer may honestly go first (explore judges it,
// where asleep is a fact of the schedule).
//
// Each blocking acquisition (a trylock waits for nothing, nor is a
// down_timeout judged) is numbered in the worker's WaitSignal. At asks(),
// the worker notes the threads it must not pass that are in an
// acquisition of theirs and have spun in it; at admitted(), one still in
// that same acquisition is a violation: it was waiting in the lock before
// the worker asked (its spin turn's release store carries its place: a
// correct lock had to see it), and it has not been let in (a worker stores
// its admission before it releases, so one let in and gone is seen as
// such by anyone the lock admits after it). Exact: a correct lock never
// fails it, whatever the scheduler does. One blocking acquisition in
// kJudgedEvery of each worker is judged: the others' signals sit on lines
// their owners write every pass, and reading them at every acquisition of
// a queued lock under contention cost MCS a third of its operations (2
// threads on 2 CPUs, 5 December 2026); a lock that breaks its rule does so
// over and over. At most 64 workers are judged.
//
// Phase-fair is judged as writer-preference is, without explore's
// write-phase exception: a writer shows that it waits only from its turn
// in its place (the phase-fair lock's writer tells the readers with its
// bits in rin first; its spin for its turn among writers signals
// nothing), so no other writer holds while it does, and a reader that
// asked then must wait for its write phase; a reader let in while it
// still waits joined a read phase after a read phase.
class TimedPreference {
 public:
  static constexpr int kMostThreads = 64;
  static constexpr std::uint64_t kJudgedEvery = 16;

  // Judges nothing unless `fairness` forbids a pass and the lock's waiting
  // shows (`queued`). `signal(i)` is worker i's WaitSignal.
  template <class SignalOf>
  void setup(Fairness fairness, Family family, int readers, int count, int threads, bool queued,
             SignalOf signal) {
    on_ = queued && threads <= kMostThreads &&
          (fairness == Fairness::kWriterPref || fairness == Fairness::kTaskFair ||
           fairness == Fairness::kPhaseFair);
    if (!on_) return;
    fairness_ = fairness;
    family_ = family;
    readers_ = readers;
    count_ = count;
    signals_.clear();
    for (int i = 0; i < threads; ++i) signals_.push_back(&signal(i));
  }
  bool on() const { return on_; }
  WaitSignal* signal_of(int i) { return signals_[std::size_t(i)]; }

  // Worker i begins a blocking acquisition.
  void asks(int i);
  // ... and was let in.
  void admitted(int i, ViolationLog& log);

 private:
  bool exclusive(int i) const { return holds_exclusively(family_, i >= readers_, count_); }

  bool on_ = false;
  Fairness fairness_ = Fairness::kUnfair;
  Family family_ = Family::kMutex;
  int readers_ = 0;
  int count_ = 0;
  std::vector<WaitSignal*> signals_;
};

// The calling worker's run's check, where it judges preference (the worker
// loop sets it); nullptr otherwise.
inline thread_local TimedPreference* tl_preference = nullptr;

}  // namespace rwstress
