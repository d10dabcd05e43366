#include "stress/suite.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "stress/cli.h"
#include "stress/registry.h"
#include "stress/stats.h"
#include "stress/sweep.h"

namespace rwstress {

std::vector<SuiteInfo> suites() {
  return {{"rwsem-test",
           "seed 003: rw 4R+2W, ro 4R, wo 4W, r1, w1, r2; SCHED no and yes; two runs each; "
           "aa-rwsem, xadd, xadd-unfair, generic-spin (+ --lock NAMES); 1 s per run"},
          {"bkl",
           "seed 001: bkl (spinning big lock) vs sem-mutex (semaphore as a mutex), tiny critical "
           "sections, 2 threads per CPU, over 1..all CPUs; context switches, user/sys/idle, "
           "time per operation; 1 s per point"}};
}

std::vector<RwsemTest> rwsem_tests() {
  return {{"rws-rw", 4, 2, "r-w & w-w"}, {"rws-ro", 4, 0, "no"}, {"rws-wo", 0, 4, "w-w only"},
          {"rws-r1", 1, 0, "no"},        {"rws-w1", 0, 1, "no"}, {"rws-r2", 2, 0, "no"}};
}

namespace {

constexpr const char* kRwsemHistoric[] = {"aa-rwsem", "xadd", "xadd-unfair", "generic-spin"};

std::string count_cell(const RunResult& r, bool reads) {
  if ((reads ? r.readers : r.writers) == 0) return "n/a";
  return std::to_string(reads ? r.reads : r.writes);
}

}  // namespace

std::vector<std::string> rwsem_test_table(const std::vector<RunResult>& runs,
                                          const std::vector<std::string>& environments,
                                          int runs_per_test) {
  std::vector<std::string> out;
  constexpr const char* kTestFormat = "{:<15} {:>15} {:>15} {:>10}";
  out.push_back(fmt::format(fmt::runtime(kTestFormat), "TEST", "NUM READERS", "NUM WRITERS",
                            "CONTENTION"));
  out.push_back(fmt::format(fmt::runtime(kTestFormat), std::string(15, '='), std::string(15, '='),
                            std::string(15, '='), std::string(10, '=')));
  for (const RwsemTest& t : rwsem_tests())
    out.push_back(fmt::format(fmt::runtime(kTestFormat), t.name, t.readers, t.writers, t.contention));
  out.push_back("");

  std::string head = fmt::format("{:<28} {:<7} {:<5}", "ENVIRONMENT", "TEST", "SCHED");
  std::string rule = fmt::format("{:<28} {:<7} {:<5}", std::string(28, '='), "=======", "=====");
  for (int i = 0; i < runs_per_test; ++i) {
    head += fmt::format(" {:>10} {:>10}", "READERS", "WRITERS");
    rule += fmt::format(" {:>10} {:>10}", std::string(10, '='), std::string(10, '='));
  }
  head += "  VERDICT";
  out.push_back(head);
  out.push_back(rule);
  for (const std::string& env : environments) {
    bool first_line = true;
    for (const RwsemTest& t : rwsem_tests()) {
      bool first_of_test = true;
      for (const char* sched : {"no", "yes"}) {
        const std::string label = fmt::format("{} {}", t.name, sched);
        std::string line = fmt::format("{:<28} {:<7} {:<5}", first_line ? env : "",
                                       first_of_test ? t.name : "", sched);
        Verdict worst = Verdict::kPass;
        int found = 0;
        for (const RunResult& r : runs) {
          if (r.lock != env || r.label != label) continue;
          line += fmt::format(" {:>10} {:>10}", count_cell(r, true), count_cell(r, false));
          worst = worse(worst, r.verdict);
          ++found;
        }
        if (found == 0) continue;
        for (; found < runs_per_test; ++found) line += fmt::format(" {:>10} {:>10}", "-", "-");
        line += fmt::format("  {}", verdict_name(worst));
        out.push_back(line);
        first_line = first_of_test = false;
      }
    }
    out.push_back(fmt::format("{:-<28} {:-<7} {:-<5}", "", "", ""));
  }
  out.push_back("READERS / WRITERS: read and write acquisitions in each run (the seed's counts "
                "over a fixed time); n/a: no thread of that role.");
  return out;
}

std::vector<std::string> bkl_table(const std::vector<RunResult>& runs) {
  std::vector<std::string> out;
  out.push_back("");
  out.push_back("SEED 001 VIEW: per configuration, vmstat-like columns and time per operation");
  constexpr const char* kFormat =
      "{:<12} {:>5} {:>10} | {:>10} {:>5} {:>5} {:>5} | {:>9} {:>9} {:>9} {:>9}";
  out.push_back(fmt::format(fmt::runtime(kFormat), "lock", "CPUs", "ops/s", "c-sw/s", "user",
                            "os", "idle", "time/op", "USER", "OS", "IDLE"));
  // Mean of the repeats of each (lock, CPU count).
  struct Sum {
    double ops = 0, dur = 0, user = 0, sys = 0, idle_s = 0, csw = 0, cpu_s = 0;
    int n = 0;
  };
  std::vector<std::pair<std::string, int>> order;
  std::map<std::pair<std::string, int>, Sum> sums;
  for (const RunResult& r : runs) {
    auto key = std::make_pair(r.lock, r.sweep_cpus);
    if (!sums.count(key)) order.push_back(key);
    Sum& s = sums[key];
    const int cpus = distinct_cpus(r.cpus);
    s.ops += double(r.reads + r.writes);
    s.dur += r.duration_s;
    s.user += r.user_s;
    s.sys += r.sys_s;
    s.idle_s += r.idle_share * r.duration_s * cpus;
    s.csw += double(r.voluntary_csw + r.involuntary_csw);
    s.cpu_s += r.duration_s * cpus;
    ++s.n;
  }
  std::sort(order.begin(), order.end());
  auto per_op = [](double seconds, double ops) {
    return ops > 0 ? lockmeter_time(seconds * 1e9 / ops) : std::string("-");
  };
  for (const auto& key : order) {
    const Sum& s = sums[key];
    auto share = [&](double x) { return fmt::format("{:.0f}%", s.cpu_s > 0 ? 100 * x / s.cpu_s : 0); };
    out.push_back(fmt::format(fmt::runtime(kFormat), key.first, key.second,
                              human_rate(s.dur > 0 ? s.ops / s.dur : 0),
                              human_rate(s.dur > 0 ? s.csw / s.dur : 0), share(s.user),
                              share(s.sys), share(s.idle_s),
                              per_op(s.user + s.sys + s.idle_s, s.ops), per_op(s.user, s.ops),
                              per_op(s.sys, s.ops), per_op(s.idle_s, s.ops)));
  }
  out.push_back("user/os/idle: shares of the CPUs the point used; time/op = (user + os + idle) "
                "CPU time / operations, split as seed 001 splits time per request.");
  return out;
}

int run_suite(RunConfig cfg, const Topology& topology, const PrintFn& print) {
  if (cfg.suite == "list") {
    for (const SuiteInfo& s : suites()) print(fmt::format("{:<12} {}", s.name, s.summary));
    return 0;
  }
  if (!cfg.duration_given) cfg.duration = std::chrono::seconds(1);
  if (cfg.suite == "bkl") {
    if (cfg.lock_given) {
      print("rwstress: error: suite bkl runs bkl and sem-mutex; it takes no --lock");
      return 2;
    }
    std::string error;
    cfg.lock_spec = "bkl,sem-mutex";
    cfg.locks = select_locks(cfg.lock_spec, &error);
    cfg.readers = 0;
    cfg.writers = 0;
    cfg.threads = 2;           // per CPU: more clients than CPUs, as dbench ran
    cfg.cs_write_loops = 50;   // a tiny critical section
    cfg.delay_loops = 500;     // and some work outside it
    cfg.sweep_placements = {cfg.placement};
    cfg.sweep_cpus.clear();
    for (int n = 1; n <= topology.allowed_cpu_count(); n *= 2) cfg.sweep_cpus.push_back(n);
    if (cfg.sweep_cpus.back() != topology.allowed_cpu_count())
      cfg.sweep_cpus.push_back(topology.allowed_cpu_count());
    cfg.rusage = true;
    return run_sweep(cfg, topology, print, "suite bkl", bkl_table);
  }
  if (cfg.suite != "rwsem-test") {
    print(fmt::format("rwstress: error: suite '{}': known suites are rwsem-test and bkl "
                      "(rwstress suite list)",
                      cfg.suite));
    return 2;
  }

  // rwsem-test: the four historic rwsems, then any others named.
  std::vector<const LockEntry*> envs;
  for (const char* name : kRwsemHistoric) envs.push_back(find_lock(name));
  if (cfg.lock_given)
    for (const LockEntry* e : cfg.locks) {
      if (e->meta.family != Family::kRwlock) {
        print(fmt::format("rwstress: error: suite rwsem-test: '{}' is not a reader-writer lock",
                          e->meta.name));
        return 2;
      }
      if (std::find(envs.begin(), envs.end(), e) == envs.end()) envs.push_back(e);
    }
  if (cfg.repeat == 1) cfg.repeat = 2;  // the seed ran each test twice
  SessionReport session(cfg, topology, "suite rwsem-test");
  Report& report = session.report;
  std::vector<int> cpus = topology.placement_order(cfg.placement);
  report.plan = topology.plan(6, cpus);
  if (std::string err = session.open(); !err.empty()) {
    print("rwstress: error: " + err);
    return 2;
  }
  print(fmt::format("rwstress {} suite rwsem-test: {}; {} per run, {} runs per test; seed {:#x}",
                    kVersion, report.host_summary, format_duration(cfg.duration), cfg.repeat,
                    cfg.seed));
  print("");
  print(console_header());
  std::vector<std::string> names;
  for (const LockEntry* env : envs) {
    names.emplace_back(env->meta.name);
    for (const RwsemTest& t : rwsem_tests()) {
      for (bool sched : {false, true}) {
        RunConfig run = cfg;
        run.locks = {env};
        run.readers = t.readers;
        run.writers = t.writers;
        run.sched = sched;
        SessionPoint point;
        point.cpus = cpus;
        point.label = fmt::format("{} {}", t.name, sched ? "yes" : "no");
        if (std::string err = session.run(run, point, print); !err.empty()) {
          print("rwstress: error: " + err);
          return 2;
        }
        if (session.stopped()) break;
      }
      if (session.stopped()) break;
    }
    if (session.stopped()) break;
  }
  print("");
  for (const std::string& line : rwsem_test_table(report.runs, names, cfg.repeat)) print(line);
  print("");
  return session.finish(print);
}

}  // namespace rwstress
