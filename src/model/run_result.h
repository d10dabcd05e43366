// What one run produced: a plain struct that the reporters only format.
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "injectors/inject_spec.h"
#include "model/lock_traits.h"
#include "model/lockstat.h"

namespace rwstress {

// In order of severity. kInterrupted: a signal cut the run (or the
// session) short before anything worse was seen, so nothing was judged
// in full; it is never reported as PASS.
enum class Verdict { kPass, kInterrupted, kStarved, kFail, kHang, kCrash };
inline constexpr int kVerdictCount = 6;

const char* verdict_name(Verdict v);
int exit_code_of(Verdict v);  // kInterrupted: 130 (the process exits 128 + its signal)
Verdict worse(Verdict a, Verdict b);  // the one with the higher severity
inline std::ostream& operator<<(std::ostream& os, Verdict v) { return os << verdict_name(v); }

// kHolder: a thread of an exclusive family (mutex, semaphore) doing
// lock/unlock or down/up. Holders are counted on the writer side.
enum class Role { kReader, kWriter, kHolder };
const char* role_name(Role r);

enum class ViolationKind {
  kWriterExclusion,  // a writer inside together with another writer or readers
  kReaderExclusion,  // a reader inside together with a writer
  kTornRecord,       // the protected record was seen half-written
  kTrylockTruth,     // a trylock lied, or a failed one changed the lock
  kDowngrade,        // after downgrade_write a writer got in, or readers could not
  kFinalState,       // the lock was not free after every thread left
  kSemaphoreBound,   // more holders inside than the semaphore's count
  kSemaphoreCount,   // the count was not restored after every thread left
  kLostWakeup,       // a waiter the contract says must be admitted was left waiting
  kLockWarning,      // the lock's own WARN_ON/BUG_ON/lockdep check fired (kernel-compat layer)
  kOrdering,         // explore --memory c11: a holder not ordered after the last write hold
  kNotIdle,          // a field of the lock not back at rest after every thread left
  kPreference,       // an admission the lock's fairness class forbids
  kSpinBound,        // a spinner took a turn past the bound its lock declared
  kHandoffStarved,   // explore --fair: a hand-off lock's waiter overtaken past the bound (STARVED)
  kLockOrder,        // a cycle among the kernel-compat layer's lock classes (lockdep's graph)
  kAcquireLimit,     // --acq-writer-lim: a write acquisition waited past the limit
};
inline constexpr int kViolationKindCount = 17;
const char* violation_kind_name(ViolationKind k);
inline std::ostream& operator<<(std::ostream& os, ViolationKind k) {
  return os << violation_kind_name(k);
}

// Violation::thread for the checks that are not a worker.
inline constexpr int kProbeThread = -1;       // the semantics probe, before the run
inline constexpr int kAfterRunThread = -2;    // the final-state checks, after every worker left

struct Violation {
  ViolationKind kind;
  int thread;  // worker index, kProbeThread or kAfterRunThread
  std::string detail;
};
// "thread 3", "semantics probe" or "after-run check".
std::string violation_source(int thread);

struct ThreadResult {
  Role role = Role::kReader;
  int cpu = -1;
  std::uint64_t ops = 0;
  std::uint64_t trylock_attempts = 0;
  std::uint64_t trylock_failures = 0;
  std::uint64_t downgrades = 0;
  std::uint64_t reader_overlaps = 0;  // read acquisitions that found another reader inside
  int max_readers_seen = 0;           // most readers inside at once, as seen on entry
  // getrusage(RUSAGE_THREAD) over the measured loop (start flag to stop).
  double user_s = 0;
  double sys_s = 0;
  std::uint64_t voluntary_csw = 0;    // the thread blocked (futex sleep, nanosleep)
  std::uint64_t involuntary_csw = 0;  // the scheduler preempted it
  // Over the same span: wall time, and (from schedstat; -1 where the kernel
  // does not keep it) time on a CPU and time runnable but waiting for one.
  double wall_s = 0;
  double on_cpu_s = -1;
  double runq_wait_s = -1;
  // --inject: per spec and point, how often the injector fired and how
  // often the point was visited (empty without injection).
  std::vector<std::array<std::uint64_t, kInjectPointCount>> inject_fired, inject_visits;
  // --inject: time paused by the injector while holding or releasing the
  // lock (ThreadInjector::holding_pause_ns); 0 without injection.
  double injected_holding_s = 0;
  LockStat lockstat;  // --lockstat / --hist: this thread's acquisitions
  // --rt-threads / --writer-fifo: it ran SCHED_FIFO (as it found its own
  // policy once set), and how often the real-time guard took it off
  // SCHED_FIFO for a while (rt_guard.h).
  bool rt = false;
  std::uint64_t rt_throttled = 0;
  // --nested-locks: the nested locks it took (family_run.h, NestedLock),
  // and the wall time it spent taking them (waiting for the other holders).
  std::uint64_t nested = 0;
  double nested_wait_s = 0;
};

// One injector's firing count at one point, over a run.
struct InjectionCount {
  std::string spec;   // canonical form
  std::string point;  // a point name, or "timer" for the global injectors
  std::uint64_t fired = 0;
  std::uint64_t visits = 0;  // 0 for "timer"
};

struct RunResult {
  // Which scenario this was: the configuration that compare matches runs
  // by (lock, shape, sched, CPUs, work, knobs, injection; never the seed),
  // the run's own seed, and which of --repeat N it was (0-based).
  std::string scenario_key;
  std::string label;  // suite test name ("rws-rw") or sweep point ("4 CPUs compact"), else ""
  std::uint64_t seed = 0;
  int repeat = 0;
  std::string placement;
  int sweep_cpus = 0;          // sweep: the CPU count of this point (0 outside a sweep)
  bool oversubscribed = false;  // sweep --beyond oversubscribe: fewer CPUs than the point names
  std::string lock;
  Family family = Family::kRwlock;
  Fairness fairness = Fairness::kTaskFair;
  int readers = 0;
  int writers = 0;  // for a mutex or a semaphore: the threads doing lock/unlock or down/up
  int count = 0;    // a semaphore's initial count; 0 for other families
  bool spins = false;  // the lock's waiters spin (LockMeta caps.spins)
  bool sched = false;
  bool checked = true;  // false under --no-check: no checker ran, nothing counted overlaps
  std::vector<int> cpus;
  double duration_s = 0;  // measured, start flag to stop flag
  std::vector<ThreadResult> threads;

  std::uint64_t reads = 0;
  std::uint64_t writes = 0;
  std::uint64_t min_thread_ops = 0;
  std::uint64_t max_thread_ops = 0;
  double jain_readers = -1;  // -1: not applicable (no threads of that role)
  double jain_writers = -1;
  int max_readers_seen = 0;

  // System figures (the 2000 BKL report), summed over the workers: CPU time, context
  // switches, and the idle share of the CPUs the run used.
  double user_s = 0;
  double sys_s = 0;
  std::uint64_t voluntary_csw = 0;
  std::uint64_t involuntary_csw = 0;
  double idle_share = 0;  // 1 - (user + sys) / (duration * CPUs used), clamped to [0, 1]
  // Every program's busy time on the run's CPUs during the run (/proc/stat,
  // 10 ms resolution per CPU); -1 where it could not be read.
  double cpus_busy_s = -1;
  // The share of the run's CPU time that other programs took: (cpus_busy_s
  // - user - sys) / (duration * CPUs used), in [0, 1]; -1 if unknown.
  double others_share = -1;
  // The threads' injected_holding_s summed: how long injected pauses kept
  // the lock held. Above kInjectedHoldingShare of the run, starvation is
  // reported but not judged (model/verdict.h).
  double injected_holding_s = 0;

  std::uint64_t violation_count = 0;
  std::uint64_t violations_by_kind[kViolationKindCount] = {};
  std::vector<Violation> first_violations;  // the first few of each kind, in the order seen

  // A hand-off lock's waits that outlasted its bound (run_driver.cc), seen
  // while the run went on; summarize_run judges them.
  struct LongWait {
    int thread = 0;
    Role role = Role::kReader;
    std::string phase;         // down_write, lock/down, ...
    double waited_s = 0;       // the wait so far, when it was seen
    double judged_s = 0;       // the part since the mark, less its time in a run queue
    std::uint64_t others = 0;  // the other threads' operations since the mark
  };
  std::vector<LongWait> long_waits;

  std::vector<std::string> starved;  // "thread 4 (writer): 12 ops, 0.001% of the mean"
  int starved_by_cause[4] = {};      // indexed by StarvationCause (model/verdict.h)
  int starved_judged = 0;  // the first lines of `starved`: those a STARVED verdict rests on
  std::vector<std::string> notes;
  std::vector<std::string> hang_report;  // one line per thread when HANG
  std::string error;                     // a run that could not start (binding failed)
  std::string known_issue;                 // the lock's known library bug, if any
  std::vector<InjectionCount> injections;  // --inject firing counts
  int stuck_threads = 0;  // HANG: workers never joined (their counts are not in the totals)
  std::uint64_t schedule_digest = 0;       // --inject: see src/injectors/injection.h

  // --lockstat / --hist: the workers' acquisitions merged (empty otherwise),
  // and the clock that timed them.
  bool measured = false;
  LockStat lockstat;
  std::string clock;  // ClockCalibration::describe()
  double clock_overhead_ns = 0;

  Verdict verdict = Verdict::kPass;
  bool interrupted = false;  // SIGINT/SIGTERM/SIGHUP cut this run short
  // --fail-fast: the first violation stopped the run. It decides the
  // verdict (FAIL) even when a thread then cannot leave the lock.
  bool stopped_at_violation = false;

  double ops_per_s() const { return duration_s > 0 ? double(reads + writes) / duration_s : 0; }
};

}  // namespace rwstress
