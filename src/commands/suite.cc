#include "commands/suite.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "commands/sweep.h"
#include "model/stats.h"
#include "model/version.h"
#include "registry/registry.h"

namespace rwstress {

std::vector<SuiteInfo> suites() {
  return {{"rwsem-test",
           "the 2001 rwsem benchmark: rw 4R+2W, ro 4R, wo 4W, r1, w1, r2; SCHED no and yes; two runs each; "
           "aa-rwsem, xadd, xadd-unfair, generic-spin (+ --lock NAMES); 1 s per run"},
          {"bkl",
           "the 2000 BKL report: bkl (spinning big lock) vs sem-mutex (semaphore as a mutex), tiny critical "
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
  out.push_back("READERS / WRITERS: read and write acquisitions in each run (the 2001 "
                "benchmark's counts were over a fixed time too); n/a: no thread of that role.");
  return out;
}

namespace {

// The 2001 rwsem benchmark (David Howells, linux-kernel, 20 April 2001:
// "rwsem benchmarks", a dual 400 MHz Pentium II, 440BX): per environment,
// test and SCHED, the mean of its two runs' read and write counts. xadd-unfair
// was not run on r1, w1 and r2.
struct HistoricFigures {
  const char* lock;
  const char* test;
  bool sched;
  double reads, writes;
};

constexpr HistoricFigures kRwsem2001[] = {
    {"aa-rwsem", "rws-rw", false, (3330281 + 3331972) / 2.0, (1009 + 994) / 2.0},
    {"aa-rwsem", "rws-rw", true, (1767102 + 1743420) / 2.0, (607091 + 642095) / 2.0},
    {"aa-rwsem", "rws-ro", false, (2534630 + 3535202) / 2.0, 0},
    {"aa-rwsem", "rws-ro", true, (2837218 + 3164814) / 2.0, 0},
    {"aa-rwsem", "rws-wo", false, 0, (2507449 + 2399102) / 2.0},
    {"aa-rwsem", "rws-wo", true, 0, (1568467 + 1412262) / 2.0},
    {"aa-rwsem", "rws-r1", false, (9232485 + 9217585) / 2.0, 0},
    {"aa-rwsem", "rws-r1", true, (5483757 + 5487028) / 2.0, 0},
    {"aa-rwsem", "rws-w1", false, 0, (9900333 + 9918021) / 2.0},
    {"aa-rwsem", "rws-w1", true, 0, (5745657 + 5747063) / 2.0},
    {"aa-rwsem", "rws-r2", false, (3499275 + 3518590) / 2.0, 0},
    {"aa-rwsem", "rws-r2", true, (3184431 + 3180287) / 2.0, 0},
    {"xadd", "rws-rw", false, (563388 + 558159) / 2.0, (283005 + 280288) / 2.0},
    {"xadd", "rws-rw", true, (683670 + 700714) / 2.0, (197017 + 194316) / 2.0},
    {"xadd", "rws-ro", false, (6316985 + 6314241) / 2.0, 0},
    {"xadd", "rws-ro", true, (4309406 + 4575043) / 2.0, 0},
    {"xadd", "rws-wo", false, 0, (765699 + 763876) / 2.0},
    {"xadd", "rws-wo", true, 0, (650512 + 652287) / 2.0},
    {"xadd", "rws-r1", false, (15171532 + 15158899) / 2.0, 0},
    {"xadd", "rws-r1", true, (7222310 + 7229793) / 2.0, 0},
    {"xadd", "rws-w1", false, 0, (13942744 + 13991823) / 2.0},
    {"xadd", "rws-w1", true, 0, (7362605 + 7356127) / 2.0},
    {"xadd", "rws-r2", false, (5517671 + 5516168) / 2.0, 0},
    {"xadd", "rws-r2", true, (3452796 + 3331947) / 2.0, 0},
    {"xadd-unfair", "rws-rw", false, (531929 + 531093) / 2.0, (267129 + 266822) / 2.0},
    {"xadd-unfair", "rws-rw", true, (839560 + 903995) / 2.0, (185670 + 183958) / 2.0},
    {"xadd-unfair", "rws-ro", false, (6318293 + 6320336) / 2.0, 0},
    {"xadd-unfair", "rws-ro", true, (4257862 + 4315243) / 2.0, 0},
    {"xadd-unfair", "rws-wo", false, 0, (766427 + 766471) / 2.0},
    {"xadd-unfair", "rws-wo", true, 0, (644036 + 642236) / 2.0},
    {"generic-spin", "rws-rw", false, (545138 + 545378) / 2.0, (274002 + 273785) / 2.0},
    {"generic-spin", "rws-rw", true, (755343 + 745888) / 2.0, (187874 + 185562) / 2.0},
    {"generic-spin", "rws-ro", false, (4500398 + 4506583) / 2.0, 0},
    {"generic-spin", "rws-ro", true, (3137883 + 3129119) / 2.0, 0},
    {"generic-spin", "rws-wo", false, 0, (763599 + 763059) / 2.0},
    {"generic-spin", "rws-wo", true, 0, (641256 + 647319) / 2.0},
    {"generic-spin", "rws-r1", false, (13110083 + 13115436) / 2.0, 0},
    {"generic-spin", "rws-r1", true, (6950687 + 6951901) / 2.0, 0},
    {"generic-spin", "rws-w1", false, 0, (13004627 + 13003754) / 2.0},
    {"generic-spin", "rws-w1", true, 0, (6899764 + 6898953) / 2.0},
    {"generic-spin", "rws-r2", false, (4741615 + 4746860) / 2.0, 0},
    {"generic-spin", "rws-r2", true, (3340292 + 2967268) / 2.0, 0},
};

const HistoricFigures* historic(const std::string& lock, const std::string& test, bool sched) {
  for (const HistoricFigures& h : kRwsem2001)
    if (lock == h.lock && test == h.test && sched == h.sched) return &h;
  return nullptr;
}

// This run's mean reads and writes for (lock, test, sched), or false.
bool measured(const std::vector<RunResult>& runs, const std::string& lock, const std::string& test,
              bool sched, double* reads, double* writes) {
  const std::string label = fmt::format("{} {}", test, sched ? "yes" : "no");
  double r = 0, w = 0;
  int n = 0;
  for (const RunResult& run : runs) {
    if (run.lock != lock || run.label != label || run.duration_s <= 0) continue;
    r += double(run.reads) / run.duration_s;  // per second: runs may differ in length
    w += double(run.writes) / run.duration_s;
    ++n;
  }
  if (n == 0) return false;
  *reads = r / n;
  *writes = w / n;
  return true;
}

std::string ratio_cell(double num, double den) {
  if (den <= 0) return "-";
  const double x = num / den;
  if (x >= 100) return fmt::format("{:.0f}", x);
  if (x >= 10) return fmt::format("{:.1f}", x);
  return x >= 0.1 || x == 0 ? fmt::format("{:.2f}", x) : fmt::format("{:.2g}", x);
}

}  // namespace

std::vector<std::string> rwsem_test_history(const std::vector<RunResult>& runs) {
  std::vector<std::string> out;
  out.push_back("THE 2001 FIGURES AS RATIOS (D. Howells, linux-kernel, 20 April 2001, dual PII-400; "
                "mean of its two runs) beside this run's");
  out.push_back("  rws-rw: reads per write.  Others: operations relative to the same "
                "environment's rws-r1 with the same SCHED.");
  constexpr const char* kFormat = "{:<14} {:<7} {:<5} {:>10} {:>10}";
  out.push_back(fmt::format(fmt::runtime(kFormat), "ENVIRONMENT", "TEST", "SCHED", "2001", "HERE"));
  for (const char* env : kRwsemHistoric) {
    bool printed = false;
    for (const RwsemTest& t : rwsem_tests()) {
      for (bool sched : {false, true}) {
        const HistoricFigures* h = historic(env, t.name, sched);
        double reads = 0, writes = 0;
        if (!measured(runs, env, t.name, sched, &reads, &writes)) continue;
        std::string then = "-", now = "-";
        if (std::string(t.name) == "rws-rw") {
          if (h) then = ratio_cell(h->reads, h->writes);
          now = ratio_cell(reads, writes);
        } else {
          const HistoricFigures* r1 = historic(env, "rws-r1", sched);
          if (h && r1) then = ratio_cell(h->reads + h->writes, r1->reads);
          double r1_reads = 0, r1_writes = 0;
          if (measured(runs, env, "rws-r1", sched, &r1_reads, &r1_writes))
            now = ratio_cell(reads + writes, r1_reads);
        }
        out.push_back(fmt::format(fmt::runtime(kFormat), printed ? "" : env, t.name,
                                  sched ? "yes" : "no", then, now));
        printed = true;
      }
    }
  }
  out.push_back("-: not measured in 2001 (xadd-unfair ran rw, ro and wo only) or not in this run. "
                "docs/history.md says where the shapes match and why they differ.");
  return out;
}

std::vector<std::string> bkl_table(const std::vector<RunResult>& runs) {
  std::vector<std::string> out;
  out.push_back("");
  out.push_back("THE 2000 BKL REPORT VIEW: per configuration, vmstat-like columns and time per operation");
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
                "CPU time / operations, split as the 2000 BKL report splits time per request.");
  return out;
}

int run_suite(RunConfig cfg, const Topology& topology, const Output& out) {
  const PrintFn& print = out.print;
  if (cfg.suite == "list") {
    for (const SuiteInfo& s : suites()) print(fmt::format("{:<12} {}", s.name, s.summary));
    return 0;
  }
  if (!cfg.duration_given) cfg.duration = std::chrono::seconds(1);
  if (cfg.suite == "bkl") {
    if (cfg.lock_given) {
      out.error("suite bkl runs bkl and sem-mutex; it takes no --lock");
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
    return run_sweep(cfg, topology, out, "suite bkl", bkl_table);
  }
  if (cfg.suite != "rwsem-test") {
    out.error(fmt::format("suite '{}': known suites are rwsem-test and bkl "
                      "(rwstress suite list)",
                      cfg.suite));
    return 2;
  }

  // rwsem-test: the four historic rwsems, then any others named.
  std::vector<const LockMeta*> envs;
  for (const char* name : kRwsemHistoric) envs.push_back(&find_lock(name)->meta);
  if (cfg.lock_given)
    for (const LockMeta* m : cfg.locks) {
      if (m->family != Family::kRwlock) {
        out.error(fmt::format("suite rwsem-test: '{}' is not a reader-writer lock", m->name));
        return 2;
      }
      if (std::find(envs.begin(), envs.end(), m) == envs.end()) envs.push_back(m);
    }
  if (cfg.repeat == 1) cfg.repeat = 2;  // the 2001 benchmark ran each test twice
  SessionReport session(cfg, topology, "suite rwsem-test", print);
  Report& report = session.report;
  std::vector<int> cpus = topology.placement_order(cfg.placement);
  report.plan = topology.plan(6, cpus);
  if (std::string err = session.open(); !err.empty()) {
    out.error(err);
    return 2;
  }
  print(fmt::format("rwstress {} suite rwsem-test: {}; {} per run, {} runs per test; seed {:#x}",
                    kVersion, report.host_summary, format_duration(cfg.duration), cfg.repeat,
                    cfg.seed));
  print("");
  print(console_header());
  std::vector<std::string> names;
  for (const LockMeta* env : envs) {
    names.emplace_back(env->name);
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
        if (std::string err = session.run(run, point); !err.empty()) {
          out.error(err);
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
  for (const std::string& line : rwsem_test_history(report.runs)) print(line);
  print("");
  return session.finish();
}

}  // namespace rwstress
