#include <fmt/format.h>

#include "model/stats.h"
#include "model/verdict.h"
#include "model/version.h"
#include "platform/interrupt.h"
#include "report/report.h"
#include "report/reporter.h"

namespace rwstress {

std::string run_shape(const RunResult& r) {
  return test_shape(r.family, r.readers, r.writers, r.count);
}

std::string human_rate(double per_s) {
  if (per_s >= 1e9) return fmt::format("{:.2f}G", per_s / 1e9);
  if (per_s >= 1e6) return fmt::format("{:.2f}M", per_s / 1e6);
  if (per_s >= 1e3) return fmt::format("{:.1f}k", per_s / 1e3);
  return fmt::format("{:.0f}", per_s);
}

namespace {

std::string count_or_na(std::uint64_t n, int threads) {
  return threads == 0 ? "n/a" : std::to_string(n);
}

std::string jain(double j) { return j < 0 ? "-" : fmt::format("{:.2f}", j); }

// Per-thread lines shown under a row before the rest are counted.
constexpr std::size_t kListedThreads = 8;

constexpr const char* kRowFormat = "{:<22} {:<7} {:<5} {:>11} {:>11} {:>9} {:>11} {:>11} {:>10} {}";

}  // namespace

std::string console_header() {
  return fmt::format(fmt::runtime(kRowFormat), "IMPLEMENTATION", "TEST", "SCHED", "READERS",
                     "WRITERS", "OPS/S", "MIN/THREAD", "MAX/THREAD", "JAIN R/W", "VERDICT");
}

std::string console_row(const RunResult& r) {
  return fmt::format(fmt::runtime(kRowFormat), r.lock, run_shape(r), r.sched ? "yes" : "no",
                     count_or_na(r.reads, r.readers), count_or_na(r.writes, r.writers),
                     human_rate(r.ops_per_s()), r.min_thread_ops, r.max_thread_ops,
                     jain(r.jain_readers) + "/" + jain(r.jain_writers), verdict_name(r.verdict));
}

// "  = csw 1200 vol + 35 invol; CPU user 1.20s sys 0.31s, idle 24% of 2 CPUs;
//    per op 512ns user, 132ns sys, 210ns idle" (the 2000 BKL report's vmstat columns and
// its time per request split into USER/OS/IDLE).
std::string console_system_line(const RunResult& r) {
  const double ops = double(r.reads + r.writes);
  const int cpus = distinct_cpus(r.cpus);
  const double idle_s = r.idle_share * r.duration_s * cpus;
  auto per_op = [&](double s) { return ops > 0 ? fmt::format("{:.0f}ns", s * 1e9 / ops) : "-"; };
  const std::string others =
      r.others_share < 0 ? "" : fmt::format(" (other programs {:.0f}%)", 100 * r.others_share);
  return fmt::format(
      "  = context switches {} voluntary, {} involuntary; CPU user {:.2f}s, sys {:.2f}s, idle "
      "{:.0f}% of {} CPU{}{}; per op {} user, {} sys, {} idle",
      r.voluntary_csw, r.involuntary_csw, r.user_s, r.sys_s, 100 * r.idle_share, cpus,
      cpus == 1 ? "" : "s", others, per_op(r.user_s), per_op(r.sys_s), per_op(idle_s));
}

std::vector<std::string> console_details(const RunResult& r, bool verbose, bool system) {
  std::vector<std::string> lines;
  if (system && r.error.empty()) lines.push_back(console_system_line(r));
  if (!r.error.empty()) lines.push_back("  ! could not run: " + r.error);
  if (r.violation_count > 0) {
    std::string kinds;
    for (int k = 0; k < kViolationKindCount; ++k)
      if (r.violations_by_kind[k])
        kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", r.violations_by_kind[k],
                             violation_kind_name(ViolationKind(k)));
    lines.push_back(fmt::format("  ! {} violation{}: {}", r.violation_count,
                                r.violation_count == 1 ? "" : "s", kinds));
    for (const auto& v : r.first_violations)
      lines.push_back(fmt::format("  !   [{}] {}: {}", violation_kind_name(v.kind),
                                  violation_source(v.thread),
                                  v.detail));
  }
  // Thousands of threads must not bury the verdict: the first lines of each
  // list, then a count (--verbose and JSON keep every line).
  const std::size_t listed = verbose ? SIZE_MAX : kListedThreads;
  if (!r.hang_report.empty()) {
    lines.push_back(r.stopped_at_violation
                        ? "  ! after the first violation stopped the run, threads that did not "
                          "leave the lock within the watchdog time:"
                        : "  ! no progress within the watchdog time; thread states:");
    for (std::size_t i = 0; i < r.hang_report.size() && i < listed; ++i)
      lines.push_back("  !   " + r.hang_report[i]);
    if (r.hang_report.size() > listed)
      lines.push_back(fmt::format("  !   ... and {} more threads (--verbose or --json lists them)",
                                  r.hang_report.size() - listed));
  }
  // '!': what a STARVED verdict rests on; '~': reported, not judged.
  for (std::size_t i = 0; i < r.starved.size() && i < listed; ++i)
    lines.push_back((int(i) < r.starved_judged ? "  ! starved " : "  ~ starved ") + r.starved[i]);
  if (r.starved.size() > listed) {
    std::string causes;
    for (int c = 0; c < kStarvationCauseCount; ++c)
      if (r.starved_by_cause[c])
        causes += fmt::format("{}{} {}", causes.empty() ? "" : ", ", r.starved_by_cause[c],
                              starvation_cause_text(StarvationCause(c)));
    lines.push_back(fmt::format("  ~ ... {} threads in all under 1/{:.0f} of the mean: {}",
                                r.starved.size(), kStarvedShare, causes));
  }
  if (!r.injections.empty()) {
    lines.push_back(fmt::format("  + injection schedule digest {:#018x}", r.schedule_digest));
    // A stuck thread never hands over its counters: the injection that
    // caused a HANG may have fired in exactly those threads.
    if (r.stuck_threads > 0)
      lines.push_back(fmt::format("  + counts below leave out the {} thread{} stuck in the lock "
                                  "(what they fired is unknown)",
                                  r.stuck_threads, r.stuck_threads == 1 ? "" : "s"));
    for (const auto& c : r.injections)
      lines.push_back(c.point == "timer"
                          ? fmt::format("  + {}: fired {} times", c.spec, c.fired)
                          : fmt::format("  + {} at {}: fired {} of {} visits", c.spec, c.point,
                                        c.fired, c.visits));
  }
  for (const auto& n : r.notes) lines.push_back("  - " + n);
  if (!r.known_issue.empty() && r.verdict != Verdict::kPass)
    lines.push_back(fmt::format("  - known library bug: {}", r.known_issue));
  if (verbose) {
    for (size_t i = 0; i < r.threads.size(); ++i) {
      const ThreadResult& t = r.threads[i];
      lines.push_back(fmt::format(
          "    thread {:>3} {:<6} cpu {:>3}: {:>11} ops, trylock {}/{} failed, {} downgrades, "
          "{} shared entries, max {} readers seen",
          i, role_name(t.role), t.cpu, t.ops, t.trylock_failures, t.trylock_attempts,
          t.downgrades, t.reader_overlaps, t.max_readers_seen));
    }
  }
  return lines;
}

std::string console_final_line(const Report& report) {
  return fmt::format("{} -> {}", report.config.describe(report.plan),
                     verdict_name(report.overall()));
}

std::string console_lock_list(const std::vector<const LockMeta*>& locks) {
  constexpr const char* kListFormat = "{:<28} {:<12} {:<42} {}\n";
  std::string out;
  // By family, then the busted zoo: the groups --lock accepts.
  auto section = [&](const char* title, auto wanted) {
    out += fmt::format("{}:\n", title);
    out += fmt::format(fmt::runtime(kListFormat), "  NAME", "FAIRNESS", "CAPABILITIES", "ORIGIN");
    for (const LockMeta* m : locks)
      if (wanted(*m))
        out += fmt::format(fmt::runtime(kListFormat), fmt::format("  {}", m->name),
                           fairness_name(m->fairness), m->caps.describe(),
                           m->known_issue.empty()
                               ? std::string(m->origin)
                               : fmt::format("{} [known bug: {}]", m->origin, m->known_issue));
    out += "\n";
  };
  for (Family f : {Family::kRwlock, Family::kSemaphore, Family::kMutex})
    section(family_name(f), [f](const LockMeta& m) { return m.family == f && !m.busted; });
  section("busted (deliberately broken; see rwstress selftest)",
          [](const LockMeta& m) { return m.busted; });
  return out;
}

}  // namespace rwstress

namespace rwstress {

namespace {

class ConsoleReporter : public Reporter {
 public:
  explicit ConsoleReporter(PrintFn print) : print_(std::move(print)) {}

  void add(const Report& report, const RunResult& r) override {
    const RunConfig& c = report.config;
    std::string row = console_row(r);
    if (c.repeat > 1) row += fmt::format("  #{}", r.repeat + 1);
    print_(row);
    for (const auto& line : console_details(r, c.verbose, c.rusage)) print_(line);
  }

  void finish(const Report& report, const PrintFn&) override {
    std::string last = console_final_line(report);
    if (report.interrupted_by)
      last += fmt::format(" (interrupted by {}: {} run{} reported)",
                          interrupt_signal_name(report.interrupted_by), report.run_count,
                          report.run_count == 1 ? "" : "s");
    print_(last);
  }

 private:
  PrintFn print_;
};

}  // namespace

std::unique_ptr<Reporter> console_reporter(const PrintFn& print) {
  return std::make_unique<ConsoleReporter>(print);
}

}  // namespace rwstress
