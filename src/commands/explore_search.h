// The searches over the controlled scheduler (explore/controlled.h) that
// `rwstress explore`, validate's exploration stage and fuzz's controlled
// trials run: the sampling strategies (random, PCT: schedule 1 unpreempted,
// then the strategy's, each schedule's seed the search's i-th), the
// exhaustive search within its bounds (preemptions, weak choices and the
// events asked for; `complete` when every schedule within them ran),
// shrinking a failure to fewer preemptions, replaying it, and the split of
// a search among processes (--jobs) and machines (--shard). What they
// print is the command's (commands/explore.cc).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "config/run_config.h"
#include "explore/controlled.h"
#include "platform/interrupt.h"
#include "registry/registry.h"
#include "run/explore_run.h"

namespace rwstress::explore_search {

using Clock = std::chrono::steady_clock;

// One search's counts and its first failure.
struct Search {
  std::uint64_t schedules = 0;
  std::uint64_t steps = 0;
  bool complete = false;  // exhaustive: every schedule within the bound ran
  std::uint64_t at_bound = 0;  // exhaustive: schedules of the last bound's search
  bool found = false;
  std::uint64_t found_at = 0;  // 1-based schedule number
  ExploredSchedule failure;
  std::uint64_t k = 0;  // PCT's step bound: the longest schedule seen
  std::unordered_set<std::uint64_t> shared_words;  // pct:conflicts: touched by two threads (word_key)
  // --time: the search stops at `deadline` (and says so: `out_of_time`).
  std::optional<Clock::time_point> deadline;
  bool out_of_time = false;
  int bound_done = -1;  // exhaustive: the largest bound whose every schedule ran
  // exhaustive with partial-order reduction: states reached again (the
  // same steps in another order of independent ones, the same budget left
  // or less), whose subtrees were not searched again; at the last bound.
  std::uint64_t reduced = 0;
  std::uint64_t reduced_at_bound = 0;
  // ... and the distinct executions its last bound's schedules ran (a
  // schedule's steps in their happens-before order: what reduction could
  // at best bring the count down to).
  std::uint64_t executions_at_bound = 0;
  // Called with every schedule run (tests: what the search saw).
  std::function<void(const ExploredSchedule&)> observe;
  // A shard of a split search (--jobs, --shard): the schedules it ran
  // that another shard ran too (sampling: the first, unpreempted one;
  // exhaustive: the first schedule of every subtree split off above the
  // split depth), left out of the split search's count; and, under
  // --jobs, the word every shard's failure lowers (sampling: its
  // schedule's index; exhaustive: its bound) and every shard reads: a
  // sampling shard stops past it, an exhaustive one at or past its bound.
  std::uint64_t shared = 0;
  std::uint64_t shared_at_bound = 0;
  int bound = 0;  // exhaustive: the bound being searched
  std::atomic<std::uint64_t>* stop = nullptr;
  bool stopped_at(std::uint64_t key) const {
    return stop != nullptr && stop->load(std::memory_order_relaxed) < key;
  }
  // Whether the search may go on: schedules left, no signal, time left
  // (or fewer than the schedules it runs whatever the time: validate's).
  bool go_on(const RunConfig& cfg) {
    if (schedules >= cfg.explore.schedules || interrupt_signal() != 0) return false;
    if (deadline && Clock::now() >= *deadline && schedules >= cfg.explore.min_schedules)
      out_of_time = true;
    return !out_of_time;
  }
  // Whether any schedule met a need_resched() check (a tick could come)
  // or a signal check: --ticks and --signals change nothing otherwise.
  bool met_tick_check = false;
  bool met_clock_read = false;  // (a time jump could come: --time-jumps)
  bool met_signal_check = false;
  bool met_timed_wait = false;
  bool met_interrupt_offer = false;  // (work was posted for an interrupt: --interrupts)
  // A split search (search_side_by_side) one of whose processes the lock
  // crashed: its handler printed the schedule and its replay line;
  // found_at is that schedule's number, schedules every process's count,
  // crash_code its replay code ("" where the crash was outside a schedule).
  bool crashed = false;
  std::string crash_code;
};

// The scheduler's options every schedule of cfg's search starts from (its
// budgets, clock, memory model, fairness); the strategy is the caller's.
controlled::Options base_options(const RunConfig& cfg);
// Whether cfg's search uses partial-order reduction (exhaustive with
// ",reduce", not --fair).
bool reduces(const RunConfig& cfg);

// What an exhaustive search's schedules take at most, by kind (or, along
// one schedule, what it took).
struct ExhaustiveCounts {
  int preempts = 0, weak = 0, ticks = 0, jumps = 0, signals = 0, wakes = 0, expiries = 0,
      interrupts = 0;
  int largest() const {
    return std::max({preempts, weak, ticks, jumps, signals, wakes, expiries, interrupts});
  }
};
ExhaustiveCounts exhaustive_limits(const RunConfig& cfg);
// What the exhaustive search's bound counts: "2 preemptions and 1 weak choice".
std::string exhaustive_bounds(const RunConfig& cfg);

// The strategy's search, in this process: every schedule within the
// bound, or samples; with cfg.explore.shard_count > 1, shard_index's share.
void search_for(const RunConfig& cfg, const LockEntry& entry, const ExploreShape& shape,
                Search& search);
// --jobs N: the search split among N processes forked here, the
// lowest-numbered failure kept (run again here for its trace). "" or why
// the search is not judged (a shard ended without its result); a shard
// whose lock crashed leaves the search `crashed` (its count, the crash's
// schedule in found_at); one killed otherwise ends this process as it
// ended. N = 1: the search in one process of its own.
std::string search_side_by_side(const RunConfig& cfg, const LockEntry& entry,
                                const ExploreShape& shape, Search& search);

// Whether the failure found may shrink (a sampling search's, with
// preemptions, and --no-shrink not given), and the shrinking: bounded
// schedules with fewer preemptions, the first that fails the same way
// kept; `notes` says what came of it.
bool shrinks(const RunConfig& cfg, const Search& search);
void shrink(const RunConfig& cfg, const LockEntry& entry, const ExploreShape& shape,
            Search& search, std::vector<std::string>& notes);

// Runs a failure's choices `times` times: how many gave its digest and
// verdict again.
int replays_matching(const RunConfig& cfg, const LockEntry& entry, const ExploreShape& shape,
                     const ExploredSchedule& failure, int times);

// A crash in the lock's code under a schedule: the handler prints `what`,
// the schedule and step, and the schedule so far as a replay line
// (`replay_prefix`, the digest, `settings`, the choices), then exits with
// CRASH's code. g_schedule: the schedule's number, as a crash says it.
namespace crash {
extern std::atomic<std::uint64_t> g_schedule;
void arm(const std::string& what, const std::string& replay_prefix, const std::string& settings);
}  // namespace crash

}  // namespace rwstress::explore_search
