// Shared helpers for the test suites.
#pragma once

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/topology.h"
#include "model/scenario.h"

namespace rwstress::test {

// A short run on this machine's first CPUs, pinned, with a fixed seed.
inline Scenario short_scenario(const Topology& topo, int readers, int writers,
                               std::chrono::milliseconds duration) {
  Scenario sc;
  sc.readers = readers;
  sc.writers = writers;
  sc.duration = duration;
  sc.seed = 0x5eed;
  sc.watchdog = std::chrono::seconds(5);
  sc.topology = &topo;
  sc.plan = topo.plan(readers + writers, topo.placement_order(Placement::kCompact));
  return sc;
}

struct ProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs the rwstress binary (RWSTRESS_BIN, set by ctest and meson) with
// shell-quoted arguments, after an optional shell prefix (e.g. a ulimit).
inline ProcessResult run_rwstress(const std::string& args, const std::string& shell_prefix = "") {
  const char* bin = std::getenv("RWSTRESS_BIN");
  ProcessResult r;
  if (!bin) {
    r.err = "RWSTRESS_BIN is not set";
    return r;
  }
  std::string base = "/tmp/rwstress_test_" + std::to_string(getpid());
  std::string cmd = shell_prefix + std::string(bin) + " " + args + " >" + base + ".out 2>" + base + ".err";
  int status = std::system(cmd.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

// Whether this process may make a thread SCHED_FIFO (tried on the calling
// thread, then put back).
inline bool may_use_sched_fifo() {
  sched_param fifo{};
  fifo.sched_priority = 1;
  if (sched_setscheduler(0, SCHED_FIFO, &fifo) != 0) return false;
  sched_param normal{};
  sched_setscheduler(0, SCHED_OTHER, &normal);
  return true;
}

#ifdef RWSTRESS_PLUGIN_DIR
// A plugin the build put beside the tests (examples/, tests/plugins/).
inline std::string plugin(const std::string& name) {
  return std::string(RWSTRESS_PLUGIN_DIR) + "/" + name + ".so";
}
#endif

}  // namespace rwstress::test
