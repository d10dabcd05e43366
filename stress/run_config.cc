#include "stress/run_config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace rwstress {

std::string CpuSpec::describe() const {
  if (count > 0) return std::to_string(count);
  if (list.empty()) return "all";
  std::vector<std::string> ranges;
  for (size_t i = 0; i < list.size();) {
    size_t j = i;
    while (j + 1 < list.size() && list[j + 1] == list[j] + 1) ++j;
    ranges.push_back(j == i ? std::to_string(list[i]) : fmt::format("{}-{}", list[i], list[j]));
    i = j + 1;
  }
  return fmt::format("{}", fmt::join(ranges, ","));
}

std::optional<CpuSpec> parse_cpu_spec(const std::string& text, std::string* error) {
  auto bad = [&](const std::string& why) -> std::optional<CpuSpec> {
    *error = fmt::format("--cpus '{}': {}; use a count (4) or a list (0-3,8)", text, why);
    return std::nullopt;
  };
  auto number = [](const std::string& s, int* out) {
    if (s.empty() || s.size() > 6) return false;
    for (char c : s)
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    *out = std::atoi(s.c_str());
    return true;
  };
  CpuSpec spec;
  if (text.find_first_of(",-") == std::string::npos) {
    if (!number(text, &spec.count) || spec.count < 1) return bad("not a positive count");
    return spec;
  }
  std::vector<bool> seen;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t comma = text.find(',', pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? text.size() : comma + 1;
    if (item.empty()) {
      if (comma == std::string::npos || pos == text.size()) break;  // trailing comma
      return bad("empty item");
    }
    size_t dash = item.find('-');
    int lo, hi;
    if (dash == std::string::npos) {
      if (!number(item, &lo)) return bad(fmt::format("'{}' is not a CPU number", item));
      hi = lo;
    } else if (!number(item.substr(0, dash), &lo) || !number(item.substr(dash + 1), &hi)) {
      return bad(fmt::format("'{}' is not a range", item));
    }
    if (hi < lo) return bad(fmt::format("range '{}' runs backwards", item));
    if (hi >= 65536) return bad(fmt::format("CPU {} is out of range", hi));
    if (seen.size() <= size_t(hi)) seen.resize(size_t(hi) + 1, false);
    for (int c = lo; c <= hi; ++c) seen[size_t(c)] = true;
  }
  for (size_t c = 0; c < seen.size(); ++c)
    if (seen[c]) spec.list.push_back(int(c));
  if (spec.list.empty()) return bad("no CPUs listed");
  return spec;
}

bool RunConfig::selects(Family f) const {
  for (const LockEntry* e : locks)
    if (e->meta.family == f) return true;
  return false;
}

Scenario RunConfig::scenario_for(const LockMeta& meta) const {
  Scenario sc;
  sc.family = meta.family;
  sc.readers = meta.family == Family::kRwlock ? readers : 0;
  sc.writers = meta.family == Family::kRwlock ? writers : threads;
  sc.count = count;
  sc.tuning = tuning;
  sc.sched = sched;
  sc.duration = duration;
  sc.cs_read_loops = cs_read_loops;
  sc.cs_write_loops = cs_write_loops;
  sc.delay_loops = delay_loops;
  sc.seed = seed;
  sc.watchdog = watchdog;
  sc.fail_fast = fail_fast;
  sc.injection = injection.empty() ? nullptr : &injection;
  return sc;
}

std::string RunConfig::describe(const PlacementPlan& plan) const {
  CpuSpec used;
  used.list = plan.cpus;
  std::sort(used.list.begin(), used.list.end());
  std::string cpu_arg = used.describe();
  if (used.list.size() == 1) cpu_arg += ",";  // a bare number would be a count
  std::string roles;
  if (selects(Family::kRwlock)) roles += fmt::format(" --readers {} --writers {}", readers, writers);
  if (selects(Family::kSemaphore) || selects(Family::kMutex))
    roles += fmt::format(" --threads {}", threads);
  if (selects(Family::kSemaphore)) roles += fmt::format(" --count {}", count);
  const LockTuning defaults;
  if (tuning.handoff != defaults.handoff) roles += " --rwsem-handoff off";
  if (tuning.reader_steal != defaults.reader_steal) roles += " --rwsem-reader-steal off";
  if (tuning.spin_limit != defaults.spin_limit) roles += fmt::format(" --spin-limit {}", tuning.spin_limit);
  if (tuning.xadd_unfair_wake) roles += " --xadd-wake unfair";
  for (const InjectSpec& spec : injection.specs)  // quoted: "exp(2us)" is shell syntax
    roles += fmt::format(" --inject '{}'", spec.describe());
  return fmt::format("rwstress --lock {}{}{} --duration {} --cpus {} --placement {} --cs-read {} "
                     "--cs-write {} --delay {} --watchdog {}{} --seed {:#x}",
                     lock_spec, roles, sched ? " --sched" : "", format_duration(duration), cpu_arg,
                     placement_name(placement), cs_read_loops, cs_write_loops, delay_loops,
                     format_duration(watchdog),
                     std::string(fail_fast ? " --fail-fast" : "") + (rusage ? " --rusage" : ""),
                     seed);
}

}  // namespace rwstress
