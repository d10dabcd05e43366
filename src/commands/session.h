// Sessions: one batch of runs is every lock a RunConfig selects, --repeat
// times each, on a given set of CPUs, with the table rows printed as they
// finish. The main run, each sweep point and each suite test are sessions,
// collected into one SessionReport.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/run_config.h"
#include "platform/topology.h"
#include "report/report.h"
#include "report/reporter.h"

namespace rwstress {

struct SessionPoint {
  std::vector<int> cpus;  // the CPUs the runs may use, in placement order
  std::string label;      // copied into each RunResult
  int sweep_cpus = 0;
  bool oversubscribed = false;
};

// A report filled by one or more sessions (the main run, a sweep's points,
// a suite's tests). Each run goes to every reporter the configuration asks
// for (report/reporter.h) as it ends: the console row, and the files'
// spools, so memory and the cost of recording a run stay flat however long
// the session. finish() closes the files, prints the final line and
// returns the exit code.
class SessionReport {
 public:
  SessionReport(const RunConfig& cfg, const Topology& topology, std::string kind,
                PrintFn print);

  // Before any run: can every output file be written? "" or why not.
  std::string open();
  // Runs one session into the report. "" or why a run could not start
  // (binding failed: exit 2).
  std::string run(const RunConfig& cfg, const SessionPoint& point);
  bool stopped() const { return stopped_; }  // --fail-fast stopped a session
  // An output the command wrote itself (a sweep's plots) could not be
  // written: reported with the others by finish().
  void add_error(std::string error) { write_errors_.push_back(std::move(error)); }
  // Finishes every reporter, prints the final line, returns the exit code.
  // After a HANG it leaves through _exit: stuck threads cannot be joined.
  // A report that could not be written, or a standard output that failed,
  // is an error line and at least kWriteErrorExit. After SIGINT/SIGTERM/
  // SIGHUP the code is 128 + the signal, every report marked interrupted.
  int finish();

  Report report;

 private:
  const Topology& topology_;
  const bool keep_runs_;  // something after the last run needs every run (see Report::runs)
  PrintFn print_;
  std::vector<std::unique_ptr<Reporter>> reporters_;
  bool any_hang_ = false;
  bool stopped_ = false;
  std::vector<std::string> write_errors_;
};

// The exit code when a requested report could not be written (as bad input:
// the user's path or disk, not the lock, is at fault).
inline constexpr int kWriteErrorExit = 2;


// The run seed of repeat `i` (0 keeps the seed itself).
std::uint64_t repeat_seed(std::uint64_t seed, int i);

}  // namespace rwstress
