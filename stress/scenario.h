// One run's typed parameters, derived once from the command line.
#pragma once

#include <chrono>
#include <cstdint>

#include "platform/topology.h"

namespace rwstress {

struct Scenario {
  int readers = 4;
  int writers = 2;
  bool sched = false;  // sched_yield() after each pass, as the seed's SCHED=yes
  std::chrono::nanoseconds duration = std::chrono::seconds(4);
  std::uint64_t cs_read_loops = 0;   // work inside a read hold, in empty-loop turns
  std::uint64_t cs_write_loops = 0;  // work inside a write hold
  std::uint64_t delay_loops = 0;     // work between acquisitions
  std::uint64_t seed = 0;
  std::chrono::nanoseconds watchdog = std::chrono::seconds(10);
  bool fail_fast = false;
  PlacementPlan plan;                 // one CPU per worker thread
  const Topology* topology = nullptr;  // pins threads; nullptr only in unit tests

  int threads() const { return readers + writers; }
};

}  // namespace rwstress
