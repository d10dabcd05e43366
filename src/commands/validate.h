// rwstress validate: is this lock ready to port? One battery of scenarios
// per selected lock (the 2001 rwsem benchmark's shapes with and without
// SCHED, overlapping readers, trylock- and downgrade-heavy mixes, semaphore
// counts, oversubscription, one CPU and scattered placement, and the
// injection schedules that open the narrow windows), each run in a child
// process within a time budget; a row per scenario, a final verdict, and
// the replay line of every scenario that did not PASS (docs/plugins.md).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "config/run_config.h"
#include "platform/topology.h"
#include "report/reporter.h"

namespace rwstress {

// One scenario of the battery: what it changes in the user's configuration.
struct ValidateScenario {
  std::string name;  // "rws-rw sched", "inject before-sleep", ...
  int readers = 0;   // rwlocks
  int writers = 0;   // rwlock writers, or the threads of a mutex or a semaphore
  int count = 0;     // semaphores
  bool sched = false;
  std::uint64_t cs_read_loops = 0;
  std::vector<std::string> inject;  // --inject specs, all at once (none: no injection)
  std::uint64_t delay_loops = 0;    // --delay, where not 0 (else the user's)
  unsigned try_every = 16;  // --try-every: 2 makes a trylock- and downgrade-heavy mix
  int killable_every = 4;   // --killable-every (locks with killable entry points)
  int cpus = 0;             // run on the first N of the chosen CPUs (0: all of them)
  Placement placement = Placement::kCompact;
  bool place = false;       // placement overrides the user's
  // A shape where a hand-off lock's broken bound shows (a writer among
  // overlapping readers; contended mutex waiters): for a lock of that
  // class it runs at least kHandoffMinRun, long enough for the
  // bounded-wait judgment (model/verdict.h) to see one wait past its bound.
  bool judges_waits = false;
};

// The battery for a lock of family `f` on `ncpus` CPUs.
std::vector<ValidateScenario> validate_battery(Family f, int ncpus);

// Runs the battery for every lock of cfg.locks within cfg.validate_time
// (shared out evenly, at least kValidateMinRun a scenario). Returns the exit
// code of the worst verdict.
inline constexpr std::chrono::milliseconds kValidateMinRun{200};
int run_validate(const RunConfig& cfg, const Topology& topology, const Output& out);

}  // namespace rwstress
