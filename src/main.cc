// rwstress: the command-line entry point. Parses once, plans placement,
// runs each selected lock, streams the table, writes the reports.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "cli/cli.h"
#include "commands/compare.h"
#include "commands/explore.h"
#include "commands/fuzz.h"
#include "commands/kernel.h"
#include "commands/selftest.h"
#include "commands/session.h"
#include "commands/suite.h"
#include "commands/sweep.h"
#include "commands/validate.h"
#include "platform/cycle_clock.h"
#include "platform/interrupt.h"
#include "platform/printable.h"
#include "platform/topology.h"
#include "registry/registry.h"
#include "report/report.h"

using namespace rwstress;

namespace {

void print(const std::string& line) {
  std::fputs(line.c_str(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "rwstress: error: %s\n", printable(message).c_str());
  return 2;
}

// After the rows: the --lockstat table and --hist histograms.
void print_measurements(const Report& report) {
  const auto& runs = report.runs;
  double overhead = 0;
  for (const RunResult& r : runs)
    if (r.measured) overhead = r.clock_overhead_ns;
  if (report.config.measure.lockstat)
    for (const auto& line : lockstat_table(runs)) print(line);
  for (bool hold : {true, false}) {
    if (!(hold ? report.config.measure.hist_hold : report.config.measure.hist_wait)) continue;
    if (report.config.measure.lockstat || !hold) print("");
    for (const auto& line : histogram_text(runs, hold, overhead)) print(line);
  }
}

int run_main(RunConfig cfg) {
  Topology topology = Topology::load_system();
  std::vector<int> cpus;
  try {
    cpus = cfg.chosen_cpus(topology);
  } catch (const TopologyError& e) {
    // `--cpus 4` meant a count before 0.2: say what to write now.
    if (cfg.cpus.list.size() == 1)
      return usage_error(fmt::format("{} (--cpus takes CPU numbers; for the first {} CPUs write "
                                     "--ncpus {})",
                                     e.what(), cfg.cpus.list[0], cfg.cpus.list[0]));
    return usage_error(e.what());
  }
  SessionReport session(cfg, topology, "run", print);
  Report& report = session.report;
  int most_threads = 0;
  for (const LockMeta* m : cfg.locks)
    most_threads = std::max(most_threads, cfg.threads_for(m->family));
  report.plan = topology.plan(most_threads, cpus);

  // Find out now, not after the runs, that the results cannot be saved.
  if (std::string err = session.open(); !err.empty()) return usage_error(err);

  print(fmt::format("rwstress {}: {}; {} placement: {}", kVersion, report.host_summary,
                    placement_name(cfg.placement), report.plan.describe()));
  print(fmt::format("seed {:#x}, {} per lock{}, watchdog {}", cfg.seed,
                    format_duration(cfg.duration),
                    cfg.repeat > 1 ? fmt::format(", {} runs each", cfg.repeat) : "",
                    format_duration(cfg.watchdog)));
  if (cfg.measure.any()) print("measuring clock: " + CycleClock::calibrate().describe());
  print("");
  print(console_header());

  SessionPoint point;
  point.cpus = cpus;
  if (std::string err = session.run(cfg, point); !err.empty()) return usage_error(err);
  print("");
  print_measurements(report);
  if (cfg.measure.any()) print("");
  return session.finish();
}

}  // namespace

// The commands that watch interrupt_signal(): a signal ends them with their
// reports finished, INTERRUPTED and 128 + the signal.
bool watches_interrupts(CliAction action) {
  switch (action) {
    case CliAction::kRun:
    case CliAction::kSweep:
    case CliAction::kSuite:
    case CliAction::kFuzz:
    case CliAction::kExplore:
    case CliAction::kKernel:
    case CliAction::kValidate: return true;
    default: return false;
  }
}

int main(int argc, char** argv) {
  // First: a signal while the command line is read (plugins load, the
  // topology is probed) is held for the command, not lost with its reports.
  install_interrupt_handlers();
  std::vector<std::string> args(argv + 1, argv + argc);
  CliOutcome outcome = parse_cli(args);
  if (outcome.action == CliAction::kFuzz && !outcome.config.fuzz.resume.empty()) {
    // fuzz --resume DIR: the campaign's own options, from DIR's header;
    // --json and --junit may be given anew.
    const RunConfig given = outcome.config;
    std::vector<std::string> campaign;
    if (std::string err = fuzz_resume_args(given.fuzz.resume, &campaign); !err.empty())
      return usage_error("fuzz --resume: " + err);
    outcome = parse_cli(campaign);
    if (outcome.action != CliAction::kFuzz)
      return usage_error("fuzz --resume " + given.fuzz.resume + ": its campaign's options no longer parse: " +
                         outcome.output);
    outcome.config.fuzz.resume = outcome.config.fuzz.out_dir = given.fuzz.resume;
    if (!given.json_path.empty()) outcome.config.json_path = given.json_path;
    if (!given.junit_path.empty()) outcome.config.junit_path = given.junit_path;
  }
  if (!watches_interrupts(outcome.action)) release_interrupts();
  switch (outcome.action) {
    case CliAction::kExit:
      (outcome.exit_code == 0 ? std::cout : std::cerr) << outcome.output << "\n";
      return outcome.exit_code;
    case CliAction::kList: {
      std::string error;
      std::cout << console_lock_list(select_locks("all,busted", &error));
      return 0;
    }
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
    case CliAction::kCompare: {
      CompareSide a, b;
      const auto& ignore = outcome.config.compare_ignore;
      std::string err = load_compare_side(outcome.config.compare_a, &a, ignore);
      if (err.empty()) err = load_compare_side(outcome.config.compare_b, &b, ignore);
      if (!err.empty()) return usage_error(err);
      for (const auto& line : compare_table(a, b, outcome.config.compare_alpha)) print(line);
      return 0;
    }
    case CliAction::kValidate:
      try {
        Topology topology = Topology::load_system();
        const Output out{print, [](const std::string& message) { usage_error(message); }};
        const int code = run_validate(outcome.config, topology, out);
        std::fflush(stdout);
        _exit(code);  // a hung scenario's child is gone; nothing else to join
      } catch (const TopologyError& e) {
        return usage_error(e.what());
      }
    case CliAction::kExplore: {
      const Output out{print, [](const std::string& message) { usage_error(message); }};
      const int code = run_explore(outcome.config, out);
      std::fflush(stdout);
      _exit(code);  // a deadlocked schedule's threads stay parked; nothing to join
    }
    case CliAction::kKernel: {
      const Output out{print, [](const std::string& message) { usage_error(message); }};
      return run_kernel(outcome.config, out);
    }
    case CliAction::kFuzz:
      try {
        Topology topology = Topology::load_system();
        const Output out{print, [](const std::string& message) { usage_error(message); }};
        const int code = run_fuzz(outcome.config, topology, out);
        std::fflush(stdout);
        return code;
      } catch (const TopologyError& e) {
        return usage_error(e.what());
      }
    case CliAction::kSweep:
    case CliAction::kSuite:
      try {
        Topology topology = Topology::load_system();
        const Output out{print, [](const std::string& message) { usage_error(message); }};
        return outcome.action == CliAction::kSweep ? run_sweep(outcome.config, topology, out)
                                                   : run_suite(outcome.config, topology, out);
      } catch (const TopologyError& e) {
        return usage_error(e.what());
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
