#include "commands/session.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

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
      RunResult r = (instrumented ? entry.run_instrumented : entry.run)(sc, *meta);
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
      }
      any_hang_ |= r.verdict == Verdict::kHang;
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
