// rwstress suite NAME: named, documented scenario sets that reproduce the
// historic reports' tables for today's locks (docs/history.md, docs/reports.md).
//   rwsem-test  the 2001 rwsem benchmark: tests rw/ro/wo/r1/w1/r2, SCHED no and yes, two
//               runs each, on the four 2.4.4-era rwsems (+ any --lock).
//   bkl         the 2000 BKL report: a spinning big lock against a semaphore used as a
//               mutex, tiny critical sections, over CPU counts, with context
//               switches, user/sys/idle and time per operation.
#pragma once

#include <string>
#include <vector>

#include "commands/session.h"
#include "config/run_config.h"
#include "platform/topology.h"

namespace rwstress {

struct SuiteInfo {
  const char* name;
  const char* summary;
};
std::vector<SuiteInfo> suites();

// The 2001 rwsem benchmark test set: name, readers, writers, contention.
struct RwsemTest {
  const char* name;
  int readers;
  int writers;
  const char* contention;
};
std::vector<RwsemTest> rwsem_tests();

// The 2001 rwsem benchmark-shaped table over finished runs (labels "rws-rw no", ...):
// one line per environment, test and SCHED, reader and writer op counts of
// each run side by side.
std::vector<std::string> rwsem_test_table(const std::vector<RunResult>& runs,
                                          const std::vector<std::string>& environments,
                                          int runs_per_test);

// The 2001 benchmark's figures as ratios (reads per write under rws-rw;
// each test's operations over rws-r1) beside the same ratios of `runs`.
std::vector<std::string> rwsem_test_history(const std::vector<RunResult>& runs);

// the 2000 BKL report's tables over a finished bkl sweep: vmstat-like columns and time
// per operation split into user, system and idle.
std::vector<std::string> bkl_table(const std::vector<RunResult>& runs);

// Runs suite `cfg.suite`; returns the exit code (2 for an unknown name).
int run_suite(RunConfig cfg, const Topology& topology, const Output& out);

}  // namespace rwstress
