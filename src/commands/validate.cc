#include "commands/validate.h"

#include <algorithm>

#include <fmt/format.h>

#include "commands/isolated.h"
#include "commands/suite.h"
#include "injectors/inject_spec.h"
#include "model/verdict.h"
#include "model/version.h"
#include "platform/duration.h"
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
    for (const ValidateScenario& v : battery) {
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
      worst = worse(worst, o.verdict);
      out.print(fmt::format("{:<28} {:<8} {:>8.2f} {:>10} {:>6}{}", v.name, verdict_name(o.verdict),
                            o.seconds, human_rate(o.ops_per_s),
                            o.jain < 0 ? std::string("-") : fmt::format("{:.2f}", o.jain),
                            o.found[0] ? std::string("  ") + o.found : std::string()));
      elapsed += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (o.verdict != Verdict::kPass) {
        failed.push_back(fmt::format("  {}: {}", v.name, cfg.describe(sc.plan)));
        if (first_caught.empty())
          first_caught = fmt::format("first after {:.1f}s: {}, {}{}", elapsed, v.name,
                                     verdict_name(o.verdict),
                                     o.found[0] ? std::string(" ") + o.found : std::string());
      }
    }
    out.print("");
    if (failed.empty()) {
      out.print(fmt::format("validate {}: all {} scenarios PASS", meta->name, battery.size()));
    } else {
      out.print(fmt::format("validate {}: {} of {} scenarios did not PASS ({}); replay each with:",
                            meta->name, failed.size(), battery.size(), first_caught));
      for (const std::string& f : failed) out.print(f);
    }
    out.print("");
  }
  return exit_code_of(worst);
}

}  // namespace rwstress
