// The whole invocation's typed configuration, parsed once by the CLI.
// Nothing downstream compares option strings.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "platform/duration.h"
#include "platform/topology.h"
#include "stress/registry.h"
#include "stress/scenario.h"

namespace rwstress {

inline constexpr int kMaxThreads = 4096;

// --cpus: a count ("4": the first four CPUs of the placement order) or a list
// ("0-3,8"). Neither: every CPU the process may use.
struct CpuSpec {
  int count = 0;
  std::vector<int> list;

  bool all() const { return count == 0 && list.empty(); }
  std::string describe() const;
};

struct RunConfig {
  std::string lock_spec = "rwlock";
  std::vector<const LockEntry*> locks;
  int readers = 4;
  int writers = 2;
  int threads = 4;  // semaphore and mutex runs: --threads, or --writers when given
  int count = 2;    // semaphore runs: initial count
  LockTuning tuning;
  InjectionPlan injection;  // --inject, in the order given
  bool sched = false;
  std::chrono::nanoseconds duration = std::chrono::seconds(4);
  CpuSpec cpus;
  Placement placement = Placement::kCompact;
  std::uint64_t cs_read_loops = 0;
  std::uint64_t cs_write_loops = 0;
  std::uint64_t delay_loops = 0;
  std::uint64_t seed = 0;
  std::chrono::nanoseconds watchdog = std::chrono::seconds(10);
  bool fail_fast = false;
  bool verbose = false;
  bool rusage = false;  // print the seed-001 system figures under each row
  std::string json_path;
  bool selftest_short = false;  // rwstress selftest --short

  bool selects(Family f) const;

  // The scenario of one lock: its family's thread roles, everything else
  // shared. The placement plan is the caller's.
  Scenario scenario_for(const LockMeta& meta) const;
  int threads_for(Family f) const { return f == Family::kRwlock ? readers + writers : threads; }

  // The command line that replays this run: every effective option, the CPUs
  // actually used, and the seed.
  std::string describe(const PlacementPlan& plan) const;
};


// "4" is a count; "0-3,8", "5," and "2-2" are lists. Returns nullopt and
// sets *error on anything else.
std::optional<CpuSpec> parse_cpu_spec(const std::string& text, std::string* error);


}  // namespace rwstress
