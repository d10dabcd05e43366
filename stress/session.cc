#include "stress/session.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "stress/registry.h"

namespace rwstress {

std::uint64_t repeat_seed(std::uint64_t seed, int i) {
  if (i == 0) return seed;
  // splitmix64 of (seed, i): repeats differ, and each is replayable.
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * std::uint64_t(i + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::string scenario_key(const RunConfig& cfg, const Scenario& sc, const LockMeta& meta) {
  std::string key = fmt::format("{} {}", meta.name,
                                sc.family == Family::kRwlock
                                    ? fmt::format("{}R+{}W", sc.readers, sc.writers)
                                : sc.family == Family::kSemaphore
                                    ? fmt::format("{}T/c{}", sc.writers, sc.count)
                                    : fmt::format("{}T", sc.writers));
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

SessionOutcome run_session(const RunConfig& cfg, const Topology& topology,
                           const SessionPoint& point, const PrintFn& print,
                           const std::function<void(const RunResult&)>& after_each) {
  SessionOutcome out;
  for (const LockEntry* entry : cfg.locks) {
    for (int rep = 0; rep < cfg.repeat; ++rep) {
      Scenario sc = cfg.scenario_for(entry->meta);
      sc.seed = repeat_seed(cfg.seed, rep);
      sc.plan = topology.plan(sc.threads(), point.cpus);
      sc.topology = &topology;
      const bool instrumented = sc.injection != nullptr || sc.measure.any();
      RunResult r = (instrumented ? entry->run_instrumented : entry->run)(sc, entry->meta);
      if (!r.error.empty()) {
        out.error = r.error;
        return out;
      }
      r.scenario_key = scenario_key(cfg, sc, entry->meta);
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
      out.any_hang |= r.verdict == Verdict::kHang;
      out.runs.push_back(std::move(r));
      if (after_each) after_each(out.runs.back());
      if (cfg.fail_fast && out.runs.back().verdict != Verdict::kPass) {
        out.stopped = true;
        return out;
      }
    }
  }
  return out;
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
  SessionOutcome out = run_session(cfg, topology_, point, print, [&](const RunResult& r) {
    report.runs.push_back(r);
    if (!report.config.json_path.empty()) {
      std::string err = write_json_report(report, report.config.json_path);
      if (!err.empty()) std::fprintf(stderr, "rwstress: warning: --json: %s\n", err.c_str());
    }
  });
  any_hang_ |= out.any_hang;
  stopped_ |= out.stopped;
  return out.error;
}

int SessionReport::finish(const PrintFn& print) {
  write_extra_reports(report, print);
  print(console_final_line(report));
  int code = exit_code_of(report.overall());
  if (any_hang_) _exit(code);
  return code;
}

bool write_extra_reports(const Report& report, const PrintFn& print) {
  const RunConfig& c = report.config;
  bool ok = true;
  auto file = [&](const std::string& what, const std::string& path, const std::string& text) {
    if (path.empty()) return;
    std::string err = write_report_file(path, text);
    if (err.empty()) {
      print(fmt::format("{} written to {}", what, path));
    } else {
      print(fmt::format("rwstress: warning: {}: {}", what, err));
      ok = false;
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
  return ok;
}

}  // namespace rwstress
