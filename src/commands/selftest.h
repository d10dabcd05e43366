// rwstress selftest: every busted lock under the conditions that catch it,
// every correct lock as a control, one table, exit 0 only if every busted
// lock was caught and no correct lock was flagged.
#pragma once

#include <functional>
#include <string>

#include "platform/topology.h"

namespace rwstress {

struct SelftestOptions {
  bool short_form = false;  // CI: 100 ms controls, 2 s caps, no uninjected comparison runs
  std::uint64_t seed = 0x5e1f7e57;
};

// Prints the table through `print`, line by line. Returns the exit code:
// 0 all caught and no control flagged, 1 otherwise.
int run_selftest(const SelftestOptions& opt, const Topology& topology,
                 const std::function<void(const std::string&)>& print);

}  // namespace rwstress
