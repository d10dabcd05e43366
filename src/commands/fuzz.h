// rwstress fuzz: a campaign of random trials, each a child process that runs
// exactly the trial's replay command line (so the reproducer is the trial),
// logged as JSON lines the moment it ends, and grouped into findings
// (docs/fuzzing.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/run_config.h"
#include "platform/topology.h"
#include "report/reporter.h"

namespace rwstress {

// One trial: its index in the campaign, its seed, and the argv that runs it
// (argv[0] "rwstress").
struct FuzzTrial {
  std::uint64_t index = 0;
  std::uint64_t seed = 0;
  std::string lock;  // the lock it drew (also in argv)
  std::vector<std::string> argv;
};

// Trial k of the campaign cfg.seed over cfg.locks, on at most `ncpus` CPUs.
// The same (seed, k) give the same trial.
FuzzTrial fuzz_trial(const RunConfig& cfg, int ncpus, std::uint64_t k);

// The injector specs trials draw from (each parses; test_cli checks).
const std::vector<std::string>& fuzz_inject_menu();

// argv as one shell command line, each word quoted where the shell needs it.
std::string shell_command(const std::vector<std::string>& argv);

// Runs the campaign; returns the exit code (0: no finding).
int run_fuzz(const RunConfig& cfg, const Topology& topology, const Output& out);

}  // namespace rwstress
