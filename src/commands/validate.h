// rwstress validate: is this lock ready to port? One battery of scenarios
// per selected lock (the 2001 rwsem benchmark's shapes with and without
// SCHED, overlapping readers, trylock- and downgrade-heavy mixes, semaphore
// counts, oversubscription, one CPU and scattered placement, and the
// injection schedules that open the narrow windows), each run in a child
// process within a time budget; a row per scenario, a final verdict, and
// the replay line of every scenario that did not PASS (docs/plugins.md);
// then, for a lock the controlled scheduler sees inside, an exploration
// stage whose failures come with step-for-step replay lines.
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

// The exploration stage's runs (rwstress explore under the controlled
// scheduler, docs/explore.md) for an explorable lock: PCT at depths 1 to 3
// over the family's smallest contended shapes, every schedule with at most
// 2 preemptions at 2 threads, and for a kernel-compat lock with killable
// entry points random schedules where spurious wake-ups are fatal signals;
// every run under the memory model (explore --memory c11).
struct ExploreScenario {
  std::string name;  // "pct:depth=2 2R+1W"
  int readers = 0;   // rwlocks
  int writers = 0;   // rwlock writers, or the threads of a mutex or a semaphore
  int count = 0;     // semaphores
  std::string strategy;  // explore --strategy
  bool signals = false;  // explore --signals
  // The memory model: c11 (its ordering check too) where the lock's
  // accesses feed it, else none; or none, or tso, by name.
  enum class Model { kLocksOwn, kNone, kTso } model = Model::kLocksOwn;
  int interrupts = 0;  // explore --interrupts (a kernel-compat glue's handler work)
};
std::vector<ExploreScenario> explore_battery(const LockMeta& meta);

// Runs the battery for every lock of cfg.locks within cfg.validate_time
// (shared out evenly, at least kValidateMinRun a scenario), then, unless
// cfg.validate_explore is off, the exploration stage of each explorable
// lock (cfg.validate_explore_schedules schedules a run). Returns the exit
// code of the worst verdict.
inline constexpr std::chrono::milliseconds kValidateMinRun{200};
int run_validate(const RunConfig& cfg, const Topology& topology, const Output& out);

}  // namespace rwstress
