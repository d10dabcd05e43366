#include "commands/session.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "commands/isolated.h"
#include "platform/interrupt.h"
#include "platform/printable.h"
#include "registry/registry.h"
#include "run/run_driver.h"

namespace rwstress {

std::uint64_t repeat_seed(std::uint64_t seed, int i) {
  // The same splitmix64 derivation as a worker's stream: repeats differ,
  // and each is replayable.
  return i == 0 ? seed : thread_seed(seed, i);
}

namespace {

// What a plugin lock's run comes to when its child process dies or never
// answers: the scenario's shape, the verdict, and why.
RunResult lost_run(const Scenario& sc, const LockMeta& meta, Verdict verdict, std::string why) {
  RunResult r;
  r.lock = std::string(meta.name);
  r.family = meta.family;
  r.fairness = meta.fairness;
  r.readers = sc.readers;
  r.writers = sc.writers;
  r.count = meta.family == Family::kSemaphore ? sc.count : 0;
  r.spins = meta.caps.spins;
  r.sched = sc.sched;
  r.checked = sc.check;
  r.cpus = sc.plan.cpus;
  r.verdict = verdict;
  (verdict == Verdict::kHang ? r.hang_report : r.notes).push_back(std::move(why));
  return r;
}

// A plugin lock runs in a child process: a crash inside it (SIGSEGV,
// SIGBUS, SIGILL, SIGFPE, SIGABRT, any signal) ends the child, not the
// session, and is a CRASH run naming the lock and the signal; the runs
// before and after it are reported as usual. The child hands its RunResult
// back as JSON through a pipe (docs/plugins.md, "Crash isolation").
RunResult run_plugin_isolated(RunFn fn, const Scenario& sc, const LockMeta& meta) {
  // The run reports a hang itself after its watchdog; this limit is for a
  // child that cannot even do that.
  const auto limit = sc.duration + 4 * sc.watchdog + std::chrono::seconds(30);
  const ChildEnd end = run_in_child([&] { return run_to_json_text(fn(sc, meta)); }, limit);
  if (!end.forked) return fn(sc, meta);  // no pipe or no fork: run it here, unisolated
  const double limit_s = std::chrono::duration<double>(limit).count();
  RunResult r;
  if (!end.answered) {
    const Verdict v = lost_child_verdict(end);
    if (v == Verdict::kCrash && WIFSIGNALED(end.status))
      return lost_run(sc, meta, v,
                      fmt::format("plugin lock {} crashed the run: {} ({}), in the child "
                                  "process that ran it",
                                  meta.name, signal_name(WTERMSIG(end.status)),
                                  strsignal(WTERMSIG(end.status))));
    return lost_run(sc, meta, v,
                    fmt::format("the child process running plugin lock {} {}{}", meta.name,
                                child_end_text(end, limit_s),
                                v == Verdict::kCrash ? " and no readable result" : ""));
  }
  if (std::string why = run_from_json_text(end.text, r); !why.empty())
    return lost_run(sc, meta, Verdict::kCrash,
                    fmt::format("the child process running plugin lock {} {} and no readable "
                                "result ({})",
                                meta.name, child_end_text(end, limit_s), why));
  return r;
}

}  // namespace

SessionReport::SessionReport(const RunConfig& cfg, const Topology& topology, std::string kind,
                             PrintFn print)
    : topology_(topology),
      keep_runs_(kind != "run" || cfg.measure.any() || !cfg.plot_prefix.empty()),
      print_(std::move(print)),
      reporters_(make_reporters(cfg, print_)) {
  report.kind = std::move(kind);
  report.config = cfg;
  report.host_summary = topology.summary();
  report.host_cpus = topology.allowed_cpu_count();
}

std::string SessionReport::open() {
  for (auto& r : reporters_)
    if (std::string err = r->open(report); !err.empty()) return err;
  return "";
}

std::string SessionReport::run(const RunConfig& cfg, const SessionPoint& point) {
  for (const LockMeta* meta : cfg.locks) {
    const LockEntry& entry = entry_of(*meta);
    for (int rep = 0; rep < cfg.repeat; ++rep) {
      if (interrupt_signal() != 0) {
        report.interrupted_by = interrupt_signal();
        stopped_ = true;
        return "";
      }
      Scenario sc = cfg.scenario_for(*meta);
      sc.seed = repeat_seed(cfg.seed, rep);
      sc.plan = topology_.plan(sc.threads(), point.cpus);
      sc.topology = &topology_;
      const bool instrumented = sc.injection != nullptr || sc.measure.any();
      const RunFn fn = instrumented ? entry.run_instrumented : entry.run;
      RunResult r = meta->plugin ? run_plugin_isolated(fn, sc, *meta) : fn(sc, *meta);
      if (!r.error.empty()) return r.error;
      r.scenario_key = scenario_key(cfg, sc, r);
      r.label = point.label;
      r.seed = sc.seed;
      r.repeat = rep;
      r.placement = placement_name(cfg.placement);
      r.sweep_cpus = point.sweep_cpus;
      r.oversubscribed = point.oversubscribed;
      if (int sig = interrupt_signal()) {
        r.interrupted = true;
        report.interrupted_by = sig;
        r.notes.push_back(fmt::format("interrupted by {} after {:.2f}s of {}",
                                      interrupt_signal_name(sig), r.duration_s,
                                      format_duration(sc.duration)));
        // What a cut-short run saw still stands (a FAIL is a FAIL); that it
        // saw nothing wrong proves nothing: it did not run its course.
        if (r.verdict == Verdict::kPass) r.verdict = Verdict::kInterrupted;
      }
      any_hang_ |= !r.hang_report.empty() || r.stuck_threads > 0;  // threads never joined
      const bool stop = r.interrupted || (cfg.fail_fast && r.verdict != Verdict::kPass);
      report.count(r);
      for (auto& reporter : reporters_) reporter->add(report, r);
      if (keep_runs_) report.runs.push_back(std::move(r));
      if (stop) {
        stopped_ = true;
        return "";
      }
    }
  }
  return "";
}

int SessionReport::finish() {
  if (report.interrupted_by == 0 && interrupt_signal() != 0) report.interrupted_by = interrupt_signal();
  report.complete = true;
  for (auto& r : reporters_) {
    r->finish(report, print_);
    for (std::string& err : r->take_errors()) write_errors_.push_back(std::move(err));
  }
  // Results that did not reach a file, or the terminal, are lost: that is
  // an error exit, never a quiet 0.
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    write_errors_.push_back(fmt::format("cannot write the results to standard output: {}",
                                        std::strerror(errno ? errno : EIO)));
  int code = exit_code_of(report.overall());
  std::sort(write_errors_.begin(), write_errors_.end());
  write_errors_.erase(std::unique(write_errors_.begin(), write_errors_.end()), write_errors_.end());
  for (const std::string& err : write_errors_) {
    std::fprintf(stderr, "rwstress: error: %s\n", printable(err).c_str());
    code = std::max(code, kWriteErrorExit);
  }
  if (report.interrupted_by) code = 128 + report.interrupted_by;
  if (any_hang_) _exit(code);
  return code;
}

}  // namespace rwstress
