// rwstress: the command-line entry point. Parses once, plans placement,
// runs each selected lock, streams the table, writes the reports.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "platform/topology.h"
#include "stress/cli.h"
#include "stress/report.h"
#include "stress/selftest.h"

using namespace rwstress;

namespace {

void print(const std::string& line) {
  std::fputs(line.c_str(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "rwstress: error: %s\n", message.c_str());
  return 2;
}

int run_main(RunConfig cfg) {
  Report report;
  Topology topology = Topology::load_system();
  std::vector<int> cpus;
  try {
    cpus = cfg.cpus.count > 0       ? topology.select_cpus(cfg.placement, cfg.cpus.count)
           : !cfg.cpus.list.empty() ? topology.select_cpus(cfg.placement, cfg.cpus.list)
                                    : topology.placement_order(cfg.placement);
  } catch (const TopologyError& e) {
    return usage_error(e.what());
  }
  report.host_summary = topology.summary();
  report.host_cpus = topology.allowed_cpu_count();
  int most_threads = 0;
  for (const LockEntry* e : cfg.locks)
    most_threads = std::max(most_threads, cfg.threads_for(e->meta.family));
  report.plan = topology.plan(most_threads, cpus);
  report.config = cfg;

  // Find out now, not after the runs, that the results cannot be saved.
  if (!cfg.json_path.empty()) {
    std::string err = write_json_report(report, cfg.json_path);
    if (!err.empty()) return usage_error("--json: " + err);
  }

  print(fmt::format("rwstress {}: {}; {} placement: {}", kVersion, report.host_summary,
                    placement_name(cfg.placement), report.plan.describe()));
  print(fmt::format("seed {:#x}, {} per lock, watchdog {}", cfg.seed,
                    format_duration(cfg.duration), format_duration(cfg.watchdog)));
  print("");
  print(console_header());

  bool any_hang = false;
  for (const LockEntry* entry : cfg.locks) {
    Scenario sc = cfg.scenario_for(entry->meta);
    sc.plan = topology.plan(sc.threads(), cpus);
    sc.topology = &topology;
    RunResult r = (sc.injection ? entry->run_injected : entry->run)(sc, entry->meta);
    if (!r.error.empty()) return usage_error(r.error);
    print(console_row(r));
    for (const auto& line : console_details(r, cfg.verbose, cfg.rusage)) print(line);
    any_hang |= r.verdict == Verdict::kHang;
    report.runs.push_back(std::move(r));
    if (!cfg.json_path.empty()) {
      std::string err = write_json_report(report, cfg.json_path);
      if (!err.empty()) std::fprintf(stderr, "rwstress: warning: --json: %s\n", err.c_str());
    }
    if (cfg.fail_fast && report.runs.back().verdict != Verdict::kPass) break;
  }
  print("");
  print(console_final_line(report));
  int code = exit_code_of(report.overall());
  // Threads stuck in a hung lock cannot be joined; leave without running
  // destructors they might race with.
  if (any_hang) _exit(code);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  CliOutcome outcome = parse_cli(args);
  switch (outcome.action) {
    case CliAction::kExit:
      (outcome.exit_code == 0 ? std::cout : std::cerr) << outcome.output << "\n";
      return outcome.exit_code;
    case CliAction::kList:
      std::cout << console_lock_list();
      return 0;
    case CliAction::kListInjectors:
      std::cout << describe_injectors();
      return 0;
    case CliAction::kSelftest: {
      SelftestOptions opt;
      opt.short_form = outcome.config.selftest_short;
      Topology topology = Topology::load_system();
      int code = run_selftest(opt, topology, print);
      _exit(code);  // hung busted locks leave threads that cannot be joined
    }
    case CliAction::kRun:
      try {
        return run_main(std::move(outcome.config));
      } catch (const TopologyError& e) {
        return usage_error(e.what());
      }
  }
  return 2;
}
