// rwstress explore: a lock's threads under the controlled scheduler
// (platform/controlled.h), schedule after schedule, by a strategy (random,
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
#include "report/reporter.h"

namespace rwstress {

// The most threads a controlled run takes (a decision keeps one bit each).
inline constexpr int kExploreMaxThreads = 64;
// The optimistic spinners' turn limit under explore unless --spin-limit is
// given: each turn is a step, and a spinner's turns only postpone its sleep.
inline constexpr int kExploreSpinLimit = 8;

// "random", "pct", "pct:depth=D", "exhaustive", "exhaustive:preemptions=C"
// into cfg.explore; "" or one line saying what is wrong.
std::string parse_explore_strategy(const std::string& text, RunConfig::Explore* out);

// A schedule's choices as the replay code "DIGEST:T[xN].T[xN]..." (the
// thread of each step, run-length encoded, after the trace digest), and
// back; "" or one line saying what is wrong with a code.
std::string encode_replay(std::uint64_t digest, const std::vector<int>& choices);
std::string decode_replay(const std::string& code, std::uint64_t* digest,
                          std::vector<int>* choices);

// Explores every lock of cfg.locks; returns the exit code of the worst
// verdict (2 when a --replay code does not replay on this lock and shape).
int run_explore(const RunConfig& cfg, const Output& out);

}  // namespace rwstress
