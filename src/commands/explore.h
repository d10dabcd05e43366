// rwstress explore: a lock's threads under the controlled scheduler
// (explore/controlled.h), schedule after schedule, by a strategy (random,
// PCT, or every schedule within a preemption bound), with the checkers
// every run uses and exact deadlock and livelock. A failing schedule is
// shrunk to fewer preemptions where one still fails, printed as its last
// steps, replayed to check that it reproduces step for step, and given a
// replay line (docs/explore.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/run_config.h"
#include "model/run_result.h"
#include "report/reporter.h"

namespace rwstress {

struct ExploredSchedule;  // run/explore_run.h
struct ExploreShape;

// The most threads a controlled run takes (a decision keeps one bit each).
inline constexpr int kExploreMaxThreads = 64;
// The optimistic spinners' turn limit under explore unless --spin-limit is
// given: each turn is a step, and a spinner's turns only postpone its sleep.
inline constexpr int kExploreSpinLimit = 8;
// The weak choices (--stale-reads) a schedule of validate's and `kernel
// --explore`'s exhaustive searches takes under a memory model: with more,
// few locks complete within their budgets (docs/explore.md).
inline constexpr int kExhaustiveStaleReads = 1;

// "random", "pct", "pct:depth=D", "exhaustive", "exhaustive:preemptions=C"
// into cfg.explore; "" or one line saying what is wrong.
std::string parse_explore_strategy(const std::string& text, RunConfig::Explore* out);

// What a recorded schedule means beyond its lock, shape and choices: the
// memory model its loads and stores were judged under and whether its
// signal checks deliver fatal signals. The budgets (--stale-reads,
// --ticks, --spurious-wakes) bound what a search may choose; a replay takes
// exactly the events its choices record, so they are not part of it.
// Whether time could jump at its clock reads (--time-jumps) is part of it
// too: where it could not, a clock read does not claim its step's event,
// and a tick later in that step may come.
struct ReplaySettings {
  ExploreMemory memory = ExploreMemory::kSc;
  bool signals = false;
  bool jumps = false;
  bool interrupts = false;  // the run took interrupts: work was posted for them (--interrupts)
  // Fair within a bound (--fair): the schedule's forced turns are in its
  // choices, but whether a hand-off lock's waiters are judged is not.
  bool fair = false;
  bool operator==(const ReplaySettings&) const = default;
};
ReplaySettings replay_settings(const RunConfig::Explore& x);
std::string replay_settings_text(const ReplaySettings& s);  // "sc", "c11+signals+jumps+fair"

// A schedule's choices as the replay code "DIGEST:SETTINGS:T[xN].T[xN]..."
// (the trace digest, the settings, the thread of each step run-length
// encoded), and back; "" or one line saying what is wrong with a code.
std::string encode_replay(std::uint64_t digest, const ReplaySettings& settings,
                          const std::vector<int>& choices);
std::string decode_replay(const std::string& code, std::uint64_t* digest,
                          ReplaySettings* settings, std::vector<int>* choices);

// Explores every lock of cfg.locks; returns the exit code of the worst
// verdict (2 when a --replay code does not replay on this lock and shape).
int run_explore(const RunConfig& cfg, const Output& out);

// Why `meta` cannot be explored, as the end of a sentence; "" when it can.
std::string why_not_explorable(const LockMeta& meta);

// `base` set to explore `meta` alone at a shape (readers, writers or
// threads, a semaphore's count where > 0): no injectors, explore's spin
// limit, the default strategy and budget (validate's stage and selftest
// set what they need on it).
RunConfig explore_config(RunConfig base, const LockMeta& meta, int readers, int writers, int count);

// One search of one lock at cfg's shape and strategy, told as a row rather
// than printed (validate's exploration stage): a failure is shrunk as
// explore shrinks it and comes with its replay command.
struct ExploreOutcome {
  Verdict verdict = Verdict::kPass;
  std::uint64_t schedules = 0;  // run
  std::uint64_t found_at = 0;   // 1-based schedule of the first failure, 0: none
  bool complete = false;        // exhaustive: every schedule within the bound ran
  std::uint64_t complete_schedules = 0;  // the last bound's schedules, when complete
  double seconds = 0;
  std::string finding;  // a failure's first finding line
  std::string replay;   // a failure's command after "rwstress ", with --replay CODE
};
ExploreOutcome explore_quietly(const RunConfig& cfg, const LockMeta& meta);

// The explore command (after "rwstress ") that runs cfg's search of `meta`
// again: the same schedules in the same order, the same first failure.
std::string explore_command(const RunConfig& cfg, const LockMeta& meta);

}  // namespace rwstress
