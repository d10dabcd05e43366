// The controlled scheduler (issue: rwstress explore): a run's threads are
// real threads, but exactly one of them runs at a time, and it gives up the
// CPU only at a scheduling point, where a strategy picks the next one.
//
// Code under test marks its points with point(), its busy-wait turns with
// spin() (a spinner that makes no progress yields its turn instead of
// livelocking the scheduler), and models its sleeps with futex_wait() and
// futex_wake(): a wait marks the thread blocked on the word and passes the
// CPU, a wake makes waiters runnable. Outside a controlled run every one of
// them is a no-op (futex_wait returns at once), so code may call them
// unconditionally from an instantiation meant for control.
//
// Liveness is exact: every unfinished thread blocked at once is a
// deadlock, reported at that step with each thread's state; a step bound
// with no thread finishing its body is a livelock. Neither needs a clock.
//
// Strategies: a uniformly random runnable thread at each point, and PCT
// (Burckhardt et al., ASPLOS 2010): random distinct thread priorities,
// D-1 priority-change points drawn among the first k steps; the highest
// priority runnable thread runs, and at the i-th change point the running
// thread drops to priority i. Every schedule records the thread chosen at
// each step; given back as `replay`, the same choices are made step for
// step and the trace digest is the same.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace rwstress::controlled {

enum class Strategy : std::uint8_t { kRandom, kPct };

struct Options {
  Strategy strategy = Strategy::kRandom;
  std::uint64_t seed = 0;
  int pct_depth = 2;               // D: finds bugs of depth D (D-1 change points)
  std::uint64_t pct_steps = 1000;  // k: change points are drawn among steps 1..k
  std::uint64_t max_steps = 1'000'000;  // a longer schedule is a livelock
  std::vector<int> replay;         // thread chosen at each step; empty: the strategy's
};

enum class Outcome : std::uint8_t {
  kDone,            // every body returned
  kDeadlock,        // every unfinished thread blocked at once
  kLivelock,        // max_steps with bodies unfinished
  kReplayDiverged,  // a replayed choice named a thread that could not run
};
const char* outcome_name(Outcome o);

// One step: the thread that ran, and the point it stopped at.
struct Step {
  int thread;
  const char* what;
};

struct Schedule {
  Outcome outcome = Outcome::kDone;
  std::vector<int> choices;  // the thread that ran at each step: replay input
  std::vector<Step> trace;   // the same steps with the point each ended at
  std::uint64_t digest = 0;  // of the trace (thread and point of every step)
  int preemptions = 0;       // steps where a thread that could go on was switched out
  // A deadlock or livelock: each unfinished thread's state ("blocked on
  // 0x...", "spinning at ...", "runnable at ..."), one line per thread.
  std::vector<std::string> states;
};

// Runs body(i), i in [0, n), on n real threads, one at a time, under the
// strategy. Threads left blocked by a deadlock (or stopped by a livelock or
// a diverged replay) are parked for good and detached: they keep the state
// they use alive, and never run again.
Schedule run(int n, const Options& options, const std::function<void(int)>& body);

// The probability PCT finds a given bug of depth D in one schedule is at
// least 1 / (n * k^(D-1)) (n threads, k steps): the figure for a run.
double pct_bound(int n, std::uint64_t k, int depth);

// Scheduling points, for the calling thread of a controlled run; no-ops
// on any other thread.
bool active();
void point(const char* what);
void spin(const char* what);
// Blocks (in the model) while *word == expected, until a futex_wake on the
// same word; returns at once if the value differs. A spurious return is
// allowed to the caller, as with a real futex.
void futex_wait(const std::atomic<std::uint32_t>* word, std::uint32_t expected, const char* what);
// Makes up to n threads blocked on `word` runnable; returns how many.
int futex_wake(const void* word, int n);

}  // namespace rwstress::controlled
