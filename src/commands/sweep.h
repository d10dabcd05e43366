// rwstress sweep: one scenario over CPU counts and placements (the 2000 BKL report's
// 4-way -> 8-way table): throughput per count, scaling against the smallest
// count, and the linear-scaling column. Thread counts are per CPU.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "commands/session.h"
#include "config/run_config.h"
#include "platform/topology.h"
#include "report/report.h"

namespace rwstress {

// A point the machine could not run as asked.
struct SweepSkip {
  std::string placement;
  int cpus = 0;
  std::string why;
};

// The tables of a finished sweep: one per lock and placement, then the locks
// side by side per placement when there are several. Runs of the same point
// (--repeat) are averaged.
std::vector<std::string> sweep_tables(const std::vector<RunResult>& runs,
                                      const std::vector<std::string>& locks,
                                      const std::vector<int>& counts,
                                      const std::vector<std::string>& placements,
                                      const std::vector<SweepSkip>& skipped);

// PREFIX-sweep-PLACEMENT.{dat,gp,svg,png}: ops/s per CPU count per lock,
// with each lock's linear-scaling line.
PlotOutput write_sweep_plots(const std::vector<RunResult>& runs,
                                           const std::vector<std::string>& locks,
                                           const std::vector<std::string>& placements,
                                           const std::string& prefix);

// Runs the sweep and prints it; returns the exit code.
// `extra` (may be empty) adds tables after the sweep's own (suite bkl).
using ExtraTables = std::function<std::vector<std::string>(const std::vector<RunResult>&)>;
int run_sweep(const RunConfig& cfg, const Topology& topology, const Output& out,
              const std::string& kind = "sweep", const ExtraTables& extra = {});

}  // namespace rwstress
