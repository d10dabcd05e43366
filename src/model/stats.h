// Small pure statistics over per-thread results (the verdict rule that
// uses them is model/verdict.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/run_result.h"

namespace rwstress {

// Jain's fairness index (sum x)^2 / (n * sum x^2): 1 when all equal, 1/n
// when one thread got everything. Returns -1 for no values, 1 when all are 0.
double jain_index(const std::vector<std::uint64_t>& values);

// How many different CPUs a run's threads were pinned to.
int distinct_cpus(const std::vector<int>& cpus);

// The share of `cpus` CPUs over `duration_s` that `busy_s` seconds of CPU
// time left idle, in [0, 1] (0 when there is nothing to divide by).
double idle_share(double busy_s, double duration_s, int cpus);

}  // namespace rwstress
