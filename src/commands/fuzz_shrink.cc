#include "commands/fuzz_shrink.h"

#include <algorithm>

#include <fmt/format.h>

#include "locks/lock_tuning.h"
#include "platform/duration.h"
#include "platform/interrupt.h"

namespace rwstress {

namespace {

using Argv = std::vector<std::string>;

// Where flag's value is, or 0.
std::size_t value_at(const Argv& a, const std::string& flag) {
  for (std::size_t i = 1; i + 1 < a.size(); ++i)
    if (a[i] == flag) return i + 1;
  return 0;
}

long long number_of(const Argv& a, const std::string& flag) {
  const std::size_t at = value_at(a, flag);
  if (at == 0) return -1;
  try {
    return std::stoll(a[at]);
  } catch (const std::exception&) {
    return -1;
  }
}

Argv with_value(Argv a, std::size_t at, const std::string& value) {
  a[at] = value;
  return a;
}

Argv without(Argv a, std::size_t at, std::size_t words) {
  a.erase(a.begin() + std::ptrdiff_t(at), a.begin() + std::ptrdiff_t(at + words));
  return a;
}

// Smaller values of a count: 0 (where allowed), half, one less.
std::vector<long long> smaller(long long v, long long least) {
  std::vector<long long> out;
  if (least == 0 && v > 0) out.push_back(0);
  if (v / 2 >= std::max(least, 1LL) && v / 2 < v) out.push_back(v / 2);
  if (v - 1 >= least && v - 1 != v / 2 && v - 1 != 0) out.push_back(v - 1);
  return out;
}

}  // namespace

std::vector<Argv> shrink_candidates(const Argv& a) {
  std::vector<Argv> out;
  // A shorter run first: every later try costs less.
  if (std::size_t at = value_at(a, "--duration")) {
    std::string err;
    if (auto d = parse_duration(a[at], &err, std::chrono::milliseconds(1));
        d && *d >= std::chrono::milliseconds(200))
      out.push_back(with_value(a, at, format_duration(*d / 2)));
  }
  for (std::size_t i = 1; i + 1 < a.size(); ++i)
    if (a[i] == "--inject") out.push_back(without(a, i, 2));
  for (std::size_t i = 1; i < a.size(); ++i)
    if (a[i] == "--sched") out.push_back(without(a, i, 1));
  for (const Knob& k : kKnobs)
    if (std::size_t at = value_at(a, "--" + std::string(k.flag))) out.push_back(without(a, at - 1, 2));
  // Fewer threads: a role may go to 0 while the other keeps someone.
  const long long readers = number_of(a, "--readers"), writers = number_of(a, "--writers");
  for (const char* role : {"--readers", "--writers", "--threads"}) {
    const long long v = number_of(a, role);
    if (v <= 0) continue;
    const long long other = std::string(role) == "--readers"   ? writers
                            : std::string(role) == "--writers" ? readers
                                                               : 0;
    for (long long n : smaller(v, other > 0 ? 0 : 1))
      out.push_back(with_value(a, value_at(a, role), std::to_string(n)));
  }
  if (const long long count = number_of(a, "--count"); count > 1)
    out.push_back(with_value(a, value_at(a, "--count"), std::to_string(count - 1)));
  if (std::size_t at = value_at(a, "--cpus")) {
    std::vector<std::string> cpus;
    for (std::size_t from = 0; from <= a[at].size();) {
      const std::size_t comma = std::min(a[at].find(',', from), a[at].size());
      cpus.push_back(a[at].substr(from, comma - from));
      from = comma + 1;
    }
    for (long long n : smaller(static_cast<long long>(cpus.size()), 1)) {
      std::string list;
      for (long long i = 0; i < n; ++i) list += (i ? "," : "") + cpus[std::size_t(i)];
      out.push_back(with_value(a, at, list));
    }
  }
  for (const char* work : {"--cs-read", "--cs-write", "--delay"}) {
    const long long v = number_of(a, work);
    if (v > 0) out.push_back(with_value(a, value_at(a, work), "0"));
    if (v > 4) out.push_back(with_value(a, value_at(a, work), std::to_string(v / 4)));
  }
  if (std::size_t at = value_at(a, "--try-every"); at && a[at] != "16")
    out.push_back(without(a, at - 1, 2));
  if (std::size_t at = value_at(a, "--killable-every"); at) out.push_back(without(a, at - 1, 2));
  if (std::size_t at = value_at(a, "--placement"); at && a[at] != "compact")
    out.push_back(without(a, at - 1, 2));
  // A controlled trial's: fewer operations, a shallower PCT, no signals.
  if (const long long ops = number_of(a, "--ops"); ops > 1)
    out.push_back(with_value(a, value_at(a, "--ops"), std::to_string(ops - 1)));
  if (std::size_t at = value_at(a, "--strategy"); at && a[at].rfind("pct:depth=", 0) == 0) {
    const int depth = a[at].back() - '0';
    if (depth > 1 && a[at].size() == 11) out.push_back(with_value(a, at, fmt::format("pct:depth={}", depth - 1)));
  }
  for (std::size_t i = 1; i < a.size(); ++i)
    if (a[i] == "--signals") out.push_back(without(a, i, 1));
  return out;
}

FindingCheck check_finding(const std::string& exe, const TrialRecord& trial,
                           const TrialLimits& limits, const ShrinkOptions& options,
                           const std::function<void(const std::string&)>& say) {
  FindingCheck c;
  c.id = finding_id(finding_key(trial));
  // Runs argv up to `runs` times; counts those that fail like the trial.
  // With `until_first`, stops at the first.
  using Clock = std::chrono::steady_clock;
  // What one more run is expected to cost: the longest seen so far.
  Clock::duration run_cost = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(std::max(trial.seconds, 0.1)));
  const auto fits = [&](Clock::duration cost) {
    return options.deadline == Clock::time_point::max() || Clock::now() + cost <= options.deadline;
  };
  const auto failures = [&](const Argv& argv, int runs, bool until_first, int* ran) {
    int failed = 0;
    for (*ran = 0; *ran < runs && interrupt_signal() == 0;) {
      if (!fits(run_cost)) {
        c.cut_short = true;
        break;
      }
      const auto t0 = Clock::now();
      const TrialOutcome o = run_one_trial(exe, argv, limits);
      run_cost = std::max(run_cost, Clock::now() - t0);
      if (o.verdict == "INTERRUPTED") break;
      ++*ran;
      if (same_failure(trial, o.verdict, o.signal, o.kinds)) {
        ++failed;
        if (until_first) break;
      }
    }
    return failed;
  };
  c.reproduced = failures(trial.argv, options.reruns, false, &c.runs);
  if (options.budget <= std::chrono::nanoseconds::zero() || options.reruns <= 0) return c;

  const auto start = std::chrono::steady_clock::now();
  // Shrinking leaves room for the shrunk command's own reruns.
  const auto spent = [&] {
    if (std::chrono::steady_clock::now() - start >= options.budget) return true;
    if (fits(run_cost * (options.reruns + 1))) return false;
    c.cut_short = true;
    return true;
  };
  Argv current = trial.argv;
  bool progress = true;
  while (progress && !spent() && interrupt_signal() == 0) {
    progress = false;
    for (const Argv& candidate : shrink_candidates(current)) {
      if (spent() || interrupt_signal() != 0) break;
      ++c.shrink_tries;
      int ran = 0;
      if (failures(candidate, options.reruns, true, &ran) > 0) {
        current = candidate;
        ++c.shrink_steps;
        say(fmt::format("  shrink step {}: {}", c.shrink_steps, shell_command(current)));
        progress = true;
        break;
      }
    }
    if (!progress && !spent() && interrupt_signal() == 0) c.shrink_finished = true;
  }
  c.shrink_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  c.shrunk = current;
  c.shrunk_reproduced = failures(current, options.reruns, false, &c.shrunk_runs);
  return c;
}

}  // namespace rwstress
