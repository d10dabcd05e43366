// Command-line parsing: argv -> one typed RunConfig, or one clear line and
// exit code 2.
#pragma once

#include <string>
#include <vector>

#include "config/run_config.h"
#include "model/version.h"

namespace rwstress {

enum class CliAction {
  kRun,   // the main torture + benchmark run
  kList,  // rwstress list
  kListInjectors,  // rwstress list injectors
  kSelftest,  // rwstress selftest [--short]
  kSweep,     // rwstress sweep --cpus 1,2,4 [--placements ...]
  kSuite,     // rwstress suite NAME
  kCompare,   // rwstress compare A.json B.json
  kValidate,  // rwstress validate --lock NAME [--time D]
  kFuzz,      // rwstress fuzz [--time D | --trials N] ...
  kKernel,    // rwstress kernel --source DIR | --version V [--patch F]...
  kExplore,   // rwstress explore --lock NAME [--strategy S] [--replay CODE]
  kExit,  // --help, --version, or a usage error: print `output`, exit `exit_code`
};

struct CliOutcome {
  CliAction action = CliAction::kExit;
  RunConfig config;
  int exit_code = 0;
  std::string output;  // for kExit: help/version text, or "rwstress: error: ..." (one line)
};

// args excludes argv[0].
CliOutcome parse_cli(const std::vector<std::string>& args);

}  // namespace rwstress
