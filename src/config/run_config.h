// The whole invocation's typed configuration, parsed once by the CLI.
// Nothing downstream compares option strings.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/run_result.h"
#include "model/scenario.h"
#include "platform/duration.h"
#include "platform/topology.h"

namespace rwstress {

inline constexpr int kMaxThreads = 4096;

// --cpus: a count ("4": the first four CPUs of the placement order) or a list
// ("0-3,8"). Neither: every CPU the process may use.
struct CpuSpec {
  int count = 0;
  std::vector<int> list;

  bool all() const { return count == 0 && list.empty(); }
  std::string describe() const;
};

// explore --memory: no model (sequentially consistent), C11's
// release/acquire, x86's store buffers (docs/explore.md, "Memory models").
enum class ExploreMemory : std::uint8_t { kSc, kC11, kTso };
inline const char* memory_name(ExploreMemory m) {
  return m == ExploreMemory::kC11 ? "c11" : m == ExploreMemory::kTso ? "tso" : "sc";
}

struct RunConfig {
  std::vector<std::string> plugins;  // --plugin PATH, in the order given
  std::string lock_spec = "rwlock";
  std::vector<const LockMeta*> locks;  // from select_locks (registry/registry.h)
  int readers = 4;
  int writers = 2;
  int threads = 4;  // semaphore and mutex runs: --threads, or --writers when given
  int count = 2;    // semaphore runs: initial count
  LockTuning tuning;
  InjectionPlan injection;  // --inject, in the order given
  bool sched = false;
  int rt_threads = 0;        // --rt-threads N: the last N threads SCHED_FIFO (Scenario::rt_threads)
  bool writer_fifo = false;  // --writer-fifo: every writer SCHED_FIFO
  int nested_locks = 0;      // --nested-locks N (Scenario::nested_locks)
  std::chrono::nanoseconds duration = std::chrono::seconds(4);
  CpuSpec cpus;
  Placement placement = Placement::kCompact;
  std::uint64_t cs_read_loops = 0;
  unsigned try_every = 16;  // --try-every: a power of two (Scenario::try_mask)
  int killable_every = 4;   // --killable-every (Scenario::killable_every)
  std::uint64_t cs_write_loops = 0;
  std::uint64_t delay_loops = 0;
  std::uint64_t seed = 0;
  std::chrono::nanoseconds watchdog = std::chrono::seconds(10);
  bool fail_fast = false;
  bool verbose = false;
  bool rusage = false;  // print the 2000 BKL report system figures under each row
  std::string json_path;
  bool selftest_short = false;  // rwstress selftest --short
  MeasureSpec measure;          // --lockstat, --hist
  bool check = true;            // --no-check: no checker in the loop
  int repeat = 1;               // --repeat N: each lock's run N times
  std::string csv_path;         // --csv PATH
  std::string junit_path;       // --junit PATH
  std::string plot_prefix;      // --plot PREFIX: PREFIX-*.svg and .png through gnuplot
  // rwstress sweep: CPU counts and placements to run the scenario over.
  std::vector<int> sweep_cpus;
  std::vector<Placement> sweep_placements;
  bool sweep_oversubscribe = false;  // sweep --beyond oversubscribe
  std::string suite;                       // rwstress suite NAME
  std::chrono::nanoseconds validate_time = std::chrono::minutes(2);  // validate --time
  bool validate_explore = true;                   // validate --no-explore turns it off
  std::uint64_t validate_explore_schedules = 1000;  // validate --explore-schedules: per run
  // validate --explore-time: the exploration stage's budget per lock (on
  // top of --time); 0: a quarter of validate_time.
  std::chrono::nanoseconds validate_explore_time{0};
  // rwstress fuzz (src/commands/fuzz.h, docs/fuzzing.md).
  struct Fuzz {
    std::chrono::nanoseconds time = std::chrono::minutes(10);  // --time: the campaign's budget
    std::uint64_t trials = 0;                                   // --trials: 0 = until the budget
    std::chrono::nanoseconds trial_time = std::chrono::milliseconds(500);  // --trial-time
    std::string out_dir;           // --out DIR: trials.jsonl and repro-N.sh
    bool stop_on_failure = false;  // --stop-on-failure
    int dry_run = 0;               // --dry-run N: print the first N trials' command lines
    int jobs = 0;                  // --jobs N: trials side by side; 0: one per 4 CPUs
    int shard_index = 0, shard_count = 1;  // --shard i/N: trials k with k mod N == i
    std::string resume;                    // --resume DIR
    std::vector<std::string> merge;        // fuzz merge DIR...
    int reproduce = 5;                     // --reproduce K: reruns per finding (0: none)
    std::chrono::nanoseconds shrink_time = std::chrono::minutes(1);  // --shrink-time, per finding
    std::uint64_t trial_memory = 0;        // --trial-memory: RLIMIT_AS bytes; 0: none
    std::uint64_t trial_cpu = 0;           // --trial-cpu: RLIMIT_CPU seconds; 0: none
    // --explore-share: the share of the trials that are controlled ones
    // (rwstress explore, a few hundred schedules, over the explorable
    // locks), added between the timed trials.
    double explore_share = 0.25;
    std::vector<std::string> argv;         // the campaign's own command line (for --resume)
  } fuzz;
  // rwstress kernel (src/commands/kernel.h, docs/plugins.md).
  struct Kernel {
    std::string source;                 // --source DIR: a kernel tree
    std::string version;                // --version 6.18 or 6.18.15: fetched from Debian
    std::vector<std::string> patches;   // --patch FILE, applied in order with patch -p1
    std::vector<std::string> files;     // --files: rwsem, mutex, semaphore, qrwlock
    std::vector<std::pair<std::string, bool>> config;  // --config RWSEM_SPIN_ON_OWNER=y,...
    std::chrono::nanoseconds time = std::chrono::minutes(1);  // --time: validate's per lock
    std::string cache_dir;              // --cache DIR; "" = $XDG_CACHE_HOME/rwstress/kernel
    bool explore = false;               // --explore: the explore build, explored (docs/explore.md)
    // --explore-time: what each lock's exploration portfolio may spend
    // (commands/kernel.cc explore_portfolio); --explore-schedules N instead
    // runs each entry of it once, N schedules (0: not given).
    std::chrono::nanoseconds explore_time = std::chrono::minutes(3);
    std::uint64_t explore_schedules = 0;
    bool validate = true;               // --no-validate (with --explore): explore only
  } kernel;
  // rwstress explore (src/commands/explore.h, docs/explore.md).
  struct Explore {
    std::string strategy_text = "pct:depth=3";  // --strategy, as given
    bool exhaustive = false;        // exhaustive[:preemptions=C]
    bool pct = true;                // pct[:depth=D]; neither: random
    int depth = 3;                  // PCT's D
    bool conflicts = false;         // pct:conflicts: conflict-guided PCT
    int preemptions = 2;            // exhaustive's bound C
    bool reduce = false;            // exhaustive:...,reduce: partial-order reduction
    std::uint64_t schedules = 1000;  // --schedules: at most this many
    std::uint64_t min_schedules = 0;  // and at least this many before --time stops it (validate)
    std::uint64_t time_ns = 0;       // --time: and for at most this long (0: no limit)
    std::string outcome_path;        // --outcome FILE: the search's result as JSON
    std::string trace_json_path;     // --trace-json FILE: failing schedules as Chrome trace events
    int ops = 2;                     // --ops: operations per thread
    std::string replay;              // --replay DIGEST:CHOICES
    std::uint64_t step_ns = 1000;    // --step-time: the run's clock per step
    std::uint64_t max_steps = 200000;  // --max-steps: a longer schedule is a livelock
    int trace_steps = 40;            // --trace N: steps printed before a failure
    int replays = 10;                // --replays N: reruns that check a failure replays
    bool shrink = true;              // --no-shrink turns it off
    // --spurious-wakes and --ticks (need_resched() ticks), per schedule;
    // -1 (not given): 2 for random and pct, 0 for exhaustive, whose search
    // branches on every one offered and takes them only where asked.
    // --expiries (timed waits whose timeout is chosen to expire) likewise.
    int spurious_wakes = -1;
    int ticks = -1;
    int expiries = -1;
    int spurious_budget() const { return spurious_wakes >= 0 ? spurious_wakes : exhaustive ? 0 : 2; }
    int tick_budget() const { return ticks >= 0 ? ticks : exhaustive ? 0 : 2; }
    int expiry_budget() const { return expiries >= 0 ? expiries : exhaustive ? 0 : 2; }
    // --time-jumps: time jumps a schedule may make at the lock's clock
    // reads (the kernel-compat layer's jiffies, sched_clock(); an in-tree
    // lock's lock_clock_now()), each a
    // choice, --time-jump each (controlled.h Options::time_jumps); 0: none
    // (exhaustive: with N > 0, every one offered is searched, N along a
    // schedule at most).
    int time_jumps = 0;
    // --interrupts: interrupts a schedule may choose to deliver where one
    // changes what the code computes (controlled.h Options::interrupts);
    // 0: none, and the kernel layer runs what a glue gives an interrupt
    // handler in task context (exhaustive: every one offered is searched,
    // N along a schedule at most).
    int interrupts = 0;
    // --virtual-cpus K, --rt-threads N: the threads on K CPUs, the last N
    // real-time (controlled.h Options::virtual_cpus, rt_threads); 0: a
    // CPU each, none real-time. Part of a schedule's shape (replay lines).
    int virtual_cpus = 0;
    int rt_threads = 0;
    std::uint64_t time_jump_ns = 20'000'000;
    bool signals = false;            // --signals: a spurious wake of a killable sleep kills
    // --fair: schedules fair within a bound (controlled.h
    // Options::fair_turns), and a hand-off lock's waiters judged for
    // starvation (run/explore_run.h handoff_overtaken); random and pct.
    bool fair = false;
    std::uint64_t handoff_after_ns = 8'000'000;  // --handoff-after (ExploreShape::handoff_after_ns)
    ExploreMemory memory = ExploreMemory::kSc;  // --memory sc|c11|tso
    int stale_reads = 4;             // --stale-reads: weak choices a schedule may make (older values, early stores)
    // --jobs N: the search split among N forked processes side by side
    // (explore.cc search_side_by_side); --shard i/N: this process's share
    // of a search split among N machines (sampling: the schedules k with
    // k mod N == i; exhaustive: the subtrees below the split depth whose
    // number mod N is i). Both at once: shard i + N*j of N*jobs.
    int jobs = 1;
    int shard_index = 0, shard_count = 1;
    std::vector<std::string> merge;  // explore merge FILE...: the shards' --outcome files
  } explore;
  bool lock_given = false;                 // --lock was on the command line
  bool duration_given = false;             // --duration was on the command line
  std::string compare_a, compare_b;        // rwstress compare A B
  double compare_alpha = 0.05;             // significance level of compare
  std::vector<std::string> compare_ignore;  // compare --ignore: key parts not matched

  bool selects(Family f) const;

  // The scenario of one lock: its family's thread roles, everything else
  // shared. The placement plan is the caller's.
  Scenario scenario_for(const LockMeta& meta) const;
  int threads_for(Family f) const { return f == Family::kRwlock ? readers + writers : threads; }
  // Where the runs go: the CPUs of --cpus/--ncpus in placement order, or all
  // of them. Throws TopologyError for a CPU this process may not use.
  std::vector<int> chosen_cpus(const Topology& topology) const;

  // The command line that replays this run: every effective option, the CPUs
  // actually used, and the seed.
  std::string describe(const PlacementPlan& plan) const;
};


// "4" is a count; "0-3,8", "5," and "2-2" are lists. Returns nullopt and
// sets *error on anything else.
std::optional<CpuSpec> parse_cpu_spec(const std::string& text, std::string* error);

// "a,b,,c" -> {"a", "b", "", "c"}: empty parts kept, for the caller to reject.
// `text` as one word of a POSIX shell command line (quoted where needed).
std::string shell_word(const std::string& text);

std::vector<std::string> split_list(const std::string& text, char sep);

// "i/N" with 0 <= i < N (fuzz's and explore's --shard, an outcome's
// "shard"): false when it is not.
bool parse_shard(const std::string& text, int* index, int* count);

// sweep --cpus: "1,2,4,8", "1..8" (every count), "1..16x2" (doubling), or
// a mix ("1,2..4"). Sorted, without duplicates.
std::optional<std::vector<int>> parse_cpu_counts(const std::string& text, std::string* error);

// "compact", "scatter", "smt", or a comma list of them.
std::optional<std::vector<Placement>> parse_placements(const std::string& text,
                                                       std::string* error);


// The configuration part of run `r` of scenario `sc` that compare matches
// by: lock, shape, SCHED, CPU count, work, knobs, injection, no-check.
std::string scenario_key(const RunConfig& cfg, const Scenario& sc, const RunResult& r);
// The names of the key's parts that compare --ignore can leave out.
std::vector<std::string> scenario_key_parts();
// The key without the named parts (compare --ignore): the first word is the
// lock, the second the shape (always kept), the rest NAME=VALUE or a flag.
std::string scenario_key_without(const std::string& key, const std::vector<std::string>& parts);

}  // namespace rwstress
