// The controlled scheduler (src/platform/controlled.h): one thread at a
// time, a strategy at each point, exact deadlock and livelock, and replay
// step for step. The locks here are toys written against its points; the
// in-tree locks and the kernel-compat layer reach it in later steps.
#define BOOST_TEST_MODULE explore
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cstdint>

#include "platform/controlled.h"

using namespace rwstress;
namespace ctl = rwstress::controlled;

namespace {

// Test and set done as two steps (the check, then the store): two threads
// can both see it free. `racy` false makes it one exchange.
struct ToyLock {
  explicit ToyLock(bool r) : racy(r) {}
  void lock() {
    for (;;) {
      if (racy) {
        while (word.load() != 0) ctl::spin("lock: busy");
        ctl::point("lock: saw it free");
        word.store(1);
        ctl::point("lock: set");
        return;
      }
      if (word.exchange(1) == 0) {
        ctl::point("lock: exchanged");
        return;
      }
      ctl::spin("lock: busy");
    }
  }
  void unlock() {
    word.store(0);
    ctl::point("unlock");
  }
  bool racy;
  std::atomic<std::uint32_t> word{0};
};

// Two threads take the lock `ops` times each; `overlaps` counts the times
// one found the other inside.
struct Exclusion {
  std::atomic<int> inside{0};
  std::atomic<int> overlaps{0};
  void enter() {
    if (inside.fetch_add(1) != 0) overlaps.fetch_add(1);
    ctl::point("in the critical section");
    inside.fetch_sub(1);
  }
};

ctl::Schedule exclusion_schedule(bool racy, const ctl::Options& o, int* overlaps) {
  auto lock = std::make_shared<ToyLock>(racy);
  auto ex = std::make_shared<Exclusion>();
  ctl::Schedule s = ctl::run(2, o, [lock, ex](int) {
    for (int op = 0; op < 2; ++op) {
      lock->lock();
      ex->enter();
      lock->unlock();
    }
  });
  *overlaps = ex->overlaps.load();
  return s;
}

// A futex mutex (0 free, 1 held, 2 held with waiters) whose unlock, when
// `lose_wakeup`, forgets to wake a waiter.
struct FutexMutex {
  explicit FutexMutex(bool lose) : lose_wakeup(lose) {}
  void lock() {
    std::uint32_t c = 0;
    if (word.compare_exchange_strong(c, 1)) {
      ctl::point("lock: fast");
      return;
    }
    ctl::point("lock: contended");
    while (word.exchange(2) != 0) {
      ctl::point("lock: will sleep");
      ctl::futex_wait(&word, 2, "lock: futex_wait");
    }
    ctl::point("lock: got it");
  }
  void unlock() {
    if (word.exchange(0) == 2) {
      ctl::point("unlock: waiters");
      if (!lose_wakeup) ctl::futex_wake(&word, 1);
    }
    ctl::point("unlock");
  }
  bool lose_wakeup;
  std::atomic<std::uint32_t> word{0};
};

}  // namespace

// Outside a controlled run every point is a no-op and a wait returns.
BOOST_AUTO_TEST_CASE(points_do_nothing_outside_a_controlled_run) {
  BOOST_TEST(!ctl::active());
  std::atomic<std::uint32_t> w{7};
  ctl::point("x");
  ctl::spin("x");
  ctl::futex_wait(&w, 7, "x");  // would block forever if it modelled anything
  BOOST_TEST(ctl::futex_wake(&w, 1) == 0);
}

// The race (both threads past the check before either stores, and one
// still inside when the other enters) has depth 3: PCT at depth 3 and the
// random strategy find it within 200 schedules; the one-step lock never
// shows one.
BOOST_AUTO_TEST_CASE(strategies_find_a_check_then_set_race_and_pass_the_atomic_lock) {
  for (ctl::Strategy strategy : {ctl::Strategy::kRandom, ctl::Strategy::kPct}) {
    int found = 0, correct_overlaps = 0;
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
      ctl::Options o;
      o.strategy = strategy;
      o.seed = seed;
      o.pct_depth = 3;
      o.pct_steps = 30;
      int overlaps = 0;
      ctl::Schedule s = exclusion_schedule(true, o, &overlaps);
      BOOST_TEST((s.outcome == ctl::Outcome::kDone));
      found += overlaps > 0;
      exclusion_schedule(false, o, &overlaps);
      correct_overlaps += overlaps;
    }
    BOOST_TEST(found > 0, "strategy " << int(strategy));
    BOOST_TEST(correct_overlaps == 0);
  }
}

// A failing schedule's choices, given back, replay it step for step: the
// same trace digest and the same failure, every time.
BOOST_AUTO_TEST_CASE(a_failing_schedule_replays_step_for_step) {
  ctl::Options o;
  ctl::Schedule failing;
  for (std::uint64_t seed = 1; seed <= 500; ++seed) {
    o.seed = seed;
    int overlaps = 0;
    ctl::Schedule s = exclusion_schedule(true, o, &overlaps);
    if (overlaps > 0) {
      failing = s;
      break;
    }
  }
  BOOST_REQUIRE(!failing.choices.empty());
  for (int i = 0; i < 20; ++i) {
    ctl::Options replay;
    replay.seed = 12345 + std::uint64_t(i);  // the strategy's own draws must not matter
    replay.replay = failing.choices;
    int overlaps = 0;
    ctl::Schedule again = exclusion_schedule(true, replay, &overlaps);
    BOOST_TEST((again.outcome == ctl::Outcome::kDone));
    BOOST_TEST(again.digest == failing.digest);
    BOOST_TEST(again.trace.size() == failing.trace.size());
    BOOST_TEST(overlaps > 0);
  }
  // The same seed and strategy give the same schedule.
  int overlaps = 0;
  ctl::Options same = o;
  BOOST_TEST(exclusion_schedule(true, same, &overlaps).digest == failing.digest);
}

// Every unfinished thread blocked at once is a deadlock, said at that
// step with each thread's state; the correct mutex never deadlocks.
BOOST_AUTO_TEST_CASE(a_lost_wake_up_is_a_deadlock_at_the_step_it_happens) {
  int deadlocks = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    for (bool lose : {true, false}) {
      auto m = std::make_shared<FutexMutex>(lose);
      ctl::Options o;
      o.seed = seed;
      ctl::Schedule s = ctl::run(3, o, [m](int) {
        for (int op = 0; op < 3; ++op) {
          m->lock();
          ctl::point("inside");
          m->unlock();
        }
      });
      if (!lose) {
        BOOST_TEST((s.outcome == ctl::Outcome::kDone), "seed " << seed);
        continue;
      }
      if (s.outcome != ctl::Outcome::kDeadlock) continue;
      ++deadlocks;
      BOOST_TEST(!s.states.empty());
      for (const std::string& line : s.states)
        BOOST_TEST(line.find("blocked on") != std::string::npos, line);
    }
  }
  BOOST_TEST(deadlocks > 0);
}

// Spinners that can never progress end at the step bound: a livelock, with
// the spinning threads named; a spinner waiting for a thread that will
// move does not livelock the scheduler.
BOOST_AUTO_TEST_CASE(spinning_yields_the_turn_and_endless_spinning_is_a_livelock) {
  auto flag = std::make_shared<std::atomic<int>>(0);
  ctl::Options o;
  o.max_steps = 500;
  ctl::Schedule stuck = ctl::run(2, o, [flag](int) {
    while (flag->load() == 0) ctl::spin("waiting for a flag nobody sets");
  });
  BOOST_TEST((stuck.outcome == ctl::Outcome::kLivelock));
  BOOST_REQUIRE(stuck.states.size() == 2u);
  BOOST_TEST(stuck.states[0].find("spinning") != std::string::npos, stuck.states[0]);

  auto go = std::make_shared<std::atomic<int>>(0);
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    ctl::Options p;
    p.seed = seed;
    p.strategy = ctl::Strategy::kPct;  // the spinner may hold the top priority
    p.max_steps = 10000;
    go->store(0);
    ctl::Schedule s = ctl::run(2, p, [go](int i) {
      if (i == 0) {
        while (go->load() == 0) ctl::spin("waiting for thread 1");
      } else {
        ctl::point("about to set");
        go->store(1);
        ctl::point("set");
      }
    });
    BOOST_TEST((s.outcome == ctl::Outcome::kDone), "seed " << seed);
  }
}

// PCT's guarantee for the run's shape: 1 / (n k^(d-1)).
BOOST_AUTO_TEST_CASE(pct_bound_is_the_papers) {
  BOOST_TEST(ctl::pct_bound(2, 100, 1) == 0.5);
  BOOST_TEST(ctl::pct_bound(2, 100, 2) == 1.0 / 200);
  BOOST_TEST(ctl::pct_bound(4, 10, 3) == 1.0 / 400);
}
