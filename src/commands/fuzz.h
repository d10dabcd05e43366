// rwstress fuzz: a campaign of random trials, each a child process that runs
// exactly the trial's replay command line (so the reproducer is the trial),
// logged as JSON lines the moment it ends, grouped into findings, each
// finding rerun and shrunk; resumable, shardable across machines and
// mergeable (docs/fuzzing.md).
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

// Trial k of the campaign cfg.seed over cfg.locks, for a campaign of
// `ncpus` CPUs, run on `slot` (the CPUs of the job that runs it: the trial
// takes the first of them, as many as it drew, at most all). The same
// (seed, k, ncpus) give the same draws.
FuzzTrial fuzz_trial(const RunConfig& cfg, int ncpus, std::uint64_t k, const std::vector<int>& slot);

// The injector specs trials draw from (each parses; test_cli checks).
const std::vector<std::string>& fuzz_inject_menu();

// The job slots of a campaign: `jobs` disjoint runs of consecutive CPUs of
// `cpus` (the first slots get the remainder).
std::vector<std::vector<int>> fuzz_slots(const std::vector<int>& cpus, int jobs);

// The campaign argv kept in DIR's header, for `fuzz --resume DIR`: "" or why not.
std::string fuzz_resume_args(const std::string& dir, std::vector<std::string>* args);

// Runs the campaign (or, with cfg.fuzz.merge, the merge); returns the exit
// code (0: no finding).
int run_fuzz(const RunConfig& cfg, const Topology& topology, const Output& out);

}  // namespace rwstress
