#include "commands/fuzz.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands/fuzz_child.h"
#include "commands/fuzz_log.h"
#include "commands/fuzz_shrink.h"
#include "locks/lock_tuning.h"
#include "model/verdict.h"
#include "model/version.h"
#include "platform/duration.h"
#include "platform/interrupt.h"
#include "platform/splitmix.h"
#include "registry/registry.h"
#include "report/report.h"

namespace rwstress {

namespace {

using Clock = std::chrono::steady_clock;

template <class T>
T pick(std::mt19937_64& rng, std::initializer_list<T> choices) {
  return *(choices.begin() + rng() % choices.size());
}

// Log-uniform from 1 to `most` (as an integer).
long long log_uniform(std::mt19937_64& rng, long long most) {
  std::uniform_real_distribution<double> exponent(0, std::log(double(std::max(1LL, most))));
  return std::max(1LL, (long long)(std::exp(exponent(rng))));
}

// Zero a third of the time, else log-uniform from 1 to 100000 loop turns.
std::uint64_t loops(std::mt19937_64& rng) {
  if (rng() % 3 == 0) return 0;
  return std::uint64_t(log_uniform(rng, 100000));
}

// The watchdog of every trial; every pause in the menu stays far under half of it.
constexpr const char* kTrialWatchdog = "2s";

std::string duration_text(double seconds) {
  const long long s = (long long)seconds;
  if (s >= 3600) return fmt::format("{}h{:02}m{:02}s", s / 3600, s / 60 % 60, s % 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{:.1f}s", seconds);
}

// What identifies a campaign across its shards and resumes: two logs merge
// only when these agree.
nlohmann::json campaign_identity(const RunConfig& cfg, int ncpus, const std::string& locks) {
  return {{"seed", cfg.seed},
          {"locks", locks},
          {"trial_time", format_duration(cfg.fuzz.trial_time)},
          {"trials", cfg.fuzz.trials},
          {"ncpus", ncpus},
          {"explore_share", cfg.fuzz.explore_share}};
}

// The status line: in place on a terminal, a plain line every 30 s otherwise.
class Progress {
 public:
  Progress() : tty_(isatty(STDOUT_FILENO) == 1) {}
  void show(const std::string& text) {
    const auto now = Clock::now();
    if (now - last_ < (tty_ ? std::chrono::milliseconds(250) : std::chrono::milliseconds(30000))) return;
    last_ = now;
    if (tty_) {
      std::cout << "\r\033[K" << text << std::flush;
      visible_ = true;
    } else {
      std::cout << "progress: " << text << std::endl;
    }
  }
  // Before any other line.
  void clear() {
    if (tty_ && visible_) std::cout << "\r\033[K" << std::flush;
    visible_ = false;
  }

 private:
  bool tty_;
  bool visible_ = false;
  Clock::time_point last_ = Clock::now();
};

// The trials of one shard that are done: trial k is the shard's (k / N)th,
// and every one below a watermark is done, so a long campaign keeps only the
// few done out of order (parallel jobs) past it.
class CompletedSet {
 public:
  explicit CompletedSet(std::uint64_t shards) : shards_(shards) {}
  bool contains(std::uint64_t k) const {
    const std::uint64_t j = k / shards_;
    return j < below_ || above_.count(j) > 0;
  }
  void insert(std::uint64_t k) {
    if (contains(k)) return;
    ++size_;
    above_.insert(k / shards_);
    while (!above_.empty() && *above_.begin() == below_) {
      above_.erase(above_.begin());
      ++below_;
    }
  }
  std::uint64_t size() const { return size_; }

 private:
  std::uint64_t shards_;
  std::uint64_t below_ = 0, size_ = 0;
  std::set<std::uint64_t> above_;
};

std::string write_repro(const std::string& dir, const std::string& exe, const Finding& f,
                        std::uint64_t campaign_seed) {
  std::vector<std::string> drawn = f.first_trial.argv;
  drawn[0] = exe;
  // A reproducer is run from anywhere: a plugin named relative to the
  // campaign's directory is named absolutely (the binary already is).
  const auto absolute_plugins = [](std::vector<std::string>& argv) {
    for (std::size_t i = 1; i + 1 < argv.size(); ++i)
      if (argv[i] == "--plugin" && !argv[i + 1].empty() && argv[i + 1][0] != '/') {
        std::error_code ec;
        const std::filesystem::path abs = std::filesystem::absolute(argv[i + 1], ec);
        if (!ec) argv[i + 1] = abs.lexically_normal().string();
      }
  };
  absolute_plugins(drawn);
  std::string script = fmt::format(
      "#!/bin/sh\n# rwstress fuzz finding {}: {} {}{}, first in trial {} of campaign seed {:#x}\n",
      f.id, f.first_trial.lock, f.first_trial.verdict, kinds_text(f.first_trial.kinds),
      f.first_trial.trial, campaign_seed);
  std::vector<std::string> run = drawn;
  if (f.check) {
    const FindingCheck& c = *f.check;
    script += fmt::format("# the trial as drawn failed again in {} of {} reruns:\n#   {}\n",
                          c.reproduced, c.runs, shell_command(drawn));
    if (!c.shrunk.empty() && c.shrunk_reproduced > 0) {
      std::vector<std::string> shrunk = c.shrunk;
      shrunk[0] = exe;
      absolute_plugins(shrunk);
      script += fmt::format("# shrunk in {} step(s); it failed in {} of {} reruns{}\n", c.shrink_steps,
                            c.shrunk_reproduced, c.shrunk_runs,
                            c.shrunk_reproduced < c.shrunk_runs ? " (a timing bug: run it a few times)"
                                                                : "");
      // The shrunk line, unless it failed less often than the drawn one: a
      // shrink step is taken on one failure in K, so a timing bug may
      // shrink to a line that fails once in five (racy-tas's, shrunk to one
      // CPU), and a reproducer should fail when run.
      if (std::int64_t(c.shrunk_reproduced) * c.runs >= std::int64_t(c.reproduced) * c.shrunk_runs)
        run = shrunk;
      else
        script += fmt::format("#   {}\n# (less often than the trial as drawn: that is the one run)\n",
                              shell_command(shrunk));
    }
  }
  script += "exec " + shell_command(run) + "\n";
  return write_chosen_file(fmt::format("{}/repro-{}.sh", dir, f.id), script, 0777);
}

std::string rwstress_exe() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, std::size_t(n)) : std::string();
}

// Opens a campaign file for appending, cut to its complete lines first.
int open_for_append(const std::string& path, std::uint64_t keep, std::string* err) {
  // Never through a link planted at the log's name: the campaign's own
  // files are appended to, nothing else.
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0 || ftruncate(fd, off_t(keep)) != 0) {
    *err = fmt::format("{}: {}", path, std::strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  return fd;
}

// Writes --json and --junit of a summary; "" or the error.
std::string write_summary_files(const RunConfig& cfg, const CampaignSummary& s,
                                const nlohmann::json& header) {
  if (!cfg.json_path.empty())
    if (std::string err = write_report_file(cfg.json_path, summary_json(s, header).dump(2) + "\n");
        !err.empty())
      return "--json: " + err;
  if (!cfg.junit_path.empty())
    if (std::string err = write_report_file(
            cfg.junit_path, summary_junit(s, header.value("replay", std::string("rwstress fuzz"))));
        !err.empty())
      return "--junit: " + err;
  return "";
}

// --json and --junit, checked before the first trial: a summary that
// cannot be written is said now, not after an hour of trials.
std::string check_summary_paths(const RunConfig& cfg) {
  for (const auto& [flag, path] : {std::pair{"--json", &cfg.json_path}, std::pair{"--junit", &cfg.junit_path}})
    if (!path->empty())
      if (std::string err = check_report_path(*path); !err.empty()) return fmt::format("{}: {}", flag, err);
  return "";
}

int run_merge(const RunConfig& cfg, const Output& out) {
  if (std::string err = check_summary_paths(cfg); !err.empty()) {
    out.error("fuzz merge: " + err);
    return 2;
  }
  std::vector<CampaignLog> logs(cfg.fuzz.merge.size());
  CampaignSummary s;
  std::map<std::string, FindingCheck> checks;
  std::map<std::uint64_t, std::size_t> where;  // trial -> the directory it is in
  std::set<std::string> shards;
  for (std::size_t i = 0; i < logs.size(); ++i) {
    CampaignLog& log = logs[i];
    std::string twice;
    std::string err = read_campaign(cfg.fuzz.merge[i], &log, [&](const TrialRecord& r, bool) {
      if (auto [it, fresh] = where.try_emplace(r.trial, i); !fresh && it->second != i && twice.empty())
        twice = fmt::format("trial {} is in both {} and {} (the same shard twice?)", r.trial,
                            logs[it->second].dir, cfg.fuzz.merge[i]);
      s.add(r);
    });
    if (err.empty() &&
        log.header.value("campaign", nlohmann::json()) != logs[0].header.value("campaign", nlohmann::json()))
      err = fmt::format("{} is another campaign than {} ({} vs {})", log.dir, logs[0].dir,
                        log.header.value("campaign", nlohmann::json()).dump(),
                        logs[0].header.value("campaign", nlohmann::json()).dump());
    if (err.empty()) err = twice;
    if (!err.empty()) {
      out.error("fuzz merge: " + err);
      return 2;
    }
    for (const std::string& d : log.dropped) out.print("fuzz merge: " + d);
    shards.insert(fmt::format("{}/{}", log.header.value("shard_index", 0), log.header.value("shard_count", 1)));
    for (auto& [id, c] : log.checks) checks.emplace(id, c);  // the first directory's wins
  }
  s.attach(checks);
  out.print(fmt::format("rwstress fuzz merge: {} campaign dir(s), shard(s) {}", logs.size(),
                        fmt::join(shards, " ")));
  std::uint64_t missing = 0;
  if (const std::uint64_t planned = logs[0].header["campaign"].value("trials", std::uint64_t(0))) {
    for (std::uint64_t k = 0; k < planned; ++k) missing += where.count(k) == 0;
    if (missing) out.print(fmt::format("{} of the campaign's {} trials are in none of them", missing, planned));
  }
  s.state.owed = missing + s.interrupted;
  s.state.complete = s.state.owed == 0;
  out.print("");
  for (const std::string& line : summary_lines(s)) out.print(line);
  nlohmann::json header = logs[0].header;
  header["merged"] = cfg.fuzz.merge;
  if (std::string err = write_summary_files(cfg, s, header); !err.empty()) {
    out.error("fuzz merge: " + err);
    return 2;
  }
  return exit_code_of_verdict(s.worst);
}

}  // namespace

const std::vector<std::string>& fuzz_inject_menu() {
  static const std::vector<std::string> menu = {
      "sleep@before-sleep:p=0.2,fixed(200us)",
      "delay@after-enqueue+mid-release:p=0.01,fixed(20us)",
      "sleep@before-wake:p=0.01,fixed(100us)",
      "sleep@in-cs:p=0.001,fixed(2ms)",
      "yield@in-cs:p=0.01",
      "delay@spin:p=0.01,fixed(5us)",
      "yield@before-release:p=0.05",
      "stutter:every=200ms,for=20ms",
      "sleep@before-release:p=0.002,fixed(1ms)",
      "yield@before-acquire+after-release:p=0.05",
      "delay@after-release+between-passes:p=0.02,uniform(1us,50us)",
      "delay@before-sleep+after-wake:exp(2us)",
      "long-hold:p=0.0005,fixed(5ms)",
      "stall@in-cs+before-sleep:p=0.0001,fixed(50ms)",
      "shuffle:every=100ms",
      "cpu-offline:every=300ms,for=50ms",
      "priority:every=300ms,for=100ms",
  };
  return menu;
}

std::vector<std::vector<int>> fuzz_slots(const std::vector<int>& cpus, int jobs) {
  jobs = std::clamp(jobs, 1, std::max(1, int(cpus.size())));
  std::vector<std::vector<int>> slots(static_cast<std::size_t>(jobs));
  const std::size_t each = cpus.size() / std::size_t(jobs), extra = cpus.size() % std::size_t(jobs);
  std::size_t at = 0;
  for (std::size_t j = 0; j < slots.size(); ++j) {
    const std::size_t n = each + (j < extra ? 1 : 0);
    slots[j].assign(cpus.begin() + std::ptrdiff_t(at), cpus.begin() + std::ptrdiff_t(at + n));
    at += n;
  }
  return slots;
}

namespace {

// A controlled trial: the lock's threads under explore's scheduler, a few
// hundred schedules of a drawn strategy at a small shape (2 to 5 threads,
// where PCT's bound is high), 1 to 3 operations each; for a kernel-compat
// lock with killable entry points, fatal signals a third of the time.
// Deterministic: its reruns fail every time, and its output has the
// failing schedule's replay line.
void draw_controlled(std::mt19937_64& rng, const LockMeta& meta, std::uint64_t round, FuzzTrial& t) {
  std::vector<std::string>& a = t.argv;
  a.insert(a.end(), {"explore", "--lock", t.lock});
  switch (meta.family) {
    case Family::kRwlock: {
      int readers = pick(rng, {0, 1, 1, 2, 2, 3});
      int writers = pick(rng, {0, 1, 1, 2});
      if (readers + writers < 2) writers = 2 - readers;
      a.insert(a.end(), {"--readers", std::to_string(readers), "--writers", std::to_string(writers)});
      break;
    }
    case Family::kMutex:
      a.insert(a.end(), {"--threads", std::to_string(pick(rng, {2, 3, 3, 4}))});
      break;
    case Family::kSemaphore: {
      const int threads = pick(rng, {2, 3, 3, 4});
      a.insert(a.end(), {"--threads", std::to_string(threads), "--count",
                         std::to_string(1 + int(rng() % std::uint64_t(threads - 1)))});
      break;
    }
  }
  a.insert(a.end(), {"--ops", std::to_string(pick(rng, {1, 2, 2, 3})), "--strategy",
                     pick(rng, {std::string("random"), std::string("pct:depth=1"),
                                std::string("pct:depth=2"), std::string("pct:depth=3"),
                                std::string("pct:depth=3")}),
                     "--schedules", pick(rng, {std::string("100"), std::string("300")})});
  if (meta.kernel_layer && meta.caps.killable && rng() % 3 == 0) a.push_back("--signals");
  // A weak memory model in six of a lock's eight rounds, c11 in five of
  // those six: c11 finds what tso finds and the ordering bugs too, and a
  // store-buffering bug in far fewer schedules (busted-percpu-no-fence,
  // 300 schedules, 4 seeds: c11 every time at every strategy and shape
  // tried; tso 5 of 48 runs). By round, not drawn, so every lock's first
  // controlled trial is under c11: drawn, busted-percpu-no-fence's first
  // six at seed 0x200 came out three tso, two without a model and one
  // without readers, and the campaign missed it. (The two draws are still
  // taken, so the trials' other draws stay as they were.)
  static constexpr const char* kModels[8] = {"c11", nullptr, "c11", "tso", "c11", nullptr, "c11", "c11"};
  rng();
  rng();
  if (const char* model = kModels[round % 8]; model && memory_modelled(meta))
    a.insert(a.end(), {"--memory", model});
  a.insert(a.end(), {"--seed", fmt::format("{:#x}", t.seed)});
}

// Which explorable lock the j-th controlled trial runs: the trials go
// round the locks, each round in its own shuffled order (Fisher-Yates,
// written out so that every machine draws the same order), so every lock
// gets its turn once a round. A uniform draw gave, at seed 0x200, one
// busted lock 2 of 275 controlled trials and another 14: a bug only a
// memory model shows was missed.
std::size_t controlled_turn(std::uint64_t seed, std::uint64_t j, std::size_t locks) {
  std::vector<std::size_t> order(locks);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::mt19937_64 rng(splitmix64(seed ^ 0x726f756e64ULL ^ splitmix64(j / locks + 1)));
  for (std::size_t i = locks; i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  return order[j % locks];
}

}  // namespace

FuzzTrial fuzz_trial(const RunConfig& cfg, int ncpus, std::uint64_t k, const std::vector<int>& slot) {
  FuzzTrial t;
  t.index = k;
  std::vector<std::string>& a = t.argv;
  a.push_back("rwstress");
  for (const std::string& p : cfg.plugins) a.insert(a.end(), {"--plugin", p});
  // Controlled trials come between the timed ones, at the campaign's share
  // of the trial numbers (trial k is one when floor((k+1)*share) passes
  // floor(k*share)), over the explorable locks. They are additions: the
  // timed trials are the --explore-share 0 campaign's, in its order (a
  // controlled trial cannot judge fairness, so it must not take a timed
  // trial's place).
  std::vector<const LockMeta*> explorable;
  for (const LockMeta* m : cfg.locks)
    if (entry_of(*m).explore) explorable.push_back(m);
  const double share = explorable.empty() ? 0.0 : cfg.fuzz.explore_share;
  const auto before = [share](std::uint64_t n) { return std::uint64_t(std::floor(double(n) * share)); };
  if (before(k + 1) > before(k)) {
    const std::uint64_t j = before(k);  // this one's number among the controlled trials
    std::mt19937_64 side(splitmix64(cfg.seed ^ 0x636f6e74726f6cULL ^ splitmix64(j + 1)));
    t.seed = side();
    side();  // was the lock's draw: kept, so that a one-lock campaign's trials stay as they were
    const LockMeta& meta = *explorable[controlled_turn(cfg.seed, j, explorable.size())];
    t.lock = std::string(meta.name);
    draw_controlled(side, meta, j / explorable.size(), t);
    return t;
  }
  std::mt19937_64 rng(splitmix64(cfg.seed ^ splitmix64(k - before(k) + 1)));
  t.seed = rng();
  const LockMeta& meta = *cfg.locks[rng() % cfg.locks.size()];
  t.lock = std::string(meta.name);
  a.insert(a.end(), {"--lock", t.lock});
  // A hand-off rwlock's promise is about a writer waiting among readers
  // that keep the lock busy: half its trials have overlapping readers (at
  // least four, a long read section, little time between acquisitions) and
  // a writer. Only such a lock draws
  // for it, so the other locks' trials stay what they were.
  bool overlap = false;
  switch (meta.family) {
    case Family::kRwlock: {
      int readers = pick(rng, {0, 1, 2, 3, 4, 6, 8});
      int writers = pick(rng, {0, 1, 1, 2, 3, 4});
      if (readers + writers == 0) writers = 1;
      if (meta.fairness == Fairness::kHandoff && rng() % 2 == 0) {
        overlap = true;
        readers = std::max(readers, 4);
        writers = std::max(writers, 1);
      }
      a.insert(a.end(), {"--readers", std::to_string(readers), "--writers", std::to_string(writers)});
      break;
    }
    // One thread finds only what a sequential test would: rarely drawn.
    case Family::kMutex:
      a.insert(a.end(), {"--threads", std::to_string(pick(rng, {1, 2, 2, 3, 4, 4, 6, 8}))});
      break;
    case Family::kSemaphore: {
      // A count below the threads, mostly: waiters are where the bugs are.
      const int threads = pick(rng, {1, 2, 2, 3, 4, 4, 6, 8});
      const int count = rng() % 8 == 0 ? threads + 1 : 1 + int(rng() % std::uint64_t(std::max(1, threads - 1)));
      a.insert(a.end(), {"--threads", std::to_string(threads), "--count", std::to_string(count)});
      break;
    }
  }
  if (rng() % 4 == 0) a.push_back("--sched");
  // A hand-off lock is judged by its waits, which need a run long enough
  // for one to outlast the bound (model/verdict.h).
  a.insert(a.end(), {"--duration", format_duration(meta.fairness == Fairness::kHandoff
                                                       ? std::max<std::chrono::nanoseconds>(
                                                             cfg.fuzz.trial_time, kHandoffMinRun)
                                                       : cfg.fuzz.trial_time)});
  // Half the trials on every CPU (races need parallel threads), the rest on
  // 1 to all (fewer CPUs than threads: preemption inside the lock).
  const std::uint64_t all = std::uint64_t(std::max(1, ncpus));
  const std::size_t drawn = rng() % 2 == 0 ? all : 1 + rng() % all;
  std::string cpus;
  for (std::size_t i = 0; i < std::min(drawn, slot.size()); ++i)
    cpus += (i ? "," : "") + std::to_string(slot[i]);
  if (cpus.empty()) cpus = "0";
  a.insert(a.end(), {"--cpus", cpus, "--placement",
                     pick(rng, {std::string("compact"), std::string("scatter")})});
  // Drawn for every lock so that the draws after it stay the same, given
  // only to a lock with readers (elsewhere it is noise the shrinker must
  // spend steps removing).
  const std::uint64_t cs_read = overlap ? std::max<std::uint64_t>(loops(rng), 20000) : loops(rng);
  if (meta.family == Family::kRwlock) a.insert(a.end(), {"--cs-read", std::to_string(cs_read)});
  const std::uint64_t cs_write = loops(rng), delay = loops(rng);
  a.insert(a.end(), {"--cs-write", std::to_string(cs_write), "--delay",
                     std::to_string(overlap ? std::min<std::uint64_t>(delay, 100) : delay)});
  a.insert(a.end(), {"--try-every", std::to_string(pick(rng, {2, 4, 16, 16, 64}))});
  // The knobs this lock reads, each changed a third of the time: a choice
  // knob to any of its words, a number knob log-uniform up to 8x its default.
  const LockTuning defaults;
  for (const Knob& k : kKnobs) {
    if (!k.drawn || !reads_knob(k, t.lock) || rng() % 3 != 0) continue;
    const int value = k.choices.empty()
                          ? int(std::clamp<long long>(rng() % 4 == 0 ? k.min : log_uniform(rng, 8LL * (defaults.*k.field)),
                                                      k.min, k.max))
                          : k.choices[rng() % k.choices.size()].value;
    a.insert(a.end(), {"--" + std::string(k.flag), knob_text(k, value)});
  }
  // Zero to four injectors in all: in one trial in four, spurious futex
  // returns (a sleeping lock must survive them, and most of the menu never
  // makes one), and the rest from the menu, none twice.
  const bool spurious = rng() % 4 == 0;
  const std::vector<std::string>& menu = fuzz_inject_menu();
  std::set<std::size_t> chosen;
  const std::uint64_t n = std::min<std::uint64_t>(pick(rng, {0, 0, 1, 1, 2, 3, 4}), spurious ? 3 : 4);
  while (chosen.size() < n) chosen.insert(rng() % menu.size());
  for (std::size_t i : chosen) a.insert(a.end(), {"--inject", menu[i]});
  if (spurious)
    a.insert(a.end(), {"--inject", pick(rng, {std::string("spurious-wake:p=0.05"),
                                              std::string("spurious-wake:p=0.25")})});
  // A lock on the kernel-compat layer also gets, a third of the time each,
  // the injectors only it has points for: a fatal signal as it goes to
  // sleep (its killable and interruptible waits bail out) and
  // need_resched() (its optimistic spinners stop). Other locks draw nothing
  // here, so their trials stay what they were.
  // With a signal, half the time the killed waiter is also slow to leave
  // (after its wake-up, or between its decision under the wait lock and
  // acting on it), the windows of a bail-out path's lost wake-up; a lock
  // with killable entry points takes them at a drawn share a third of the
  // time.
  if (meta.kernel_layer) {
    if (rng() % 3 == 0) {
      a.insert(a.end(), {"--inject", pick(rng, {std::string("signal:p=0.05"),
                                                std::string("signal:p=0.25")})});
      if (rng() % 2 == 0)
        a.insert(a.end(),
                 {"--inject", pick(rng, {std::string("delay@after-wake:p=0.5,fixed(500us)"),
                                         std::string("delay@wait-unlock:p=0.1,fixed(100us)")})});
    }
    if (rng() % 3 == 0) a.insert(a.end(), {"--inject", std::string("resched:p=0.05")});
    if (meta.caps.killable && rng() % 3 == 0)
      a.insert(a.end(), {"--killable-every", std::to_string(pick(rng, {1, 2, 16}))});
  }
  a.insert(a.end(), {"--watchdog", kTrialWatchdog, "--seed", fmt::format("{:#x}", t.seed)});
  return t;
}

std::string fuzz_resume_args(const std::string& dir, std::vector<std::string>* args) {
  const std::string path = dir + "/trials.jsonl";
  std::ifstream in(path);
  std::string line;
  if (!in) return fmt::format("{}: {}", path, std::strerror(errno ? errno : EIO));
  if (!std::getline(in, line)) return path + ": the file is empty: no campaign header, not a fuzz campaign";
  try {
    const nlohmann::json header = nlohmann::json::parse(line);
    // (A trial's line has an argv too: the header is the one with the
    // campaign's seed, as read_campaign knows it.)
    if (!header.is_object() || !header.contains("campaign_seed"))
      return path + ": its first line is no campaign header: not a fuzz campaign";
    *args = header.at("argv").get<std::vector<std::string>>();
    if (std::find(args->begin(), args->end(), "fuzz") == args->end())
      return path + ": its header's command line is not a fuzz campaign's";
  } catch (const nlohmann::json::exception&) {
    return path + ": no campaign header: not a fuzz campaign";
  }
  return "";
}

int run_fuzz(const RunConfig& cfg, const Topology& topology, const Output& out) {
  const RunConfig::Fuzz& f = cfg.fuzz;
  if (!f.merge.empty()) return run_merge(cfg, out);

  const std::vector<int> cpus = cfg.chosen_cpus(topology);
  const int ncpus = int(cpus.size());
  const int jobs = f.jobs > 0 ? std::min(f.jobs, ncpus) : std::max(1, ncpus / 4);
  const std::vector<std::vector<int>> slots = fuzz_slots(cpus, jobs);
  std::string locks;
  for (const LockMeta* m : cfg.locks) locks += (locks.empty() ? "" : ",") + std::string(m->name);
  std::vector<std::string> campaign_argv = f.argv;
  if (std::find(campaign_argv.begin(), campaign_argv.end(), "--seed") == campaign_argv.end())
    campaign_argv.insert(campaign_argv.end(), {"--seed", fmt::format("{:#x}", cfg.seed)});
  std::vector<std::string> replay_argv = {"rwstress"};
  replay_argv.insert(replay_argv.end(), campaign_argv.begin(), campaign_argv.end());
  const std::string replay = shell_command(replay_argv);

  // Trial k belongs to this shard when k mod N == i.
  const auto next_index = [&](std::uint64_t k) {
    const std::uint64_t n = std::uint64_t(f.shard_count), i = std::uint64_t(f.shard_index);
    return k % n <= i ? k - k % n + i : k - k % n + n + i;
  };
  if (f.dry_run > 0) {
    std::uint64_t k = next_index(0);
    for (int n = 0; n < f.dry_run; ++n, k = next_index(k + 1))
      out.print(shell_command(fuzz_trial(cfg, ncpus, k, slots[0]).argv));
    return 0;
  }
  if (std::string err = check_summary_paths(cfg); !err.empty()) {
    out.error("fuzz: " + err);
    return 2;
  }
  const std::string exe = rwstress_exe();
  if (exe.empty()) {
    out.error("fuzz: cannot find this rwstress binary (/proc/self/exe)");
    return 2;
  }

  // The campaign directory: what a resumed one holds is read into the summary.
  CampaignLog log;
  nlohmann::json header = {{"rwstress_version", kVersion},
                           {"campaign_seed", cfg.seed},
                           {"replay", replay},
                           {"argv", campaign_argv},
                           {"host", topology.summary()},
                           {"locks", locks},
                           {"jobs", jobs},
                           {"shard_index", f.shard_index},
                           {"shard_count", f.shard_count},
                           {"campaign", campaign_identity(cfg, ncpus, locks)}};
  int log_fd = -1, checks_fd = -1;
  const std::string& dir = f.out_dir;
  CampaignSummary summary;
  CompletedSet completed(std::uint64_t(f.shard_count));
  if (!f.resume.empty()) {
    const auto take = [&](const TrialRecord& r, bool) {
      // Each line must be the draw of its index under this campaign's seed
      // (on one of its job slots): a line from another campaign is refused.
      if (log.header.value("campaign", nlohmann::json()) == header["campaign"]) {
        bool drawn = false;
        for (const std::vector<int>& slot : slots)
          drawn = drawn || fuzz_trial(cfg, ncpus, r.trial, slot).argv == r.argv;
        if (!drawn)
          throw CorruptRecord(fmt::format("trial {}'s command line is not the campaign's draw for it", r.trial));
      }
      summary.add(r);
      if (r.verdict != "INTERRUPTED") completed.insert(r.trial);
    };
    if (std::string err = read_campaign(dir, &log, take); !err.empty()) {
      out.error("fuzz --resume: " + err);
      return 2;
    }
    for (const std::string& d : log.dropped) out.print("fuzz --resume: " + d);
    if (log.header.value("campaign", nlohmann::json()) != header["campaign"]) {
      out.error(fmt::format("fuzz --resume {}: this machine draws another campaign ({} vs {})", dir,
                            header["campaign"].dump(), log.header.value("campaign", nlohmann::json()).dump()));
      return 2;
    }
    header = log.header;
    std::string err;
    log_fd = open_for_append(dir + "/trials.jsonl", log.trials_bytes, &err);
    if (log_fd >= 0) checks_fd = open_for_append(dir + "/findings.jsonl", log.checks_bytes, &err);
    if (checks_fd < 0) {
      out.error("fuzz --resume: " + err);
      return 2;
    }
  } else if (!dir.empty()) {
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      out.error(fmt::format("fuzz --out {}: {}", dir, std::strerror(errno)));
      return 2;
    }
    const std::string path = dir + "/trials.jsonl";
    log_fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) {
      out.error(fmt::format("fuzz --out {}: {}: {}{}", dir, path, std::strerror(errno),
                            errno == EEXIST ? " (a campaign is there already: --resume it, or use a new --out)"
                                            : ""));
      return 2;
    }
    std::string err = append_line(log_fd, header.dump());
    checks_fd = open((dir + "/findings.jsonl").c_str(),
                     O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (checks_fd < 0) err = fmt::format("{}/findings.jsonl: {}", dir, std::strerror(errno));
    if (!err.empty()) {
      out.error(fmt::format("fuzz --out {}: {}", dir, err));
      return 2;
    }
  }
  const auto log_error = [&](const std::string& err) {
    out.error(fmt::format("fuzz --out {}: {}", dir, err));
    return 2;
  };

  const double elapsed_before = summary.seconds;
  out.print(fmt::format(
      "rwstress {} fuzz: campaign seed {:#x}, {} lock(s), {} per trial, {}, {} job(s) on {} CPU(s){}{}",
      kVersion, cfg.seed, cfg.locks.size(), format_duration(f.trial_time),
      f.trials ? fmt::format("{} trials", f.trials) : fmt::format("for {}", format_duration(f.time)),
      jobs, ncpus, f.shard_count > 1 ? fmt::format(", shard {}/{}", f.shard_index, f.shard_count) : "",
      f.resume.empty() ? "" : fmt::format(", resumed after {} trial(s)", completed.size())));

  // The trial's own watchdog reports a hang; this limit is for a trial that
  // cannot even do that.
  TrialLimits limits;
  limits.wall = f.trial_time + 4 * std::chrono::seconds(2) + std::chrono::seconds(10);
  limits.memory = f.trial_memory;
  limits.cpu_seconds = f.trial_cpu;
  TrialPool pool(exe, limits);
  Progress progress;
  const auto start = Clock::now();
  const auto elapsed = [&] {
    return elapsed_before + std::chrono::duration<double>(Clock::now() - start).count();
  };
  const double budget = std::chrono::duration<double>(f.time).count();
  // --time bounds the whole campaign, reruns and shrinking included: new
  // trials stop early enough to leave each finding so far the floor of its
  // reruns (K runs of a trial, with a second each for the process), at
  // most half the budget.
  const double trial_s = std::chrono::duration<double>(f.trial_time).count();
  const double rerun_floor_s = f.reproduce * (trial_s + 1.0);
  const auto reserve = [&] {
    std::uint64_t unchecked = 0;
    for (const Finding* fd : summary.findings()) unchecked += !fd->check;
    return std::min(budget / 2, double(unchecked) * rerun_floor_s);
  };
  std::uint64_t this_run = 0;
  const auto status = [&] {
    const double t = elapsed(), here = std::chrono::duration<double>(Clock::now() - start).count();
    const double rate = here > 0 ? double(this_run) * 60 / here : 0;
    std::string text = fmt::format("{}{} · {} trials ({:.0f}/min)", duration_text(t),
                                   f.trials ? "" : " of " + duration_text(budget),
                                   completed.size(), rate);
    std::map<std::string, std::uint64_t> failures;  // verdict -> trials
    for (const auto& [lock, counts] : summary.table)
      for (const auto& [v, n] : counts)
        if (v != "PASS") failures[v] += n;
    for (const auto& [v, n] : failures) text += fmt::format(" · {} {}", v, n);
    text += fmt::format(" · {} finding(s)", summary.finding_count());
    const std::uint64_t n = std::uint64_t(f.shard_count), i = std::uint64_t(f.shard_index);
    const double planned = f.trials > i ? double((f.trials - i + n - 1) / n) : 0;
    const double left = !f.trials ? std::max(0.0, budget - t)
                        : rate > 0 ? std::max(0.0, planned - double(completed.size())) * 60 / rate
                                   : 0;
    return text + " · ETA " + duration_text(left);
  };

  std::vector<bool> slot_busy(slots.size(), false);
  struct Running {
    TrialRecord record;
    std::size_t slot = 0;
  };
  std::map<int, Running> running;  // by the pool's tag
  int next_tag = 0;
  std::uint64_t k = next_index(0);
  bool stop = false;
  for (;;) {
    // Start trials while there is a free slot and the campaign goes on.
    while (!stop && interrupt_signal() == 0 && pool.running() < int(slots.size())) {
      while (completed.contains(k)) k = next_index(k + 1);
      if (f.trials ? k >= f.trials : elapsed() + trial_s >= budget - reserve()) break;
      const std::size_t slot = std::size_t(std::find(slot_busy.begin(), slot_busy.end(), false) - slot_busy.begin());
      FuzzTrial t = fuzz_trial(cfg, ncpus, k, slots[slot]);
      slot_busy[slot] = true;
      Running& run = running[next_tag];
      run.slot = slot;
      run.record.trial = k;
      run.record.seed = t.seed;
      run.record.lock = t.lock;
      run.record.argv = std::move(t.argv);
      pool.start(next_tag++, run.record.argv);
      k = next_index(k + 1);
    }
    if (pool.running() == 0) break;
    auto done = pool.wait(std::chrono::milliseconds(250));
    progress.show(status());
    if (!done) continue;
    auto it = running.find(done->first);
    TrialRecord r = std::move(it->second.record);
    slot_busy[it->second.slot] = false;
    running.erase(it);
    const TrialOutcome& o = done->second;
    if (o.exec_failed || (o.verdict == "ERROR" && o.exit_code < 0)) {  // no trial ran: not a result
      progress.clear();
      out.error(fmt::format("fuzz: trial {} could not start: {}", r.trial, o.last_line));
      return 2;
    }
    r.verdict = o.verdict;
    r.exit_code = o.exit_code;
    r.signal = o.signal;
    r.seconds = o.seconds;
    r.at = elapsed();
    r.kinds = o.kinds;
    r.first = o.first;
    r.last_line = o.last_line;
    r.digest = o.digest;
    if (log_fd >= 0)
      if (std::string err = append_line(log_fd, trial_to_json(r).dump()); !err.empty()) return log_error(err);
    const std::size_t findings_before = summary.finding_count();
    summary.add(r);
    if (r.verdict == "INTERRUPTED") continue;  // recorded; resumed later
    completed.insert(r.trial);
    ++this_run;
    if (r.verdict == "PASS") continue;
    if (summary.finding_count() > findings_before) {
      const std::string id = finding_id(finding_key(r));
      progress.clear();
      out.print(fmt::format("trial {}: new finding {}: {} {}{}{}", r.trial, id, r.lock, r.verdict,
                            r.signal.empty() ? "" : " (" + r.signal + ")", kinds_text(r.kinds)));
      if (!dir.empty())
        for (const Finding* fd : summary.findings())
          if (fd->id == id)
            if (std::string err = write_repro(dir, exe, *fd, cfg.seed); !err.empty()) return log_error(err);
    }
    if (f.stop_on_failure) stop = true;
  }
  progress.clear();
  const double trial_phase = std::chrono::duration<double>(Clock::now() - start).count();

  // Each finding not yet checked: rerun K times, then shrink; under --time,
  // each gets an equal share of what is left of the budget.
  CampaignSummary& s = summary;
  s.attach(log.checks);
  const bool interrupted = interrupt_signal() != 0;
  const auto campaign_end =
      f.trials ? Clock::time_point::max()
               : start + std::chrono::duration_cast<Clock::duration>(
                             std::chrono::duration<double>(std::max(0.0, budget - elapsed_before)));
  if (!interrupted && f.reproduce > 0) {
    ShrinkOptions opt;
    opt.reruns = f.reproduce;
    opt.budget = f.shrink_time;
    std::vector<const Finding*> unchecked;
    for (const Finding* found : s.findings())
      if (!found->check) unchecked.push_back(found);
    for (std::size_t i = 0; i < unchecked.size(); ++i) {
      const Finding& fd = *unchecked[i];
      if (interrupt_signal() != 0) break;
      if (campaign_end != Clock::time_point::max()) {
        const auto left = campaign_end - Clock::now();
        if (left < std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(trial_s + 1.0))) {
          s.state.cut_short.push_back(fmt::format(
              "{} finding(s) not rerun or shrunk: the --time budget ran out", unchecked.size() - i));
          break;
        }
        opt.deadline = Clock::now() + left / std::int64_t(unchecked.size() - i);
      }
      out.print(fmt::format("finding {}: rerunning {} time(s){}", fd.id, f.reproduce,
                            opt.budget > std::chrono::nanoseconds::zero()
                                ? fmt::format(", then shrinking for up to {}", format_duration(opt.budget))
                                : ""));
      FindingCheck c = check_finding(exe, fd.first_trial, limits, opt, out.print);
      if (interrupt_signal() != 0) break;  // a half-done check is not kept
      if (c.cut_short)
        s.state.cut_short.push_back(fmt::format("finding {}: the --time budget cut its reruns or shrinking short", c.id));
      if (checks_fd >= 0)
        if (std::string err = append_line(checks_fd, check_to_json(c).dump()); !err.empty())
          return log_error(err);
      log.checks[c.id] = c;
    }
    s.attach(log.checks);
    if (!dir.empty())
      for (const Finding* fd : s.findings())
        if (std::string err = write_repro(dir, exe, *fd, cfg.seed); !err.empty()) return log_error(err);
  }
  if (log_fd >= 0) close(log_fd);
  if (checks_fd >= 0) close(checks_fd);

  if (const int sig = interrupt_signal(); sig != 0) s.state.interrupted_by = interrupt_signal_name(sig);
  if (f.trials) {
    const std::uint64_t n = std::uint64_t(f.shard_count), i = std::uint64_t(f.shard_index);
    const std::uint64_t planned = f.trials > i ? (f.trials - i + n - 1) / n : 0;
    const std::uint64_t left = planned > completed.size() ? planned - completed.size() : 0;
    if (stop && interrupt_signal() == 0)
      s.state.cut_short.push_back(fmt::format("--stop-on-failure: {} trial(s) not run", left));
    else
      s.state.owed = left;
  } else {
    s.state.owed = s.interrupted;  // --time: the interrupted trials are owed to a --resume
  }
  s.state.complete = s.state.interrupted_by.empty() && s.state.owed == 0;

  out.print("");
  for (const std::string& line : summary_lines(s)) out.print(line);
  out.print("");
  out.print(fmt::format("this run: {} trials in {} ({:.1f} per minute), then {} checking findings",
                        this_run, duration_text(trial_phase),
                        trial_phase > 0 ? double(this_run) * 60 / trial_phase : 0.0,
                        duration_text(std::chrono::duration<double>(Clock::now() - start).count() - trial_phase)));
  out.print("campaign: " + replay);
  if (!dir.empty()) out.print(fmt::format("log: {}/trials.jsonl; resume: rwstress fuzz --resume {}", dir, shell_word(dir)));
  if (std::string err = write_summary_files(cfg, s, header); !err.empty()) {
    out.error("fuzz: " + err);
    return 2;
  }
  if (const int sig = interrupt_signal(); sig != 0) {
    out.print(fmt::format("interrupted by {} after {} trials", interrupt_signal_name(sig), completed.size()));
    return 128 + sig;
  }
  return exit_code_of_verdict(s.worst);
}

}  // namespace rwstress
