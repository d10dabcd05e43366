#include "stress/session.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "stress/registry.h"
#include "stress/run_driver.h"

namespace rwstress {

std::uint64_t repeat_seed(std::uint64_t seed, int i) {
  // The same splitmix64 derivation as a worker's stream: repeats differ,
  // and each is replayable.
  return i == 0 ? seed : thread_seed(seed, i);
}

std::string scenario_key(const RunConfig& cfg, const Scenario& sc, const RunResult& r) {
  std::string key = fmt::format("{} {}", r.lock, run_shape(r));
  key += fmt::format(" sched={} cpus={} cs={}/{} delay={}", sc.sched ? "yes" : "no",
                     sc.plan.cpus.size(), sc.cs_read_loops, sc.cs_write_loops, sc.delay_loops);
  const LockTuning defaults;
  if (sc.tuning.handoff != defaults.handoff) key += " handoff=off";
  if (sc.tuning.reader_steal != defaults.reader_steal) key += " reader-steal=off";
  if (sc.tuning.spin_limit != defaults.spin_limit) key += fmt::format(" spin-limit={}", sc.tuning.spin_limit);
  if (sc.tuning.xadd_unfair_wake) key += " xadd-wake=unfair";
  for (const InjectSpec& spec : cfg.injection.specs) key += " inject=" + spec.describe();
  if (!sc.check) key += " no-check";
  return key;
}

SessionReport::SessionReport(const RunConfig& cfg, const Topology& topology, std::string kind)
    : topology_(topology) {
  report.kind = std::move(kind);
  report.config = cfg;
  report.host_summary = topology.summary();
  report.host_cpus = topology.allowed_cpu_count();
}

std::string SessionReport::open() {
  const RunConfig& c = report.config;
  if (!c.json_path.empty()) {
    std::string err = write_json_report(report, c.json_path);
    if (!err.empty()) return "--json: " + err;
  }
  for (const std::string* path : {&c.csv_path, &c.junit_path}) {
    if (path->empty()) continue;
    std::string err = write_report_file(*path, "");
    if (!err.empty()) return err;
  }
  return "";
}

std::string SessionReport::run(const RunConfig& cfg, const SessionPoint& point,
                               const PrintFn& print) {
  for (const LockEntry* entry : cfg.locks) {
    for (int rep = 0; rep < cfg.repeat; ++rep) {
      Scenario sc = cfg.scenario_for(entry->meta);
      sc.seed = repeat_seed(cfg.seed, rep);
      sc.plan = topology_.plan(sc.threads(), point.cpus);
      sc.topology = &topology_;
      const bool instrumented = sc.injection != nullptr || sc.measure.any();
      RunResult r = (instrumented ? entry->run_instrumented : entry->run)(sc, entry->meta);
      if (!r.error.empty()) return r.error;
      r.scenario_key = scenario_key(cfg, sc, r);
      r.label = point.label;
      r.seed = sc.seed;
      r.repeat = rep;
      r.placement = placement_name(cfg.placement);
      r.sweep_cpus = point.sweep_cpus;
      r.oversubscribed = point.oversubscribed;
      std::string row = console_row(r);
      if (cfg.repeat > 1) row += fmt::format("  #{}", rep + 1);
      print(row);
      for (const auto& line : console_details(r, cfg.verbose, cfg.rusage)) print(line);
      any_hang_ |= r.verdict == Verdict::kHang;
      const bool stop = cfg.fail_fast && r.verdict != Verdict::kPass;
      report.runs.push_back(std::move(r));
      if (!report.config.json_path.empty()) {
        std::string err = write_json_report(report, report.config.json_path);
        if (!err.empty()) std::fprintf(stderr, "rwstress: warning: --json: %s\n", err.c_str());
      }
      if (stop) {
        stopped_ = true;
        return "";
      }
    }
  }
  return "";
}

int SessionReport::finish(const PrintFn& print) {
  write_extra_reports(report, print);
  print(console_final_line(report));
  int code = exit_code_of(report.overall());
  if (any_hang_) _exit(code);
  return code;
}

void write_extra_reports(const Report& report, const PrintFn& print) {
  const RunConfig& c = report.config;
  auto file = [&](const std::string& what, const std::string& path, const std::string& text) {
    if (path.empty()) return;
    std::string err = write_report_file(path, text);
    if (err.empty()) {
      print(fmt::format("{} written to {}", what, path));
    } else {
      print(fmt::format("rwstress: warning: {}: {}", what, err));
    }
  };
  file("CSV", c.csv_path, csv_report_text(report));
  file("JUnit XML", c.junit_path, junit_report_text(report));
  if (!c.plot_prefix.empty()) {
    const auto lines = write_histogram_plots(report, c.plot_prefix);
    for (const std::string& line : lines) print(line);
    if (lines.empty() && report.kind == "run")
      print("note: --plot: a run plots its --hist histograms, and there are none; throughput "
            "per CPU count comes from rwstress sweep");
  }
}

}  // namespace rwstress
