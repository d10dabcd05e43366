// One controlled schedule of a lock (rwstress explore, docs/explore.md):
// the lock's controlled instantiation (ControlledHooks: every atomic
// access, hook point, spin turn and futex sleep a scheduling point), its
// threads doing a fixed number of operations each, under the controlled
// scheduler, with the checkers every run uses.
//
// The operations are the ordinary run's, made deterministic: which
// acquisition goes through a trylock and which write hold ends in a
// downgrade follow from the thread and operation index, not from a random
// stream, so a schedule's choices alone replay it. Inside every hold a
// scheduling point lets the others run while the holder is inside: an
// exclusion bug needs nothing more than that interleaving to show.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "locks/hooks.h"
#include "model/lock_traits.h"
#include "model/run_result.h"
#include "model/scenario.h"
#include "explore/controlled.h"
#include "platform/splitmix.h"
#include "run/checkers.h"
#include "run/preference_check.h"

namespace rwstress {

// explore --fair: a runnable thread runs within this many steps per
// thread of the run (controlled::Options::fair_turns).
inline constexpr int kFairTurnsPerThread = 2;

// The shape of an explored run.
struct ExploreShape {
  Scenario scenario;  // family, readers/writers (threads), count, tuning
  int ops = 2;        // operations per thread
  // The lock's declared class: its admission rule is checked (preference).
  Fairness fairness = Fairness::kUnfair;
  // A hand-off lock's waiter is owed the hand-off once it has waited this
  // long of the run's clock (explore --handoff-after; handoff_overtaken).
  std::uint64_t handoff_after_ns = 8'000'000;
};

// One schedule and what the checkers made of it.
struct ExploredSchedule {
  controlled::Schedule schedule;
  std::vector<Violation> violations;  // the first of each kind
  std::uint64_t violation_count = 0;
  Verdict verdict = Verdict::kPass;  // FAIL (a checker), HANG (deadlock, livelock), PASS
  const void* lock_begin = nullptr;  // the lock object, to name its words in a trace
  std::size_t lock_size = 0;
};

using ExploreFn = ExploredSchedule (*)(const ExploreShape&, const controlled::Options&);

// The lock's controlled instantiation, where it has one: a lock over
// hooks (WithHooks) is rebuilt over ControlledHooks. A lock the scheduler
// cannot see inside (a library's, a plugin's) has none.
template <class Lock>
struct ControlledOf {
  static constexpr bool kExplorable = false;
};
template <class Lock>
  requires requires { typename Lock::template WithHooks<ControlledHooks>; }
struct ControlledOf<Lock> {
  static constexpr bool kExplorable = true;
  using type = typename Lock::template WithHooks<ControlledHooks>;
};

namespace explore_detail {

// Thread i's operation k: one in three acquisitions through a trylock
// (where the lock has one), one in three through a semaphore's
// down_timeout (where it has one: its expiry is the schedule's choice,
// controlled::Options::expiries), one write hold in two ends in a
// downgrade. A trylock or timeout that fails is followed by the plain
// acquisition, as in the timed run.
inline bool tries(int thread, int op) { return (thread + op) % 3 == 2; }
inline bool times_out(int thread, int op) { return (thread + op) % 3 == 1; }
// Long enough that only the schedule's choice (or every other thread
// asleep) ends it: a million steps of the run's clock at 1us a step.
inline constexpr std::chrono::seconds kExploreDownTimeout{1};
inline bool downgrades(int op) { return op % 2 == 1; }

template <class Lock>
struct Shared {
  explicit Shared(const Scenario& sc) : lock(make_lock<Lock>(sc)) {}
  Lock lock;
  ViolationLog violations;
  ExclusionCheck exclusion;
  SemaphoreBoundCheck bound;
  ProtectedRecord record;
  // Threads inside down_read / down_write, not yet holding (the
  // downgrade check below). Plain state: one thread runs at a time.
  std::vector<bool> in_down_read = std::vector<bool>(64, false);
  std::vector<int> reads_taken = std::vector<int>(64, 0);  // down_read returned, per thread
  int writers_waiting = 0;
  bool downgrader_waiting = false;  // a downgrader is in wait_for_admitted_readers
  // The preference check: each thread's acquisition calls, what the one in
  // progress asks for (0 none, 1 shared, 2 exclusive), and the waiters it
  // must not pass (asleep in the lock, or spinning in a lock that queues
  // before it spins, when it asked).
  // An acquisition in progress as seen at one step (waiter_of): still the
  // same one while its thread is in that call, was not killed and did not
  // time out since (still_waiting).
  struct Waiter {
    int thread;
    std::uint64_t call;
    int away;
    int expired;
  };
  std::vector<std::uint64_t> calls = std::vector<std::uint64_t>(64, 0);
  std::vector<int> asking = std::vector<int>(64, 0);
  std::vector<std::vector<Waiter>> must_not_pass = std::vector<std::vector<Waiter>>(64);
  int writers_in = 0;  // rwlock: writers holding (a write phase), for the phase-fair rule
  // The hand-off check (explore --fair): each thread's acquisition in
  // progress as a waiter the lock owes a hand-off (handoff_overtaken).
  struct HandoffWait {
    Waiter asked{-1, 0, 0, 0};  // the acquisition, as it asked
    int slept = 0;  // its times_slept() when it asked: it waits once that grows
    std::uint64_t since_ns = 0;  // the run's clock at the first admission seen while it slept; 0: none
    int overtaken = 0;           // admissions of others since it waited past handoff_after_ns
  };
  std::vector<HandoffWait> handoff = std::vector<HandoffWait>(64);
  // The hand-off check of a lock that says whom it owes the lock
  // (ReportsHandoffWaiter; handoff_owed): each thread's kernel thread id,
  // and its acquisition in progress, whether the lock has named it owed,
  // and the admissions of others since.
  struct OwedWait {
    Waiter asked{-1, 0, 0, 0};
    bool named = false;
    std::vector<std::uint64_t> calls_then;  // every thread's calls when it was named
    int overtaken = 0;
  };
  std::vector<int> tids = std::vector<int>(64, 0);
  std::vector<OwedWait> owed = std::vector<OwedWait>(64);
  bool starved = false;  // reported once a schedule
  // --memory c11: the protected data as the memory model sees it (a word
  // of its own): every exclusive hold stores to it, and every holder, once
  // in, must have the last such store in its view (ordered_entry).
  std::uint64_t modelled_data = 0;  // a location is an 8-byte word: this one alone
  // --memory c11, a reader-writer lock: each thread's read holds as the
  // model sees them (a word a thread): every read hold stores to its
  // thread's word as it ends, and an exclusive holder, once in, must have
  // every thread's last such store in its view (ordered_after_readers).
  std::vector<std::uint64_t> modelled_reads = std::vector<std::uint64_t>(64, 0);
};

// A holder just got in: under --memory c11, the last exclusive holder's
// store to the protected data must be in its view, which only a
// release/acquire path from that holder's release to this acquisition
// gives. An exclusive holder then stores to it itself.
template <class Lock>
void ordered_entry(Shared<Lock>& s, int i, const char* holder, bool exclusive) {
  if (!controlled::models_memory()) return;
  const int writer = controlled::model_missed(&s.modelled_data);
  if (writer >= 0)
    s.violations.report(
        ViolationKind::kOrdering, i,
        std::string(holder) + " got in without the protected data thread " +
            std::to_string(writer) +
            " wrote in its last hold in view: nothing orders that thread's release before this "
            "acquisition (a missing ACQUIRE or RELEASE; the data may be stale here)");
  if (exclusive)
    controlled::model_access(&s.modelled_data, sizeof s.modelled_data, controlled::AccessKind::kStore,
                             int(std::memory_order_relaxed));
}

// The other direction, for a reader-writer lock under --memory c11: a
// read hold ends (ended_read), and a writer that gets in later must have
// that end in its view, which again only a release/acquire path from the
// reader's release to its acquisition gives (LKMM and C11 order a lock's
// critical sections both ways). Without one the reader's loads may read
// what the writer stores in its hold: a store the model never makes
// visible early, so the stale value itself cannot show, only the missing
// order (the queued rwlock's writer before 2021 took the lock with a
// relaxed cmpxchg after an interrupt's reader had come and gone).
template <class Lock>
void ended_read(Shared<Lock>& s, int i) {
  if (!controlled::models_memory()) return;
  controlled::model_access(&s.modelled_reads[std::size_t(i)], sizeof(std::uint64_t),
                           controlled::AccessKind::kStore, int(std::memory_order_relaxed));
}

template <class Lock>
void ordered_after_readers(Shared<Lock>& s, const ExploreShape& shape, int i) {
  if (!controlled::models_memory()) return;
  for (int j = 0; j < shape.scenario.threads(); ++j) {
    if (j == i || controlled::model_missed(&s.modelled_reads[std::size_t(j)]) < 0) continue;
    s.violations.report(
        ViolationKind::kOrdering, i,
        "a writer got in without thread " + std::to_string(j) +
            "'s last read hold in view: nothing orders that reader's release before this "
            "acquisition (a missing ACQUIRE or RELEASE; the reader may have read what this writer "
            "stores)");
    return;
  }
}

// The admission rule of the lock's fairness class (docs/checkers.md,
// "preference"), checked exactly at every admission: a thread must not be
// let in before a waiter that was already waiting in the lock when it
// asked, and is still in that same acquisition, where the class forbids
// it: writer-preference (a reader past a waiting writer), phase-fair (a
// reader that asked in a read phase, or with the lock free, past a waiting
// writer: a reader phase must not follow a reader phase while a writer
// waits; a reader that asked in a write phase joins the read phase that
// follows it, ahead of later writers and of writers waiting behind that
// one), task-fair (anyone past a waiter, unless both share: two readers,
// or two holders of a semaphore with more than one unit, are let in
// together and may return in any order). Waiting is what the scheduler
// sees: asleep in the lock,
// or spinning in a lock that declares it takes its place before it spins
// (QueuedBeforeSpinning), at a turn it took in its place (not one it says
// came before, SpinPlace::kBeforePlace). A waiter killed meanwhile (explore --signals), or
// whose timed wait ran out meanwhile (it gave up its place, even if its
// call has not returned yet), is not waited for.

template <class Lock>
typename Shared<Lock>::Waiter waiter_of(const Shared<Lock>& s, int j) {
  return {j, s.calls[std::size_t(j)], controlled::times_away(j), controlled::times_expired(j)};
}

// Whether w's thread is still in that acquisition and has kept its place:
// a waiter killed meanwhile (explore --signals), or whose timed wait ran
// out meanwhile (it gave up its place, even if its call has not returned
// yet), is no longer waiting.
template <class Lock>
bool still_waiting(const Shared<Lock>& s, const typename Shared<Lock>::Waiter& w) {
  const std::size_t v = std::size_t(w.thread);
  return s.asking[v] != 0 && s.calls[v] == w.call && controlled::times_away(w.thread) == w.away &&
         controlled::times_expired(w.thread) == w.expired;
}

// Whether this schedule judges the lock's hand-off waits (handoff_overtaken).
inline bool judges_handoff(const ExploreShape& shape) {
  return shape.fairness == Fairness::kHandoff && controlled::judges_fairness();
}

// A hand-off lock (Fairness::kHandoff) lets newcomers steal, but owes a
// waiter that has waited past its bound the lock next (the kernel's
// rwsem: 4 jiffies, then HANDOFF; its mutex: a top waiter woken and still
// beaten asks at once). In a schedule that is fair within a bound
// (explore --fair: every runnable thread runs within a few steps, so a
// waiter is never simply kept off the CPU), a waiter asleep in its
// acquisition that has waited ExploreShape::handoff_after_ns of the run's
// clock (8 ms by default, twice rwsem's bound: time jumps get there; 0 for
// mutex.c, whose woken top waiter asks at once) and then sees the others let in
// more than kHandoffOvertakesPerThread times per thread is STARVED: the
// hand-off it is owed never came. A waiter killed or timed out meanwhile
// gave up its place and is not counted, nor is an admission while the
// waiter is on its way out of its sleep. The bound: linux-rwsem, correct,
// went past 2 a thread in a few thousand random and PCT schedules with
// --fair (a waiter queued behind others waits for each of them, and for a
// steal or two before each asks), never past 3 (docs/explore.md).
inline constexpr int kHandoffOvertakesPerThread = 4;

template <class Lock>
void handoff_overtaken(Shared<Lock>& s, const ExploreShape& shape, int admitted_thread) {
  const int threads = shape.scenario.threads();
  const std::uint64_t now = controlled::now_ns();
  for (int v = 0; v < threads && !s.starved; ++v) {
    auto& h = s.handoff[std::size_t(v)];
    if (v == admitted_thread || h.asked.thread != v || !still_waiting(s, h.asked) ||
        controlled::times_slept(v) == h.slept)
      continue;
    if (h.since_ns == 0) {
      h.since_ns = std::max<std::uint64_t>(now, 1);
      continue;
    }
    if (now - h.since_ns < shape.handoff_after_ns) continue;
    // Waiting now as the scheduler sees it: asleep, or at a spin turn. A
    // waiter woken and on its way (granted the lock by its waker, or about
    // to ask for the hand-off) is not passed while the others come in.
    if (!controlled::asleep(v) && !controlled::spinning_in_place(v)) continue;
    if (++h.overtaken <= kHandoffOvertakesPerThread * threads) continue;
    s.starved = true;
    s.violations.report(
        ViolationKind::kHandoffStarved, v,
        "waited in its acquisition, asleep, " + std::to_string((now - h.since_ns) / 1000) +
            " us of the run's clock, and past " + std::to_string(shape.handoff_after_ns / 1000) +
            " us the others were let in " + std::to_string(h.overtaken) +
            " times (the bound: " + std::to_string(kHandoffOvertakesPerThread) +
            " a thread), in a schedule where every runnable thread runs within " +
            std::to_string(threads * kFairTurnsPerThread) +
            " steps: the hand-off a hand-off lock owes a waiter past its bound never came "
            "(thread " + std::to_string(admitted_thread) + " was let in last)");
  }
}

// A hand-off lock that says whom it owes the lock (ReportsHandoffWaiter:
// linux-rwsem, and the kernel's mutex.c and rwsem.c, whose HANDOFF bit is
// set for their first waiter) is judged on its word in every schedule,
// fair or not: at each step (controlled::Options::between_steps) the
// waiter it names is marked owed in its acquisition in progress, and from
// then on every admission of a newcomer (a thread that asked after that
// step) while it still waits is an overtaking, unless both share (two
// readers). The lock promised it the lock next, so a correct one lets no
// newcomer by: in 30,000 random and PCT schedules of linux-rwsem (2R+1W to
// 3R+2W, time jumps) and thousands of rwsem.c's and mutex.c's (linux 6.12
// and 7.2, with signals and under c11) not one (docs/explore.md). More
// than kOwedOvertakesPerThread per thread is STARVED: the hand-off was
// cleared or given to another, and the waiter was never asked for again
// (the 2021 mutex.c that set HANDOFF once, 048661a1f963; readers that
// steal past it). A waiter killed or timed out meanwhile is not counted.
inline constexpr int kOwedOvertakesPerThread = 1;

template <class Lock>
void note_handoff_owed(Shared<Lock>& s, int threads) {
  if constexpr (ReportsHandoffWaiter<Lock>) {
    const int tid = s.lock.handoff_waiter();
    if (tid == 0) return;
    for (int v = 0; v < threads; ++v) {
      auto& o = s.owed[std::size_t(v)];
      if (s.tids[std::size_t(v)] != tid) continue;
      if (o.named || o.asked.thread != v || o.asked.call != s.calls[std::size_t(v)]) return;
      o.named = true;
      o.calls_then = s.calls;
      return;
    }
  }
}

// What the hand-off judge above keeps between steps, as one number: the
// state partial-order reduction must find equal before it takes two
// prefixes for one (controlled::Options::harness_state).
template <class Lock>
std::uint64_t owed_digest(const Shared<Lock>& s, int threads) {
  std::uint64_t h = std::uint64_t(s.starved);
  const auto mix = [&h](std::uint64_t v) { h = splitmix64(h ^ v); };
  for (int v = 0; v < threads; ++v) {
    const auto& o = s.owed[std::size_t(v)];
    mix(std::uint64_t(o.named) << 32 | std::uint64_t(std::uint32_t(o.overtaken)));
    for (int j = 0; j < threads && o.named; ++j) mix(o.calls_then[std::size_t(j)]);
  }
  return h;
}

template <class Lock>
void handoff_owed(Shared<Lock>& s, const ExploreShape& shape, int admitted_thread, bool shares) {
  const int threads = shape.scenario.threads();
  for (int v = 0; v < threads && !s.starved; ++v) {
    auto& o = s.owed[std::size_t(v)];
    if (v == admitted_thread || !o.named || !still_waiting(s, o.asked)) continue;
    // Two sharers pass nobody: a reader owed the lock is granted it with
    // the other readers queued (rwsem.c's reader hand-off), who may come
    // and go again before it runs.
    if (shares && s.asking[std::size_t(v)] == 1) continue;
    // Only a newcomer passes it: one that asked before the lock named the
    // waiter may have been let in (granted, on its way out of its sleep)
    // before it.
    if (s.calls[std::size_t(admitted_thread)] <= o.calls_then[std::size_t(admitted_thread)]) continue;
    if (++o.overtaken <= kOwedOvertakesPerThread * threads) continue;
    s.starved = true;
    s.violations.report(
        ViolationKind::kHandoffStarved, v,
        "the lock named this waiter the one it owes the lock next (its hand-off), and while it "
        "still waited the others were let in " +
            std::to_string(o.overtaken) + " times (the bound: " +
            std::to_string(kOwedOvertakesPerThread) +
            " a thread): the hand-off was lost to others (thread " +
            std::to_string(admitted_thread) + " was let in last)");
  }
}

template <class Lock>
bool reports_handoff(const Shared<Lock>& s) {
  if constexpr (ReportsHandoffWaiter<Lock>)
    return s.lock.reports_handoff();
  else
    return false;
}

template <class Lock>
void asks(Shared<Lock>& s, const ExploreShape& shape, int i, bool exclusive) {
  controlled::shared_state();  // (the harness's bookkeeping: every thread reads it)
  const std::size_t u = std::size_t(i);
  ++s.calls[u];
  if (judges_handoff(shape)) s.handoff[u] = {waiter_of(s, i), controlled::times_slept(i), 0, 0};
  if (reports_handoff(s)) s.owed[u] = {waiter_of(s, i), false, {}, 0};
  s.asking[u] = exclusive ? 2 : 1;
  s.must_not_pass[u].clear();
  for (int j = 0; j < shape.scenario.threads(); ++j) {
    const std::size_t v = std::size_t(j);
    if (j == i || s.asking[v] == 0 ||
        !may_not_pass(shape.fairness, exclusive, s.asking[v] == 2))
      continue;
    if (shape.fairness == Fairness::kPhaseFair && s.writers_in > 0) continue;  // a write phase
    const bool waiting =
        controlled::asleep(j) || (QueuedBeforeSpinning<Lock> && controlled::spinning_in_place(j));
    if (waiting)
      s.must_not_pass[u].push_back(waiter_of(s, j));
  }
}

template <class Lock>
void admitted(Shared<Lock>& s, const ExploreShape& shape, int i) {
  controlled::shared_state();
  const std::size_t u = std::size_t(i);
  const bool shares = s.asking[u] == 1;
  s.asking[u] = 0;
  if (judges_handoff(shape)) handoff_overtaken(s, shape, i);
  if (reports_handoff(s)) handoff_owed(s, shape, i, shares);
  for (const auto& w : s.must_not_pass[u]) {
    if (!still_waiting(s, w)) continue;
    const std::size_t v = std::size_t(w.thread);
    s.violations.report(ViolationKind::kPreference, i,
                        preference_broken(shape.fairness, shape.scenario.family, i,
                                          holds_exclusively(shape.scenario.family, i >= shape.scenario.readers,
                                                            shape.scenario.count),
                                          w.thread, s.asking[v] == 2));
    break;
  }
  s.must_not_pass[u].clear();
}

// downgrade_write wakes the readers queued for the lock (the kernel's
// rwsem_downgrade_wake): every reader asleep in down_read when it is
// called must get in while the downgrader still reads, unless a writer
// waits too (a fair lock may keep readers behind it). A reader that only
// queues later may sleep until the read holds end (the 2001 xadd rwsem's
// readers do), so it is not waited for. The downgrader stays until then; a
// downgrade that leaves the queued readers asleep makes every other thread
// blocked with the downgrader spinning, which explore_schedule reports as
// a downgrade violation.
struct QueuedReader {
  int thread;
  int reads_taken;  // its count when it was seen asleep: admitted once it grows
  int times_away;   // killed since (explore --signals): gone, not waited for
};

template <class Lock>
std::vector<QueuedReader> readers_asleep(Shared<Lock>& s, int threads) {
  std::vector<QueuedReader> queued;
  for (int i = 0; i < threads; ++i)
    if (s.in_down_read[std::size_t(i)] && controlled::asleep(i))
      queued.push_back({i, s.reads_taken[std::size_t(i)], controlled::times_away(i)});
  return queued;
}

template <class Lock>
void wait_for_admitted_readers(Shared<Lock>& s, const std::vector<QueuedReader>& queued) {
  // A reader killed in its wait (explore --signals) went away: it is not
  // waited for, nor when it comes back (it queues anew, late).
  auto still_out = [&] {
    for (const QueuedReader& q : queued)
      if (s.reads_taken[std::size_t(q.thread)] == q.reads_taken &&
          controlled::times_away(q.thread) == q.times_away)
        return true;
    return false;
  };
  s.downgrader_waiting = true;
  while (still_out() && s.writers_waiting == 0)
    controlled::harness_wait("downgraded: waiting for the queued readers to get in");
  s.downgrader_waiting = false;
}

// An exclusive hold (a writer's, a mutex holder's): announce, fill the
// record, let the others run, find the record still ours. Returns its value.
template <class Lock>
std::uint64_t exclusive_hold(Shared<Lock>& s, int i, int op, const char* inside,
                             const char* changed) {
  const std::uint64_t value = record_value(i, std::uint64_t(op));
  s.exclusion.writer_enter(i, s.violations);
  ordered_entry(s, i, "a holder", true);
  s.record.write(value);
  controlled::shared_point(inside);  // (the hold: conflict-guided PCT counts it)
  s.record.check_holds(value, i, ViolationKind::kTornRecord, changed, s.violations);
  return value;
}

template <class Lock>
void rw_thread(Shared<Lock>& s, const ExploreShape& shape, int i) {
  const bool writer = i >= shape.scenario.readers;
  for (int op = 0; op < shape.ops; ++op) {
    if (!writer) {
      s.in_down_read[std::size_t(i)] = true;
      asks(s, shape, i, false);
      if (!(tries(i, op) && try_down_read(s.lock))) {
        asks(s, shape, i, false);  // a failed trylock left no place: it asks anew
        s.lock.down_read();
      }
      admitted(s, shape, i);
      s.in_down_read[std::size_t(i)] = false;
      ++s.reads_taken[std::size_t(i)];
      s.exclusion.reader_enter(i, s.violations);
      ordered_entry(s, i, "a reader", false);
      controlled::shared_point("reader inside");
      s.record.check_whole(i, s.violations);
      s.exclusion.reader_exit();
      ended_read(s, i);
      s.lock.up_read();
      controlled::mark("released");  // (a hold's end, for --trace-json)
      controlled::shared_state();
      continue;
    }
    ++s.writers_waiting;
    asks(s, shape, i, true);
    if (!(tries(i, op) && try_down_write(s.lock))) {
      asks(s, shape, i, true);
      s.lock.down_write();
    }
    admitted(s, shape, i);
    --s.writers_waiting;
    ++s.writers_in;
    ordered_after_readers(s, shape, i);
    const std::uint64_t value = exclusive_hold(
        s, i, op, "writer inside", "another thread changed the record during my write hold");
    if constexpr (HasDowngrade<Lock>) {
      if (downgrades(op)) {
        s.exclusion.writer_to_reader();
        const std::vector<QueuedReader> queued = readers_asleep(s, shape.scenario.threads());
        s.lock.downgrade_write();
        controlled::shared_state();
        --s.writers_in;  // a read phase begins
        controlled::shared_point("downgraded: reading");
        wait_for_admitted_readers(s, queued);
        s.record.check_holds(value, i, ViolationKind::kDowngrade,
                             "a writer changed the record after my downgrade_write", s.violations);
        s.exclusion.reader_exit();
        ended_read(s, i);
        s.lock.up_read();
        controlled::mark("released");
        controlled::shared_state();
        continue;
      }
    }
    s.exclusion.writer_exit();
    s.lock.up_write();
    controlled::mark("released");
    controlled::shared_state();
    --s.writers_in;
  }
}

template <class Lock>
void mutex_thread(Shared<Lock>& s, const ExploreShape& shape, int i) {
  for (int op = 0; op < shape.ops; ++op) {
    asks(s, shape, i, true);
    if (!(tries(i, op) && try_lock(s.lock))) {
      asks(s, shape, i, true);
      s.lock.lock();
    }
    admitted(s, shape, i);
    if constexpr (Recursive<Lock>) {
      if (op % 2 == 1) {  // nested: must not deadlock, must not release early
        s.lock.lock();
        s.lock.unlock();
      }
    }
    exclusive_hold(s, i, op, "holder inside", "another holder changed the record during my hold");
    s.exclusion.writer_exit();
    s.lock.unlock();
    controlled::mark("released");
    controlled::shared_state();
  }
}

template <class Lock>
void semaphore_thread(Shared<Lock>& s, const ExploreShape& shape, int i) {
  for (int op = 0; op < shape.ops; ++op) {
    const bool exclusive = holds_exclusively(shape.scenario.family, true, shape.scenario.count);
    asks(s, shape, i, exclusive);
    bool got = tries(i, op) && try_down(s.lock);
    if constexpr (HasDownTimeout<Lock>) {
      if (times_out(i, op)) got = s.lock.down_timeout(kExploreDownTimeout);
    }
    if (!got) {
      asks(s, shape, i, exclusive);  // a timeout that ran out gave up its place
      s.lock.down();
    }
    admitted(s, shape, i);
    s.bound.enter(i, shape.scenario.count, s.violations);
    if (shape.scenario.count == 1) ordered_entry(s, i, "a holder", true);  // a binary semaphore orders its holders
    controlled::shared_point("holder inside");
    s.bound.exit();
    s.lock.up();
    controlled::mark("released");
    controlled::shared_state();
  }
}

// After every thread returned, one trylock from outside the run must
// find the lock free (no waiting: nothing else can be running); a
// semaphore must have exactly its count of units free, as after a timed
// run (a unit lost or made shows here even where no thread waited for it).
template <class Lock>
void check_free(Shared<Lock>& s, int count) {
  check_idle(s.lock, s.violations);  // first: a trylock may set it at rest
  if constexpr (CountingSemaphore<Lock> && HasSemTrylock<Lock>) {
    const int free_units =
        count_free_units(s.lock, count + 1, [&](int) { return s.lock.down_trylock(); });
    if (free_units != count)
      s.violations.report(ViolationKind::kSemaphoreCount, kAfterRunThread,
                          "the semaphore had " +
                              (free_units > count ? "more than " + std::to_string(count)
                                                  : std::to_string(free_units)) +
                              " units free after every thread had released, not its count " +
                              std::to_string(count));
    return;
  }
  bool free = true;
  if constexpr (RwLock<Lock> && HasWriteTrylock<Lock>) {
    if ((free = s.lock.down_write_trylock())) s.lock.up_write();
  } else if constexpr (MutexLock<Lock> && HasTrylock<Lock>) {
    if ((free = s.lock.trylock())) s.lock.unlock();
  }
  if (!free)
    s.violations.report(ViolationKind::kFinalState, kAfterRunThread,
                        "the lock was not free after every thread had released it");
}

}  // namespace explore_detail

template <class Lock>
ExploredSchedule explore_schedule(const ExploreShape& shape, const controlled::Options& options) {
  using namespace explore_detail;
  // Shared state outlives a deadlocked schedule: its parked threads keep it.
  auto s = std::make_shared<Shared<Lock>>(shape.scenario);
  auto sh = std::make_shared<ExploreShape>(shape);
  LockWarnings::instance().clear();
  LockOrder::instance().reset();
  ExploredSchedule out;
  if constexpr (requires { s->lock.object(); }) {  // a plugin's: its own object
    out.lock_begin = s->lock.object();
    out.lock_size = s->lock.object_size();
  } else {
    out.lock_begin = &s->lock;
    out.lock_size = sizeof(Lock);
  }
  controlled::Options run_options = options;
  run_options.lock_begin = out.lock_begin;  // (conflict-guided PCT's shared words)
  run_options.lock_size = out.lock_size;
  if constexpr (requires { s->lock.wants_os_threads(); })
    if (s->lock.wants_os_threads()) run_options.os_threads = true;
  if (reports_handoff(*s)) {
    run_options.between_steps = [s, n = shape.scenario.threads()] { note_handoff_owed(*s, n); };
    run_options.harness_state = [s, n = shape.scenario.threads()] { return owed_digest(*s, n); };
  }
  out.schedule = controlled::run(shape.scenario.threads(), run_options, [s, sh](int i) {
    tl_worker_index = i;
    s->tids[std::size_t(i)] = lock_thread_id();  // as the lock names its waiters
    if constexpr (RwLock<Lock>)
      rw_thread(*s, *sh, i);
    else if constexpr (CountingSemaphore<Lock>)
      semaphore_thread(*s, *sh, i);
    else
      mutex_thread(*s, *sh, i);
  });
  if (out.schedule.outcome == controlled::Outcome::kDone) check_free(*s, shape.scenario.count);
  if (out.schedule.outcome == controlled::Outcome::kLivelock && s->downgrader_waiting)
    s->violations.report(ViolationKind::kDowngrade, kAfterRunThread,
                         "after downgrade_write the lock was read-held and no writer waited, but "
                         "the readers waiting for it were never let in");
  drain_lock_warnings(s->violations);
  RunResult r;
  s->violations.copy_into(r);
  out.violations = std::move(r.first_violations);
  out.violation_count = r.violation_count;
  if (out.violation_count > 0)
    out.verdict = r.violations_by_kind[int(ViolationKind::kHandoffStarved)] == out.violation_count
                      ? Verdict::kStarved
                      : Verdict::kFail;
  else if (out.schedule.outcome == controlled::Outcome::kDeadlock ||
           out.schedule.outcome == controlled::Outcome::kLivelock)
    out.verdict = Verdict::kHang;
  return out;
}

template <class Lock>
constexpr ExploreFn explore_fn() {
  if constexpr (ControlledOf<Lock>::kExplorable)
    return &explore_schedule<typename ControlledOf<Lock>::type>;
  else
    return nullptr;
}

}  // namespace rwstress
