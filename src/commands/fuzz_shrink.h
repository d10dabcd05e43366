// A finding's reproduction rate and its shrunk reproducer (fuzz
// --reproduce K, --shrink-time D): the first failing trial's command line is
// run again K times; then, greedily, each smaller variant of it — a shorter
// duration, one injector or knob or --sched fewer, fewer threads, CPUs,
// shorter critical sections and delays, default trylock rate and placement —
// is kept when it still fails the same way in at least one of K runs. A
// timing bug fails only sometimes, so "still fails" is "failed in one of K",
// and the rates say how often.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "commands/fuzz_child.h"
#include "commands/fuzz_log.h"

namespace rwstress {

// The variants of a trial's argv one step smaller, most promising first.
std::vector<std::vector<std::string>> shrink_candidates(const std::vector<std::string>& argv);

struct ShrinkOptions {
  int reruns = 5;                                 // K
  std::chrono::nanoseconds budget = std::chrono::seconds(60);  // shrinking's, per finding; 0: none
  // Nothing is started that would end past this (fuzz --time's share for
  // this finding): reruns stop, shrinking stops early, and the check says
  // it was cut short.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

// Reruns and shrinks the failure of `trial` (its verdict and kinds); `say`
// hears one line per step kept.
FindingCheck check_finding(const std::string& exe, const TrialRecord& trial,
                           const TrialLimits& limits, const ShrinkOptions& options,
                           const std::function<void(const std::string&)>& say);

}  // namespace rwstress
