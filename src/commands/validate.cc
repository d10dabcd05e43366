#include "commands/validate.h"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "commands/explore.h"
#include "commands/isolated.h"
#include "commands/suite.h"
#include "injectors/inject_spec.h"
#include "model/verdict.h"
#include "model/version.h"
#include "platform/duration.h"
#include "platform/interrupt.h"
#include "registry/registry.h"
#include "report/report.h"

namespace rwstress {

namespace {

// The schedules that open the windows the busted zoo needs (selftest), and
// the ones that preempt a holder or a waiter in the worst place.
// The lock points (before-sleep ... spurious-wake) are visited only by a
// lock with hooks (an in-tree lock); a plugin or library lock gets the
// worker-loop ones.
struct Schedule {
  const char* name;
  const char* spec;
};
const Schedule kSchedules[] = {
    {"inject before-sleep", "sleep@before-sleep:fixed(200us)"},
    {"inject after-enqueue", "delay@after-enqueue+mid-release:p=0.01,fixed(20us)"},
    {"inject before-wake", "sleep@before-wake:p=0.01,fixed(100us)"},
    {"inject spurious-wake", "spurious-wake:p=0.25"},
    {"inject holder preempted", "sleep@in-cs:p=0.001,fixed(5ms)"},
    {"inject yield in-cs", "yield@in-cs:p=0.01"},
    {"inject stall", "stall@in-cs+before-release:p=0.0001,fixed(20ms)"},
    {"inject stutter", "stutter:every=200ms,for=20ms"},
    // A kernel-compat plugin's killable and interruptible waits bail out
    // (out_nolock paths); nothing for other locks.
    {"inject signal", "signal:p=0.25"},
    // need_resched() says yes at a kernel-compat plugin's checks: its
    // optimistic spinners stop and sleep; nothing for other locks.
    {"inject resched", "resched:p=0.05"},
};

// Conditions at once, in the shapes that kernel lock bugs have needed: a
// lost wake-up that needs two writers, spurious wake-ups and a pause in
// the middle of a release (rwsem's 2019 wake-up reworks); a waiter killed
// while its wake-up is in flight (the out_nolock paths); an optimistic
// spinner told to reschedule while the owner is preempted; every thread on
// one CPU with the enqueue and release windows held open. Each runs at the
// shape given, with every spec injected at once.
struct Combination {
  const char* name;
  int readers;  // rwlocks; the other families run readers + writers threads
  int writers;
  bool one_cpu;
  std::vector<const char*> specs;
  int killable_every = 4;  // --killable-every (kernel-compat locks with killable paths)
};
const Combination kCombinations[] = {
    {"2W spurious+mid-release", 2, 2, false,
     {"spurious-wake:p=0.25", "delay@mid-release:p=0.05,fixed(20us)"}},
    {"spurious+release+wake", 4, 2, false,
     {"spurious-wake:p=0.1", "delay@mid-release+before-wake:p=0.02,fixed(50us)"}},
    {"signal+before-wake", 4, 2, false,
     {"signal:p=0.25", "sleep@before-wake:p=0.01,fixed(100us)"}},
    {"2W signal+spurious", 2, 2, false, {"signal:p=0.25", "spurious-wake:p=0.25"}},
    // A killed waiter slow off the mark after its wake-up (the unlock's wake
    // was for it): the holder releases and queues behind it before it
    // leaves, so a bail-out path that does not pass the wake-up on leaves
    // the lock free and the holder asleep (rwsem.c's out_nolock class).
    // Every acquisition killable.
    {"killed after wake", 1, 1, false,
     {"signal:p=0.5", "delay@after-wake:p=0.5,fixed(500us)"}, 1},
    // The same with the pause where the waiter has decided under the wait
    // lock and not acted yet (a failed trylock, then the signal check).
    {"killed mid-decision", 2, 1, false,
     {"signal:p=0.25", "delay@wait-unlock:p=0.1,fixed(100us)"}, 1},
    {"resched+holder preempted", 4, 2, false,
     {"resched:p=0.05", "sleep@in-cs:p=0.001,fixed(5ms)"}},
    {"1 CPU enqueue+spurious", 4, 2, true,
     {"delay@after-enqueue+mid-release:p=0.01,fixed(20us)", "spurious-wake:p=0.25"}},
};

}  // namespace

std::vector<ValidateScenario> validate_battery(Family f, int ncpus) {
  std::vector<ValidateScenario> b;
  auto add = [&b](std::string name, int readers, int writers, int count, bool sched,
                  std::uint64_t cs_read = 0, std::string inject = "") {
    b.push_back({std::move(name), readers, writers, count, sched, cs_read,
                 inject.empty() ? std::vector<std::string>{} : std::vector<std::string>{inject}});
  };
  // kCombinations, for a family: a mutex or a semaphore runs the shape's
  // threads (a semaphore at count 1, where a lost unit shows at once).
  auto add_combinations = [&b](Family f) {
    for (const Combination& c : kCombinations) {
      ValidateScenario v;
      v.name = std::string("combo ") + c.name;
      v.readers = f == Family::kRwlock ? c.readers : 0;
      v.writers = f == Family::kRwlock ? c.writers : c.readers + c.writers;
      v.count = f == Family::kSemaphore ? 1 : 0;
      v.cpus = c.one_cpu ? 1 : 0;
      for (const char* s : c.specs) v.inject.emplace_back(s);
      v.killable_every = c.killable_every;
      b.push_back(std::move(v));
    }
  };
  const int over = 4 * std::max(1, ncpus);  // four threads per CPU
  auto shape = [](std::string name, int readers, int writers, int count, bool sched) {
    ValidateScenario v;
    v.name = std::move(name);
    v.readers = readers;
    v.writers = writers;
    v.count = count;
    v.sched = sched;
    return v;
  };
  // Half the acquisitions through the trylock, half the write holds ending
  // in downgrade_write (where the lock has them): the paths a default mix
  // visits one time in sixteen.
  auto heavy = [&](std::string name, int readers, int writers, int count, bool sched) {
    ValidateScenario v = shape(std::move(name), readers, writers, count, sched);
    v.try_every = 2;
    return v;
  };
  // Every thread on one CPU: each hand-over needs the scheduler.
  auto one_cpu = [&](std::string name, int readers, int writers, int count) {
    ValidateScenario v = shape(std::move(name), readers, writers, count, false);
    v.cpus = 1;
    return v;
  };
  // Threads spread across packages and cores first (the lock word's cache
  // line travels furthest); the same as compact on a one-socket machine
  // without SMT.
  auto scattered = [&](std::string name, int readers, int writers, int count) {
    ValidateScenario v = shape(std::move(name), readers, writers, count, false);
    v.placement = Placement::kScatter;
    v.place = true;
    return v;
  };
  switch (f) {
    case Family::kRwlock:
      for (const RwsemTest& t : rwsem_tests())
        for (bool sched : {false, true})
          add(fmt::format("{}{}", t.name, sched ? " sched" : ""), t.readers, t.writers, 0, sched);
      add("2R+1W", 2, 1, 0, false);
      b.back().judges_waits = true;
      add("2R+1W sched", 2, 1, 0, true);
      add("readers overlap (cs-read)", 4, 1, 0, false, 20000);
      b.back().judges_waits = true;
      add("oversubscribed", over * 2 / 3, over / 3, 0, false);
      for (bool sched : {false, true})
        b.push_back(heavy(sched ? "trylock+downgrade heavy sched" : "trylock+downgrade heavy",
                          4, 2, 0, sched));
      b.push_back(one_cpu("1 CPU", 4, 2, 0));
      b.push_back(scattered("scatter placement", 4, 2, 0));
      for (const Schedule& s : kSchedules) add(s.name, 4, 2, 0, false, 0, s.spec);
      // A kernel-compat percpu-rwsem reader paused between seeing rcu_sync
      // idle and raising its count, the window a writer's grace period must
      // cover, with work between acquisitions so that rcu_sync goes idle
      // between writers (with writers back to back it never does: 20 s of
      // validate passed a grace period that did not wait); nothing for
      // locks without the point.
      add("inject fast-path", 4, 1, 0, false, 0, "delay@fast-path:p=0.2,fixed(100us)");
      b.back().delay_loops = 100000;
      add_combinations(f);
      break;
    case Family::kSemaphore:
      for (int count : {1, 2, ncpus + 1})
        for (bool sched : {false, true})
          add(fmt::format("count {}{}", count, sched ? " sched" : ""), 0, 4, count, sched);
      add("oversubscribed count 1", 0, over, 1, false);
      b.push_back(heavy("trylock heavy count 1", 0, 4, 1, false));
      b.push_back(one_cpu("1 CPU count 1", 0, 4, 1));
      b.push_back(scattered("scatter placement count 2", 0, 4, 2));
      for (const Schedule& s : kSchedules) add(s.name, 0, 4, 1, false, 0, s.spec);
      add_combinations(f);
      break;
    case Family::kMutex:
      for (int threads : {2, 4, 8})  // 8: five and more waiters (ticket wrap)
        for (bool sched : {false, true}) {
          add(fmt::format("{}T{}", threads, sched ? " sched" : ""), 0, threads, 0, sched);
          b.back().judges_waits = threads == 4 && !sched;
        }
      add("oversubscribed", 0, over, 0, false);
      b.push_back(heavy("trylock heavy 4T", 0, 4, 0, false));
      b.push_back(one_cpu("1 CPU 4T", 0, 4, 0));
      b.push_back(scattered("scatter placement 4T", 0, 4, 0));
      for (const Schedule& s : kSchedules) add(s.name, 0, 4, 0, false, 0, s.spec);
      add_combinations(f);
      break;
  }
  return b;
}

std::vector<ExploreScenario> explore_battery(const LockMeta& meta) {
  std::vector<ExploreScenario> b;
  using Model = ExploreScenario::Model;
  auto add = [&b, &meta](int readers, int writers, int count, std::string strategy,
                         bool signals, Model model = Model::kLocksOwn) {
    const std::string who = meta.family == Family::kRwlock ? fmt::format("{}R+{}W", readers, writers)
                            : count > 0 ? fmt::format("{}T count {}", writers, count)
                                        : fmt::format("{}T", writers);
    const char* under = model == Model::kTso ? " tso" : model == Model::kNone ? " no model" : "";
    b.push_back({fmt::format("{}{} {}{}", strategy, signals ? " signals" : "", who, under),
                 readers, writers, count, std::move(strategy), signals, model});
  };
  // The smallest contended shape too, under each memory model the lock's
  // accesses feed (the default stale-read budget: a store->load reorder
  // shows there in a fraction of a second), and the 3-thread shape with no
  // model at all (every access seen at once: the interleavings alone).
  const bool modelled = memory_modelled(meta);
  auto add_models = [&](int readers, int writers, int count, int three_r, int three_w) {
    add(readers, writers, count, "pct:depth=2", false);
    if (!modelled) return;
    add(readers, writers, count, "pct:depth=2", false, Model::kTso);
    add(three_r, three_w, count, "pct:depth=3", false, Model::kNone);
  };
  // A kernel-compat lock's killable and interruptible sleeps: the
  // bail-out paths, under fatal signals (spurious wake-ups, signal checks).
  const bool killable = meta.kernel_layer && meta.caps.killable;
  const std::string exhaustive = "exhaustive:preemptions=2";
  switch (meta.family) {
    case Family::kRwlock:
      for (const auto& [r, w] : {std::pair{2, 1}, std::pair{1, 2}})
        for (int d = 1; d <= 3; ++d) add(r, w, 0, fmt::format("pct:depth={}", d), false);
      add_models(1, 1, 0, 2, 1);
      add(1, 1, 0, exhaustive, false);
      if (killable) add(2, 2, 0, "random", true);
      // A kernel-compat glue may give interrupt handlers work (percpu-rwsem's
      // read release, from a completion; qrwlock's read lock): interrupts
      // arrive where they change what the code computes; for the others
      // nothing is posted.
      if (meta.kernel_layer) {
        add(2, 1, 0, "pct:depth=3", false);
        b.back().interrupts = 2;
        b.back().name += " interrupts";
      }
      break;
    case Family::kSemaphore:
      for (int count : {1, 2})
        for (int d = 1; d <= 3; ++d) add(0, 3, count, fmt::format("pct:depth={}", d), false);
      add_models(0, 2, 1, 0, 3);
      add(0, 2, 1, exhaustive, false);
      if (killable) add(0, 3, 1, "random", true);
      // (semaphore.c's glue makes up() from interrupts, as a driver's
      // completion may; a mutex is never released from one)
      if (meta.kernel_layer) {
        add(0, 3, 1, "pct:depth=3", false);
        b.back().interrupts = 2;
        b.back().name += " interrupts";
      }
      break;
    case Family::kMutex:
      for (int d = 1; d <= 3; ++d) add(0, 3, 0, fmt::format("pct:depth={}", d), false);
      add_models(0, 2, 0, 0, 3);
      add(0, 2, 0, exhaustive, false);
      if (killable) add(0, 3, 0, "random", true);
      break;
  }
  return b;
}

namespace {

// An explore search's outcome through a child's pipe: one field a line,
// the two texts last (a finding has no newline; a replay command neither).
std::string to_text(const ExploreOutcome& o) {
  return fmt::format("{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n", int(o.verdict), o.schedules,
                     o.found_at, int(o.complete), o.complete_schedules, o.seconds, o.finding,
                     o.replay);
}
bool from_text(const std::string& text, ExploreOutcome* o) {
  std::istringstream in(text);
  int verdict = 0, complete = 0;
  if (!(in >> verdict >> o->schedules >> o->found_at >> complete >> o->complete_schedules >>
        o->seconds) ||
      verdict < 0 || verdict >= kVerdictCount)
    return false;
  o->verdict = Verdict(verdict);
  o->complete = complete != 0;
  in.ignore(1);
  return bool(std::getline(in, o->finding)) && bool(std::getline(in, o->replay));
}

struct StageResult {
  int runs = 0;
  int exhaustive = 0;  // exhaustive searches run
  int complete = 0;    // ... and complete
  std::vector<std::string> failed;  // "  name: replay command"
  Verdict worst = Verdict::kPass;
  bool error = false;  // a run of the stage could not be set up (said in one line)
};

// The exploration stage of one lock: each run in a child process (a lock
// that crashes under a schedule takes only the child; its handler prints
// the schedule's replay line first).
// The stage has a time budget (--explore-time, a quarter of --time by
// default): each run takes at least its --explore-schedules, then goes on
// within an equal share of what is left of the budget, so that a run
// that ends early (an exhaustive search that completed, a failure) leaves
// its time to the runs after it.
StageResult explore_stage(const RunConfig& base, const LockMeta& meta, const Output& out) {
  StageResult r;
  const std::vector<ExploreScenario> battery = explore_battery(meta);
  const std::chrono::nanoseconds budget = base.validate_explore_time.count() > 0
                                              ? base.validate_explore_time
                                              : base.validate_time / 4;
  const auto began = std::chrono::steady_clock::now();
  out.print(fmt::format("exploration stage: {} runs, {} in all (each at least {} schedules, "
                        "exhaustive {}; then within its share of the time left)",
                        battery.size(), format_duration(budget), base.validate_explore_schedules,
                        base.validate_explore_schedules * 5));
  out.print(fmt::format("{:<36} {:<8} {:>8} {:>14}", "EXPLORATION", "VERDICT", "SECONDS",
                        "SCHEDULES"));
  for (std::size_t at = 0; at < battery.size(); ++at) {
    const ExploreScenario& x = battery[at];
    if (interrupt_signal() != 0) return r;
    RunConfig cfg = explore_config(base, meta, x.readers, x.writers, x.count);
    if (std::string err = parse_explore_strategy(x.strategy, &cfg.explore); !err.empty()) {
      out.error(fmt::format("validate: exploration '{}': {}", x.name, err));  // test_cli checks
      r.error = true;
      return r;
    }
    // An exhaustive search that completes is a proof for its shape: it
    // gets five times the schedules (a few seconds at most).
    cfg.explore.min_schedules =
        base.validate_explore_schedules * (cfg.explore.exhaustive ? 5 : 1);
    const auto left = budget - (std::chrono::steady_clock::now() - began);
    const auto share = std::chrono::duration_cast<std::chrono::milliseconds>(
        left / std::int64_t(battery.size() - at));
    if (share.count() > 0) {
      cfg.explore.schedules = std::uint64_t(1) << 40;  // (--schedules' most)
      cfg.explore.time_ns = std::uint64_t(std::chrono::nanoseconds(share).count());
    } else {
      cfg.explore.schedules = cfg.explore.min_schedules;
    }
    r.exhaustive += cfg.explore.exhaustive;
    cfg.explore.signals = x.signals;
    cfg.explore.interrupts = x.interrupts;
    using Model = ExploreScenario::Model;
    cfg.explore.memory = x.model == Model::kTso                            ? ExploreMemory::kTso
                         : x.model == Model::kLocksOwn && memory_modelled(meta) ? ExploreMemory::kC11
                                                                                 : ExploreMemory::kSc;
    if (cfg.explore.exhaustive) cfg.explore.stale_reads = kExhaustiveStaleReads;
    const ChildEnd end = run_in_child([&] { return to_text(explore_quietly(cfg, meta)); },
                                      std::chrono::seconds(600) + share * 2);
    ExploreOutcome o;
    if (!end.forked || !end.answered || !from_text(end.text, &o)) {
      o = ExploreOutcome{};
      o.verdict = end.forked ? lost_child_verdict(end) : Verdict::kCrash;
      o.seconds = end.seconds;
    }
    ++r.runs;
    r.complete += o.complete;
    r.worst = worse(r.worst, o.verdict);
    const std::string schedules =
        o.complete ? fmt::format("complete {}", o.complete_schedules)
        : o.found_at > 0 ? fmt::format("at {}", o.found_at)
                         : fmt::format("{}", o.schedules);
    out.print(fmt::format("{:<36} {:<8} {:>8.2f} {:>14}{}", x.name, verdict_name(o.verdict),
                          o.seconds, schedules, o.finding.empty() ? "" : "  " + o.finding));
    if (o.verdict != Verdict::kPass && o.verdict != Verdict::kInterrupted)
      r.failed.push_back(fmt::format("  {}: rwstress {}", x.name,
                                     o.replay.empty() ? explore_command(cfg, meta) : o.replay));
  }
  return r;
}

}  // namespace

int run_validate(const RunConfig& base, const Topology& topology, const Output& out) {
  const std::vector<int> cpus = base.chosen_cpus(topology);  // TopologyError: the caller's
  RunConfig scatter = base;
  scatter.placement = Placement::kScatter;
  const std::vector<int> scatter_cpus = scatter.chosen_cpus(topology);
  Verdict worst = Verdict::kPass;
  for (const LockMeta* meta : base.locks) {
    const LockEntry& entry = entry_of(*meta);
    const std::vector<ValidateScenario> battery =
        validate_battery(meta->family, int(cpus.size()));
    const auto per_run = std::max<std::chrono::nanoseconds>(
        kValidateMinRun,
        std::chrono::duration_cast<std::chrono::milliseconds>(
            base.validate_time / std::max<std::size_t>(1, battery.size())));
    out.print(fmt::format("rwstress {} validate {}: {} scenarios, {} each, each in a child "
                          "process; seed {:#x}",
                          kVersion, meta->name, battery.size(), format_duration(per_run),
                          base.seed));
    out.print(fmt::format("{:<31} {:<8} {:>8} {:>10} {:>6}", "SCENARIO", "VERDICT", "SECONDS",
                          "OPS/S", "JAIN"));
    std::vector<std::string> failed;
    double elapsed = 0;      // wall time of the battery so far
    std::string first_caught;  // when and by what the first scenario did not PASS
    std::size_t ran = 0;
    for (const ValidateScenario& v : battery) {
      if (interrupt_signal() != 0) break;
      ++ran;
      const auto started = std::chrono::steady_clock::now();
      RunConfig cfg = base;  // --seed, --cpus, --placement, --watchdog, --cs-write, --delay
      cfg.check = true;      // the battery is about verdicts: checkers on, nothing measured
      cfg.measure = {};
      cfg.repeat = 1;
      cfg.lock_spec = std::string(meta->name);
      cfg.locks = {meta};
      cfg.readers = v.readers;
      cfg.writers = v.writers;
      cfg.threads = v.writers;
      if (v.count > 0) cfg.count = v.count;
      cfg.sched = v.sched;
      cfg.cs_read_loops = v.cs_read_loops;
      cfg.duration = v.judges_waits && meta->fairness == Fairness::kHandoff
                         ? std::max<std::chrono::nanoseconds>(per_run, kHandoffMinRun)
                         : per_run;
      cfg.try_every = v.try_every;
      cfg.killable_every = v.killable_every;
      if (v.delay_loops > 0) cfg.delay_loops = v.delay_loops;
      std::vector<int> run_cpus = cpus;
      if (v.place) {
        cfg.placement = v.placement;
        run_cpus = scatter_cpus;
      }
      if (v.cpus > 0 && std::size_t(v.cpus) < run_cpus.size()) run_cpus.resize(std::size_t(v.cpus));
      cfg.injection.specs.clear();
      for (const std::string& text : v.inject) {
        std::string err;
        auto spec = parse_inject_spec(text, &err);
        if (!spec) {  // the battery's own specs parse (test_cli checks them)
          out.error(fmt::format("validate: scenario '{}': {}", v.name, err));
          return 2;
        }
        cfg.injection.specs.push_back(*spec);
      }
      Scenario sc = cfg.scenario_for(*meta);
      sc.plan = topology.plan(sc.threads(), run_cpus);
      sc.topology = &topology;
      const bool instrumented = !cfg.injection.empty();
      if (instrumented) sc.injection = &cfg.injection;
      const RunFn fn = instrumented ? entry.run_instrumented : entry.run;
      const auto limit = std::chrono::duration_cast<std::chrono::seconds>(
                             cfg.duration + 2 * cfg.watchdog) +
                         std::chrono::seconds(5);
      IsolatedOutcome o = run_isolated(
          [&] {
            RunResult r = fn(sc, *meta);
            IsolatedOutcome mine;
            mine.verdict = r.error.empty() ? r.verdict : Verdict::kFail;
            mine.seconds = r.duration_s;
            mine.others_share = r.others_share;
            mine.ops_per_s = r.ops_per_s();
            mine.jain = r.jain_readers < 0   ? r.jain_writers
                        : r.jain_writers < 0 ? r.jain_readers
                                             : std::min(r.jain_readers, r.jain_writers);
            mine.set_found(what_was_found(r));
            return mine;
          },
          limit);
      // A scenario a signal cut short proves nothing by passing.
      if (interrupt_signal() != 0 && o.verdict == Verdict::kPass) o.verdict = Verdict::kInterrupted;
      worst = worse(worst, o.verdict);
      out.print(fmt::format("{:<28} {:<8} {:>8.2f} {:>10} {:>6}{}", v.name, verdict_name(o.verdict),
                            o.seconds, human_rate(o.ops_per_s),
                            o.jain < 0 ? std::string("-") : fmt::format("{:.2f}", o.jain),
                            o.found[0] ? std::string("  ") + o.found : std::string()));
      elapsed += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (o.verdict != Verdict::kPass && o.verdict != Verdict::kInterrupted) {
        failed.push_back(fmt::format("  {}: {}", v.name, cfg.describe(sc.plan)));
        if (first_caught.empty())
          first_caught = fmt::format("first after {:.1f}s: {}, {}{}", elapsed, v.name,
                                     verdict_name(o.verdict),
                                     o.found[0] ? std::string(" ") + o.found : std::string());
      }
    }
    out.print("");
    // The exploration stage, where the scheduler sees inside the lock.
    const auto cut_short = [&](const std::string& where) {
      out.print(fmt::format("validate {}: INTERRUPTED by {} {}: not judged{}", meta->name,
                            interrupt_signal_name(interrupt_signal()), where,
                            failed.empty() ? "" : "; what ran did not all PASS, replay each with:"));
      for (const std::string& f : failed) out.print(f);
      return 128 + interrupt_signal();
    };
    if (interrupt_signal() != 0)
      return cut_short(fmt::format("in scenario {} of {}", ran, battery.size()));
    const std::size_t timed = failed.size();  // the timed scenarios that did not PASS
    std::string explored;
    if (!base.validate_explore) {
      explored = "exploration off (--no-explore)";
    } else if (const std::string why = why_not_explorable(*meta); !why.empty()) {
      explored = "exploration not run: " + why;
    } else {
      const StageResult x = explore_stage(base, *meta, out);
      if (x.error) return 2;
      if (interrupt_signal() != 0) {
        for (const std::string& f : x.failed) failed.push_back(f);
        return cut_short("in the exploration stage");
      }
      out.print("");
      worst = worse(worst, x.worst);
      explored = x.failed.empty()
                     ? fmt::format("exploration: all {} runs PASS (exhaustive: {} of {} "
                                   "complete)",
                                   x.runs, x.complete, x.exhaustive)
                     : fmt::format("exploration: {} of {} runs did not PASS", x.failed.size(),
                                   x.runs);
      for (const std::string& f : x.failed) failed.push_back(f);
    }
    if (failed.empty()) {
      out.print(fmt::format("validate {}: all {} scenarios PASS; {}", meta->name, battery.size(),
                            explored));
    } else {
      out.print(fmt::format("validate {}: {} of {} scenarios did not PASS{}; {}; replay each with:",
                            meta->name, timed, battery.size(),
                            first_caught.empty() ? "" : " (" + first_caught + ")", explored));
      for (const std::string& f : failed) out.print(f);
    }
    out.print("");
  }
  return exit_code_of(worst);
}

}  // namespace rwstress
