// One batch of runs: every lock a RunConfig selects, --repeat times each,
// on a given set of CPUs, with the table rows printed as they finish. The
// main run, each sweep point and each suite test are sessions.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "platform/topology.h"
#include "stress/report.h"
#include "stress/run_config.h"

namespace rwstress {

using PrintFn = std::function<void(const std::string&)>;

struct SessionPoint {
  std::vector<int> cpus;  // the CPUs the runs may use, in placement order
  std::string label;      // copied into each RunResult
  int sweep_cpus = 0;
  bool oversubscribed = false;
};

struct SessionOutcome {
  std::vector<RunResult> runs;
  bool any_hang = false;
  std::string error;  // a run that could not start (binding failed): exit 2
  bool stopped = false;  // --fail-fast stopped at a verdict other than PASS
};

// Runs every selected lock cfg.repeat times; prints each row (and its
// details) through `print` as it finishes; `after_each` (may be empty) sees
// the results so far, to keep files such as --json up to date.
SessionOutcome run_session(const RunConfig& cfg, const Topology& topology,
                           const SessionPoint& point, const PrintFn& print,
                           const std::function<void(const RunResult&)>& after_each = {});

// A report filled by one or more sessions (the main run, a sweep's points,
// a suite's tests): keeps --json current after every run, and ends with
// the other files, the final line and the exit code.
class SessionReport {
 public:
  SessionReport(const RunConfig& cfg, const Topology& topology, std::string kind);

  // Before any run: can every output file be written? "" or why not.
  std::string open();
  // Runs one session into the report. "" or why it could not start.
  std::string run(const RunConfig& cfg, const SessionPoint& point, const PrintFn& print);
  bool stopped() const { return stopped_; }  // --fail-fast stopped a session
  // Writes CSV/JUnit/plots, prints the final line, returns the exit code.
  // After a HANG it leaves through _exit: stuck threads cannot be joined.
  int finish(const PrintFn& print);

  Report report;

 private:
  const Topology& topology_;
  bool any_hang_ = false;
  bool stopped_ = false;
};

// The configuration part of a run that compare matches by.
std::string scenario_key(const RunConfig& cfg, const Scenario& sc, const LockMeta& meta);

// Writes the files a RunConfig asks for besides --json (CSV, JUnit, plots)
// and prints one line per file, or a note where one could not be written.
// Returns false if a file could not be written.
bool write_extra_reports(const Report& report, const PrintFn& print);

// The run seed of repeat `i` (0 keeps the seed itself).
std::uint64_t repeat_seed(std::uint64_t seed, int i);

}  // namespace rwstress
