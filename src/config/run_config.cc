#include "config/run_config.h"

#include <algorithm>
#include <sstream>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace rwstress {

std::string CpuSpec::describe() const {
  if (count > 0) return fmt::format("first {}", count);
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
    *error = fmt::format("--cpus '{}': {}; give CPU numbers as taskset does (0, 0-3,8); for a "
                         "number of CPUs use --ncpus N",
                         text, why);
    return std::nullopt;
  };
  // All digits; a number past any CPU comes out as 65536 (out of range,
  // said as such below), not as "not a number".
  auto number = [](const std::string& s, int* out) {
    if (s.empty()) return false;
    for (char c : s)
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    *out = s.size() > 6 ? 65536 : std::atoi(s.c_str());
    return true;
  };
  CpuSpec spec;
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
    if (hi >= 65536)
      return bad(fmt::format("CPU {} is out of range (CPU numbers run from 0 to 65535)",
                             item.substr(dash == std::string::npos ? 0 : dash + 1)));
    if (seen.size() <= size_t(hi)) seen.resize(size_t(hi) + 1, false);
    for (int c = lo; c <= hi; ++c) seen[size_t(c)] = true;
  }
  for (size_t c = 0; c < seen.size(); ++c)
    if (seen[c]) spec.list.push_back(int(c));
  if (spec.list.empty()) return bad("no CPUs listed");
  return spec;
}

std::vector<int> RunConfig::chosen_cpus(const Topology& topology) const {
  if (cpus.count > 0 && std::size_t(cpus.count) > topology.placement_order(placement).size())
    throw TopologyError(fmt::format("--ncpus {}: this process may use {} CPU{}", cpus.count,
                                    topology.placement_order(placement).size(),
                                    topology.placement_order(placement).size() == 1 ? "" : "s"));
  return cpus.count > 0       ? topology.select_cpus(placement, cpus.count)
         : !cpus.list.empty() ? topology.select_cpus(placement, cpus.list)
                              : topology.placement_order(placement);
}

bool RunConfig::selects(Family f) const {
  for (const LockMeta* m : locks)
    if (m->family == f) return true;
  return false;
}

// `text` as one word of a POSIX shell command line: as it is when it holds
// nothing the shell would read, else single-quoted.
std::string shell_word(const std::string& text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_./,:=@%+-", c) != nullptr;
  });
  if (plain) return text;
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

Scenario RunConfig::scenario_for(const LockMeta& meta) const {
  Scenario sc;
  sc.family = meta.family;
  sc.plugin = meta.plugin;
  sc.readers = meta.family == Family::kRwlock ? readers : 0;
  sc.writers = meta.family == Family::kRwlock ? writers : threads;
  sc.count = count;
  sc.tuning = tuning;
  sc.sched = sched;
  sc.duration = duration;
  sc.cs_read_loops = cs_read_loops;
  sc.cs_write_loops = cs_write_loops;
  sc.delay_loops = delay_loops;
  sc.try_mask = try_every - 1;
  sc.killable_every = killable_every;
  sc.seed = seed;
  sc.watchdog = watchdog;
  sc.fail_fast = fail_fast;
  sc.injection = injection.empty() ? nullptr : &injection;
  sc.measure = measure;
  sc.check = check;
  sc.rt_threads = rt_threads;
  sc.writer_fifo = writer_fifo;
  sc.nested_locks = nested_locks;
  return sc;
}

std::string RunConfig::describe(const PlacementPlan& plan) const {
  CpuSpec used;
  used.list = plan.cpus;
  std::sort(used.list.begin(), used.list.end());
  // Whichever the user gave: a count replays as a count (the same first N
  // CPUs of the placement order), anything else as the CPUs used.
  const std::string cpu_arg = cpus.count > 0 ? fmt::format("--ncpus {}", cpus.count)
                                             : "--cpus " + used.describe();
  std::string roles;
  if (selects(Family::kRwlock)) roles += fmt::format(" --readers {} --writers {}", readers, writers);
  if (selects(Family::kSemaphore) || selects(Family::kMutex))
    roles += fmt::format(" --threads {}", threads);
  if (selects(Family::kSemaphore)) roles += fmt::format(" --count {}", count);
  roles += knob_flags(tuning);
  for (const InjectSpec& spec : injection.specs)  // quoted: "exp(2us)" is shell syntax
    roles += fmt::format(" --inject '{}'", spec.describe());
  if (!check) roles += " --no-check";
  if (rt_threads > 0) roles += fmt::format(" --rt-threads {}", rt_threads);
  if (writer_fifo) roles += " --writer-fifo";
  if (nested_locks > 0) roles += fmt::format(" --nested-locks {}", nested_locks);
  if (measure.lockstat) roles += " --lockstat";
  if (measure.acq_writer_limit_ns > 0)
    roles += " --acq-writer-lim " +
             format_duration(std::chrono::nanoseconds(measure.acq_writer_limit_ns));
  if (measure.hist_hold || measure.hist_wait) {
    roles += fmt::format(" --hist {}", measure.hist_hold && measure.hist_wait ? "hold,wait"
                                       : measure.hist_hold                    ? "hold"
                                                                              : "wait");
    if (measure.hist.mode == HistSpec::Mode::kLinear)
      roles += fmt::format(" --hist-bucket {}ns --hist-buckets {}", measure.hist.width_ns,
                           measure.hist.buckets);
  }
  if (repeat > 1) roles += fmt::format(" --repeat {}", repeat);
  // A sweep names its CPU counts and placements; a suite only its name and
  // what was given besides.
  std::string where = fmt::format(" {} --placement {}", cpu_arg, placement_name(placement));
  std::string command = "rwstress";
  for (const std::string& p : plugins) command += " --plugin " + shell_word(p);
  if (!suite.empty())  // the suite sets the rest itself
    return fmt::format("{} suite {}{} --duration {} --repeat {} --seed {:#x}", command, suite,
                       lock_given ? " --lock " + lock_spec : "", format_duration(duration), repeat,
                       seed);
  if (!sweep_cpus.empty()) {
    std::vector<std::string> names;
    for (Placement p : sweep_placements) names.emplace_back(placement_name(p));
    command += fmt::format(" sweep --cpus {} --placements {}{}", fmt::join(sweep_cpus, ","),
                          fmt::join(names, ","),
                          sweep_oversubscribe ? " --beyond oversubscribe" : "");
    where.clear();
  }
  return fmt::format("{} --lock {}{}{} --duration {}{} --cs-read {} "
                     "--cs-write {} --delay {}{} --watchdog {}{} --seed {:#x}",
                     command, lock_spec, roles, sched ? " --sched" : "", format_duration(duration), where,
                     cs_read_loops, cs_write_loops, delay_loops,
                     (try_every != 16 ? fmt::format(" --try-every {}", try_every) : "") +
                         (killable_every != 4 ? fmt::format(" --killable-every {}", killable_every)
                                              : ""),
                     format_duration(watchdog),
                     std::string(fail_fast ? " --fail-fast" : "") + (rusage ? " --rusage" : ""),
                     seed);
}

std::vector<std::string> split_list(const std::string& text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t at = text.find(sep, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

bool parse_shard(const std::string& text, int* index, int* count) {
  unsigned i = 0, n = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%u/%u%c", &i, &n, &tail) != 2 || n == 0 || i >= n || n > 1000000)
    return false;
  *index = int(i);
  *count = int(n);
  return true;
}

namespace {

bool parse_int(const std::string& text, int* out) {
  if (text.empty() || text.size() > 6 ||
      text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  *out = std::stoi(text);
  return true;
}

}  // namespace

std::optional<std::vector<int>> parse_cpu_counts(const std::string& text, std::string* error) {
  auto bad = [&](const std::string& why) -> std::optional<std::vector<int>> {
    *error = fmt::format("sweep --cpus '{}': {}", text, why);
    return std::nullopt;
  };
  std::vector<int> counts;
  for (const std::string& part : split_list(text, ',')) {
    size_t dots = part.find("..");
    if (dots == std::string::npos) {
      int n = 0;
      if (!parse_int(part, &n) || n < 1) return bad("'" + part + "' is not a CPU count (1 or more)");
      counts.push_back(n);
      continue;
    }
    std::string hi_text = part.substr(dots + 2);
    bool doubling = false;
    if (!hi_text.empty() && hi_text.back() == '2' && hi_text.size() >= 2 &&
        hi_text[hi_text.size() - 2] == 'x') {
      doubling = true;
      hi_text.resize(hi_text.size() - 2);
    }
    int lo = 0, hi = 0;
    if (!parse_int(part.substr(0, dots), &lo) || !parse_int(hi_text, &hi) || lo < 1 || hi < lo)
      return bad("'" + part + "' is not a range LO..HI or LO..HIx2 with 1 <= LO <= HI");
    if (hi > kMaxThreads) return bad(fmt::format("at most {} CPUs", kMaxThreads));
    for (int n = lo; n <= hi; n = doubling ? n * 2 : n + 1) counts.push_back(n);
  }
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  if (counts.empty()) return bad("no CPU counts");
  return counts;
}

std::optional<std::vector<Placement>> parse_placements(const std::string& text,
                                                       std::string* error) {
  std::vector<Placement> out;
  for (const std::string& part : split_list(text, ',')) {
    if (part == "compact")
      out.push_back(Placement::kCompact);
    else if (part == "scatter")
      out.push_back(Placement::kScatter);
    else if (part == "smt")
      out.push_back(Placement::kSmt);
    else {
      *error = fmt::format("placement '{}': use compact, scatter or smt", part);
      return std::nullopt;
    }
  }
  return out;
}

std::string scenario_key(const RunConfig& cfg, const Scenario& sc, const RunResult& r) {
  std::string key =
      fmt::format("{} {}", r.lock, test_shape(r.family, r.readers, r.writers, r.count));
  key += fmt::format(" sched={} cpus={} cs={}/{} delay={}", sc.sched ? "yes" : "no",
                     sc.plan.cpus.size(), sc.cs_read_loops, sc.cs_write_loops, sc.delay_loops);
  key += knob_key(sc.tuning);
  if (sc.try_mask != 15) key += fmt::format(" try=1/{}", sc.try_mask + 1);
  if (sc.killable_every != 4)
    key += sc.killable_every == 0 ? std::string(" killable=none")
                                  : fmt::format(" killable=1/{}", sc.killable_every);
  for (const InjectSpec& spec : cfg.injection.specs) key += " inject=" + spec.describe();
  if (!sc.check) key += " no-check";
  if (sc.rt_threads > 0) key += fmt::format(" rt={}", sc.rt_threads);
  if (sc.writer_fifo) key += " writer-fifo";
  if (sc.nested_locks > 0) key += fmt::format(" nested={}", sc.nested_locks);
  return key;
}

std::string scenario_key_without(const std::string& key, const std::vector<std::string>& ignore) {
  if (ignore.empty()) return key;
  std::string out;
  std::istringstream words(key);
  std::string w;
  for (int i = 0; words >> w; ++i) {
    const std::string name = i == 0 ? "lock" : w.substr(0, w.find('='));
    if (std::find(ignore.begin(), ignore.end(), name) != ignore.end()) continue;
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

std::vector<std::string> scenario_key_parts() {
  // The first word is the lock; the shape is always compared.
  std::vector<std::string> parts = {"lock", "sched", "cpus",   "cs",
                                    "delay", "try",  "killable", "inject", "no-check"};
  for (const Knob& k : kKnobs) parts.emplace_back(k.key);
  return parts;
}

}  // namespace rwstress
