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

std::string format_duration(std::chrono::nanoseconds d) {
  auto ns = d.count();
  if (ns % 1000000000 == 0) return fmt::format("{}s", ns / 1000000000);
  if (ns % 1000000 == 0) return fmt::format("{}ms", ns / 1000000);
  if (ns % 1000 == 0) return fmt::format("{}us", ns / 1000);
  return fmt::format("{}ns", ns);
}

std::optional<std::chrono::nanoseconds> parse_duration(const std::string& text,
                                                       std::string* error) {
  auto bad = [&](const char* why) -> std::optional<std::chrono::nanoseconds> {
    *error = fmt::format("'{}' is not a duration ({}); use e.g. 2, 2s, 500ms, 250us", text, why);
    return std::nullopt;
  };
  if (text.empty()) return bad("empty");
  size_t unit_at = 0;
  while (unit_at < text.size() && (std::isdigit(static_cast<unsigned char>(text[unit_at])) ||
                                   text[unit_at] == '.'))
    ++unit_at;
  std::string number = text.substr(0, unit_at), unit = text.substr(unit_at);
  if (number.empty() || number.front() == '.' || number.back() == '.' ||
      number.find('.') != number.rfind('.'))
    return bad("expected a number first");
  double scale;
  if (unit.empty() || unit == "s")
    scale = 1e9;
  else if (unit == "ms")
    scale = 1e6;
  else if (unit == "us")
    scale = 1e3;
  else if (unit == "m")
    scale = 60e9;
  else
    return bad("unknown unit");
  double ns = std::strtod(number.c_str(), nullptr) * scale;
  if (!(ns >= 1e6)) return bad("shorter than 1ms");
  if (ns > 86400e9) return bad("longer than a day");
  return std::chrono::nanoseconds(std::int64_t(std::llround(ns)));
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
  return fmt::format("rwstress --lock {}{}{} --duration {} --cpus {} --placement {} --cs-read {} "
                     "--cs-write {} --delay {} --watchdog {}{} --seed {:#x}",
                     lock_spec, roles, sched ? " --sched" : "", format_duration(duration), cpu_arg,
                     placement_name(placement), cs_read_loops, cs_write_loops, delay_loops,
                     format_duration(watchdog), fail_fast ? " --fail-fast" : "", seed);
}

}  // namespace rwstress
