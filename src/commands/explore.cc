// rwstress explore (explore.h): strategies over the controlled scheduler,
// shrinking, traces and replay.
#include "commands/explore.h"
#include "commands/explore_trace.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <limits>
#include <new>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "platform/duration.h"
#include "platform/interrupt.h"
#include "platform/memory_model.h"
#include "platform/splitmix.h"
#include "registry/registry.h"
#include "report/report.h"
#include "run/explore_run.h"

namespace rwstress {

namespace {

namespace ctl = controlled;
using Clock = std::chrono::steady_clock;

// A split exhaustive search's subtrees start at its first this many
// decisions (explore.cc exhaust).
constexpr std::size_t kSplitDepth = 12;

// Shrinking tries this many bounded schedules per preemption count.
inline constexpr int kShrinkTries = 300;

// Schedule i's seed: the i-th draw of splitmix64's stream from `seed`.
std::uint64_t schedule_seed(std::uint64_t seed, std::uint64_t i) {
  return splitmix64(seed + 0x9e3779b97f4a7c15ULL * i);
}



std::string shape_text(const ExploreShape& shape) {
  const Scenario& sc = shape.scenario;
  std::string who =
      sc.family == Family::kRwlock
          ? fmt::format("{} reader{}, {} writer{}", sc.readers, sc.readers == 1 ? "" : "s",
                        sc.writers, sc.writers == 1 ? "" : "s")
          : fmt::format("{} thread{}", sc.writers, sc.writers == 1 ? "" : "s");
  if (sc.family == Family::kSemaphore) who += fmt::format(", count {}", sc.count);
  return fmt::format("{}, {} operation{} each", who, shape.ops, shape.ops == 1 ? "" : "s");
}

// The command that runs a schedule again: the plugin it came from first.
std::string replay_flags(const LockMeta& meta, const ExploreShape& shape,
                         const RunConfig::Explore& x) {
  const Scenario& sc = shape.scenario;
  constexpr std::string_view kPlugin = "plugin ";  // a plugin lock's origin: "plugin PATH"
  std::string f = meta.plugin && meta.origin.substr(0, kPlugin.size()) == kPlugin
                      ? fmt::format("--plugin {} explore", meta.origin.substr(kPlugin.size()))
                      : std::string("explore");
  f += fmt::format(" --lock {}", meta.name);
  if (sc.family == Family::kRwlock)
    f += fmt::format(" --readers {} --writers {}", sc.readers, sc.writers);
  else
    f += fmt::format(" --threads {}", sc.writers);
  if (sc.family == Family::kSemaphore) f += fmt::format(" --count {}", sc.count);
  for (const Knob& k : kKnobs)  // the knobs this lock reads, where not the default
    if (sc.tuning.*k.field != LockTuning{}.*k.field && reads_knob(k, meta.name))
      f += fmt::format(" --{} {}", k.flag, knob_text(k, sc.tuning.*k.field));
  // The clock's settings where not the defaults: a replay's times are the
  // recording's (a timed wait's deadline, a jump's length).
  const RunConfig::Explore defaults;
  if (x.step_ns != defaults.step_ns)
    f += " --step-time " + format_duration(std::chrono::nanoseconds(x.step_ns));
  if (x.time_jump_ns != defaults.time_jump_ns)
    f += " --time-jump " + format_duration(std::chrono::nanoseconds(x.time_jump_ns));
  if (x.handoff_after_ns != defaults.handoff_after_ns)
    f += " --handoff-after " + format_duration(std::chrono::nanoseconds(x.handoff_after_ns));
  return f + fmt::format(" --ops {}{}{}", shape.ops, x.signals ? " --signals" : "",
                         x.memory != ExploreMemory::kSc
                             ? fmt::format(" --memory {}", memory_name(x.memory))
                             : "");
}

// What a schedule that did not pass shows: the checkers' findings, or the
// threads' states at a deadlock or livelock.
std::vector<std::string> finding_lines(const ExploredSchedule& e, const ExploreShape& shape) {
  std::vector<std::string> lines;
  for (const Violation& v : e.violations)
    lines.push_back(fmt::format("{} ({}): {}", violation_kind_name(v.kind),
                                violation_source(v.thread), v.detail));
  if (e.schedule.outcome != ctl::Outcome::kDone) {
    lines.push_back(e.schedule.outcome == ctl::Outcome::kDeadlock
                        ? "deadlock: every unfinished thread is blocked"
                        : std::string(ctl::outcome_name(e.schedule.outcome)) +
                              ": no thread can make progress");
    for (const ctl::Schedule::ThreadState& t : e.schedule.states)
      lines.push_back(fmt::format("  thread {}: {}{} at {}", explore_thread_name(shape, t.thread), t.kind,
                                  t.word ? " on " + explore_word_name(e, shape, t.word) : "", t.at));
  }
  return lines;
}

ctl::Options base_options(const RunConfig& cfg) {
  ctl::Options o;
  o.max_steps = cfg.explore.max_steps;
  o.step_ns = cfg.explore.step_ns;
  // Budgets: kFirst (the exhaustive search's extension, a replay) takes
  // no event of its own; the search branches on them within these.
  o.spurious_wakes = cfg.explore.spurious_budget();
  o.expiries = cfg.explore.expiry_budget();
  o.signals = cfg.explore.signals;
  o.ticks = cfg.explore.tick_budget();
  o.time_jumps = cfg.explore.time_jumps;
  o.time_jump_ns = cfg.explore.time_jump_ns;
  o.memory = cfg.explore.memory == ExploreMemory::kC11   ? ctl::Memory::kC11
             : cfg.explore.memory == ExploreMemory::kTso ? ctl::Memory::kTso
                                                         : ctl::Memory::kSc;
  o.stale_reads = cfg.explore.stale_reads;
  o.fair_turns = cfg.explore.fair ? kFairTurnsPerThread : 0;
  return o;
}

struct Search {
  std::uint64_t schedules = 0;
  std::uint64_t steps = 0;
  bool complete = false;  // exhaustive: every schedule within the bound ran
  std::uint64_t at_bound = 0;  // exhaustive: schedules of the last bound's search
  bool found = false;
  std::uint64_t found_at = 0;  // 1-based schedule number
  ExploredSchedule failure;
  std::uint64_t k = 0;  // PCT's step bound: the longest schedule seen
  // --time: the search stops at `deadline` (and says so: `out_of_time`).
  std::optional<Clock::time_point> deadline;
  bool out_of_time = false;
  int bound_done = -1;  // exhaustive: the largest bound whose every schedule ran
  // A shard of a split search (--jobs, --shard): the schedules it ran
  // that another shard ran too (sampling: the first, unpreempted one;
  // exhaustive: the first schedule of every subtree split off above the
  // split depth), left out of the split search's count; and, under
  // --jobs, the word every shard's failure lowers (sampling: its
  // schedule's index; exhaustive: its bound) and every shard reads: a
  // sampling shard stops past it, an exhaustive one at or past its bound.
  std::uint64_t shared = 0;
  std::uint64_t shared_at_bound = 0;
  int bound = 0;  // exhaustive: the bound being searched
  std::atomic<std::uint64_t>* stop = nullptr;
  bool stopped_at(std::uint64_t key) const {
    return stop != nullptr && stop->load(std::memory_order_relaxed) < key;
  }
  // Whether the search may go on: schedules left, no signal, time left
  // (or fewer than the schedules it runs whatever the time: validate's).
  bool go_on(const RunConfig& cfg) {
    if (schedules >= cfg.explore.schedules || interrupt_signal() != 0) return false;
    if (deadline && Clock::now() >= *deadline && schedules >= cfg.explore.min_schedules)
      out_of_time = true;
    return !out_of_time;
  }
  // Whether any schedule met a need_resched() check (a tick could come)
  // or a signal check: --ticks and --signals change nothing otherwise.
  bool met_tick_check = false;
  bool met_clock_read = false;  // (a time jump could come: --time-jumps)
  bool met_signal_check = false;
  bool met_timed_wait = false;
};

// A lock whose code crashes in a schedule (a waiter left linked on a dead
// stack) takes the process with it: the handler says which schedule and
// step, and prints the schedule so far as a replay line (replaying it
// crashes the same way, at the same step). Async-signal-safe: text made
// before the search, digits by hand, write(2).
namespace crash {

char g_what[256];    // "LOCK: CRASH"
char g_replay[768];  // "  replay: rwstress ... --replay "
char g_settings[64];  // ":c11+signals:", between the digest and the choices
std::atomic<std::uint64_t> g_schedule{0};
int g_exit = 4;

struct Text {
  char buf[8192];
  std::size_t n = 0;
  void add(const char* s) {
    while (*s && n < sizeof buf) buf[n++] = *s++;
  }
  void num(std::uint64_t v, unsigned base = 10, int width = 0) {
    char d[24];
    int k = 0;
    do {
      d[k++] = "0123456789abcdef"[v % base];
      v /= base;
    } while (v || k < width);
    while (k > 0 && n < sizeof buf) buf[n++] = d[--k];
  }
};

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
  }
  return "a signal";
}

void handler(int sig) {
  Text t;
  t.add(g_what);
  t.add(" (");
  t.add(signal_name(sig));
  t.add(") at schedule ");
  t.num(g_schedule.load(std::memory_order_relaxed));
  const ctl::Schedule* s = ctl::schedule_so_far();
  if (s) {
    t.add(", step ");
    t.num(s->choices.size());
    t.add(": the lock's code crashed under this schedule\n");
    t.add(g_replay);
    t.num(s->digest, 16, 16);
    t.add(g_settings);
    for (std::size_t i = 0; i < s->choices.size();) {
      std::size_t j = i;
      while (j < s->choices.size() && s->choices[j] == s->choices[i]) ++j;
      if (i > 0) t.add(".");
      t.num(std::uint64_t(s->choices[i]));
      if (j - i > 1) t.add("x"), t.num(j - i);
      i = j;
    }
  } else {
    t.add(": outside the schedule's threads");
  }
  t.add("\n");
  for (std::size_t off = 0; off < t.n;) {
    const ssize_t w = write(STDOUT_FILENO, t.buf + off, t.n - off);
    if (w <= 0) break;
    off += std::size_t(w);
  }
  _exit(g_exit);
}

void arm(const std::string& what, const std::string& replay_prefix, const std::string& settings) {
  fmt::format_to_n(g_what, sizeof g_what - 1, "{}", what).out[0] = '\0';
  fmt::format_to_n(g_replay, sizeof g_replay - 1, "{}", replay_prefix).out[0] = '\0';
  fmt::format_to_n(g_settings, sizeof g_settings - 1, ":{}:", settings).out[0] = '\0';
  g_exit = exit_code_of(Verdict::kCrash);
  g_schedule.store(0, std::memory_order_relaxed);
  struct sigaction sa{};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
}

}  // namespace crash

// `number`: the schedule's number in the whole search, as a crash says it
// (0: the count run so far, plus one).
ExploredSchedule run_schedule(const LockEntry& entry, const ExploreShape& shape,
                              const ctl::Options& o, Search& search, std::uint64_t number = 0) {
  crash::g_schedule.store(number > 0 ? number : search.schedules + 1, std::memory_order_relaxed);
  ExploredSchedule e = entry.explore(shape, o);
  ++search.schedules;
  for (const ctl::Decision& d : e.schedule.decisions) {
    search.met_tick_check |= d.tick;
    search.met_clock_read |= d.jump;
    search.met_signal_check |= d.checking != 0;
    search.met_timed_wait |= d.timed != 0;
  }
  search.steps += e.schedule.trace.size();
  // PCT's k: the longest schedule seen, but for one that ran into the
  // fair tail (a strategy's starved loop, or a livelock): its length says
  // nothing of where the lock's steps are, and PCT's change points drawn
  // over it would mostly fall past the end of every other schedule.
  if (e.schedule.trace.size() < o.fair_from() || search.k == 0)
    search.k = std::max<std::uint64_t>(search.k, e.schedule.trace.size());
  return e;
}

// `number`: the schedule's 1-based number in the whole search (a
// sampling shard's are the whole search's); 0: the count run so far.
bool note_failure(Search& search, ExploredSchedule&& e, std::uint64_t number = 0) {
  if (e.verdict == Verdict::kPass) return false;
  search.found = true;
  search.found_at = number > 0 ? number : search.schedules;
  search.failure = std::move(e);
  return true;
}

// random and pct: schedule 1 runs without preemption (it measures k, the
// step count PCT draws its change points among), then the strategy's.
// Shard i of N runs schedule 1 (each shard measures k) and the schedules
// numbered m*N + i + 1, whose seeds are the whole search's: a failure
// found there is the same schedule, by the same number, as without shards
// where PCT's k (the longest schedule seen so far) came out the same.
void sample(const RunConfig& cfg, const LockEntry& entry, const ExploreShape& shape,
            Search& search) {
  const std::uint64_t n = std::uint64_t(cfg.explore.shard_count);
  const std::uint64_t me = std::uint64_t(cfg.explore.shard_index);
  ctl::Options o = base_options(cfg);
  o.strategy = ctl::Strategy::kFirst;
  ExploredSchedule first = run_schedule(entry, shape, o, search, 1);
  if (me != 0) ++search.shared;
  if (note_failure(search, std::move(first), 1)) return;
  for (std::uint64_t i = me == 0 ? n : me;
       i < cfg.explore.schedules && search.go_on(cfg) && !search.stopped_at(i); i += n) {
    o = base_options(cfg);
    o.seed = schedule_seed(cfg.seed, i);
    o.strategy = cfg.explore.pct ? ctl::Strategy::kPct : ctl::Strategy::kRandom;
    o.pct_depth = cfg.explore.depth;
    o.pct_steps = search.k;
    if (note_failure(search, run_schedule(entry, shape, o, search, i + 1), i + 1)) return;
  }
}

// What an exhaustive search's schedules take at most, by kind (or, along
// one schedule, what it took).
struct ExhaustiveCounts {
  int preempts = 0, weak = 0, ticks = 0, jumps = 0, signals = 0, wakes = 0, expiries = 0;
  int largest() const { return std::max({preempts, weak, ticks, jumps, signals, wakes, expiries}); }
};

ExhaustiveCounts exhaustive_limits(const RunConfig& cfg) {
  const ctl::Options o = base_options(cfg);
  ExhaustiveCounts limit;
  limit.preempts = cfg.explore.preemptions;
  limit.weak = cfg.explore.memory != ExploreMemory::kSc ? cfg.explore.stale_reads : 0;
  limit.ticks = o.ticks;
  limit.jumps = o.time_jumps;
  limit.signals = o.signals ? o.signal_checks : 0;
  limit.wakes = o.spurious_wakes;
  limit.expiries = o.expiries;
  return limit;
}

// The limits as the complete line says them: "2 preemptions, 1 weak
// choice (older values read, stores placed early) and 2 ticks ...".
std::string exhaustive_bounds(const RunConfig& cfg) {
  const ExhaustiveCounts limit = exhaustive_limits(cfg);
  std::vector<std::string> parts;
  const auto count = [&](int n, const char* one, const char* many, const char* what = "") {
    parts.push_back(fmt::format("{} {}{}", n, n == 1 ? one : many, what));
  };
  count(limit.preempts, "preemption", "preemptions");
  if (cfg.explore.memory != ExploreMemory::kSc)
    count(limit.weak, "weak choice", "weak choices",
          cfg.explore.memory == ExploreMemory::kC11 ? " (older values read, stores placed early)"
                                                    : " (older values read)");
  if (limit.ticks > 0) count(limit.ticks, "tick", "ticks", " at need_resched() checks");
  if (limit.jumps > 0) count(limit.jumps, "time jump", "time jumps", " at clock reads");
  if (limit.signals > 0) count(limit.signals, "signal", "signals");
  if (limit.wakes > 0) count(limit.wakes, "spurious wake-up", "spurious wake-ups");
  if (limit.expiries > 0) count(limit.expiries, "expiry", "expiries", " of timed waits");
  std::string text = parts.front();
  for (std::size_t i = 1; i < parts.size(); ++i)
    text += (i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return text;
}

// exhaustive: depth-first over the decisions, each schedule replaying a
// prefix and going on without preemption; alternatives that would exceed
// a bound are not taken. A decision's alternatives: the weak choices its
// step was offered under a memory model (each older value its load could
// read, its store placed early) and a tick at its need_resched() check or
// a time jump at its clock read,
// then every other eligible thread, one at a signal check with a signal
// too (--signals), every blocked thread woken spuriously, and every timed
// sleeper's timeout expiring. Along a schedule at most --preemptions
// preemptions, --stale-reads weak choices, --ticks ticks, --time-jumps
// time jumps, two signals,
// --spurious-wakes wake-ups and --expiries expiries. Iterative
// context bounding: bound 0, then 1, ... (each kind up to its own limit),
// so the first failure found has the fewest.
//
// Split among shards (--jobs, --shard): an alternative taken at one of the
// first kSplitDepth decisions starts a subtree, numbered in the search's
// order (the same in every shard: each runs the subtree's first schedule,
// which is what shows the decisions below); shard i of N searches the rest
// of the subtrees whose number mod N is i (the bound's first schedule is
// subtree 0's), and skips the others'. Every schedule within the bound
// runs in exactly one shard as its own.
void exhaust(const RunConfig& cfg, const LockEntry& entry, const ExploreShape& shape,
             Search& search) {
  enum Kind { kPlain, kSignal, kSpurious, kExpire };
  using Counts = ExhaustiveCounts;
  struct Frame {
    ctl::Decision d;
    std::uint64_t tried[4];  // threads taken here, by kind
    int prev;
    Counts before;  // taken before this decision
    // The alternative taken now.
    int thread;
    Kind kind;
    int weak;      // the weak choices its step was offered (known once it ran)
    int rank;      // the one taken (0: none)
    bool tick;     // its step met a need_resched() check or a clock read (known once it ran)
    bool jump;     // (the clock read: a time jump, not a tick)
    bool ticked;   // and the tick or the jump came there
    int code() const {
      return thread + (kind == kSignal || ticked ? ctl::kSignalChoice : 0) + rank * ctl::kReadChoice;
    }
  };
  const ctl::Options options = base_options(cfg);
  const Counts limit = exhaustive_limits(cfg);
  const std::uint64_t shards = std::uint64_t(cfg.explore.shard_count);
  const std::uint64_t me = std::uint64_t(cfg.explore.shard_index);
  for (int bound = 0; bound <= limit.largest(); ++bound) {
    search.bound = bound;
    Counts most;
    most.preempts = std::min(bound, limit.preempts);
    most.weak = std::min(bound, limit.weak);
    most.ticks = std::min(bound, limit.ticks);
    most.jumps = std::min(bound, limit.jumps);
    most.signals = std::min(bound, limit.signals);
    most.wakes = std::min(bound, limit.wakes);
    most.expiries = std::min(bound, limit.expiries);
    std::vector<Frame> stack;
    std::vector<int> prefix;
    search.at_bound = search.shared_at_bound = 0;
    std::uint64_t subtrees = 0;  // split off so far at this bound
    std::uint64_t owner = 0;     // the shard whose subtree the next schedule is in
    for (;;) {
      if (!search.go_on(cfg) || search.stopped_at(std::uint64_t(bound) + 1)) return;
      ctl::Options o = options;
      o.strategy = ctl::Strategy::kFirst;
      o.replay = prefix;
      ExploredSchedule e = run_schedule(entry, shape, o, search);
      ++search.at_bound;
      if (owner % shards != me) ++search.shared, ++search.shared_at_bound;
      const ctl::Schedule& s = e.schedule;
      // New decisions (past the replayed prefix) become frames, each with
      // what its prefix took; the decision the prefix changed learns what
      // its new step was offered.
      const std::size_t len = std::min(s.choices.size(), s.decisions.size());
      if (!prefix.empty() && prefix.size() <= stack.size() && prefix.size() <= len) {
        Frame& f = stack[prefix.size() - 1];
        const ctl::Decision& d = s.decisions[prefix.size() - 1];
        f.weak = d.weak;
        f.tick = d.tick || d.jump;
        f.jump = d.jump;
      }
      Counts took;
      for (std::size_t j = 0; j < len; ++j) {
        const ctl::Decision& d = s.decisions[j];
        const int c = s.choices[j];
        const int chose = ctl::chosen_thread(c);
        const std::uint64_t bit = std::uint64_t(1) << chose;
        const int prev = j > 0 ? ctl::chosen_thread(s.choices[j - 1]) : -1;
        const bool spurious = (d.sleeping & bit) != 0;
        const bool expired = (d.timed & bit) != 0;
        const bool signal = ctl::signal_chosen(c) && (d.checking & bit) != 0;
        const bool ticked = ctl::signal_chosen(c) && !signal;
        if (j >= stack.size()) {  // (kFirst's own choice: a thread going on, no event)
          Frame f{d,      {bit, 0, 0, 0},         prev,   took, chose, kPlain, d.weak,
                  ctl::read_chosen(c), d.tick || d.jump, d.jump, ticked};
          stack.push_back(f);
        }
        took.preempts += d.preemptible && chose != prev;
        took.weak += ctl::read_chosen(c) > 0;
        took.ticks += ticked && !d.jump;
        took.jumps += ticked && d.jump;
        took.signals += signal;
        took.wakes += spurious;
        took.expiries += expired;
      }
      if (note_failure(search, std::move(e))) return;
      // Back to the deepest decision with an alternative within the
      // bounds: a tick at its step, its next weak choice, then another
      // thread (with a signal, woken spuriously, or its timeout expiring).
      std::vector<int> choices = s.choices;
      bool next = false;
      while (!stack.empty() && !next) {
        Frame& f = stack.back();
        const std::size_t j = stack.size() - 1;
        // The alternative as the next schedule; below the split depth,
        // in another shard's subtree, skipped (with all below it).
        const auto take = [&] {
          if (j < kSplitDepth)
            owner = ++subtrees;
          else if (owner % shards != me)
            return;
          prefix.assign(choices.begin(), choices.begin() + std::ptrdiff_t(j));
          prefix.push_back(f.code());
          next = true;
        };
        const bool event_room =
            f.jump ? f.before.jumps < most.jumps : f.before.ticks < most.ticks;
        if (f.tick && !f.ticked && event_room) {
          f.ticked = true;
          take();
          if (next) break;
          continue;
        }
        if (f.rank < f.weak && f.before.weak < most.weak) {
          ++f.rank;
          f.tick = f.jump = f.ticked = false;  // (whether a check comes: once it has run)
          take();
          if (next) break;
          continue;
        }
        for (int k = kPlain; k <= kExpire && !next; ++k) {
          const std::uint64_t offered = k == kPlain      ? f.d.eligible
                                        : k == kSignal   ? f.d.checking
                                        : k == kSpurious ? f.d.sleeping
                                                         : f.d.timed;
          const bool room = k == kPlain      ? true
                            : k == kSignal   ? f.before.signals < most.signals
                            : k == kSpurious ? f.before.wakes < most.wakes
                                             : f.before.expiries < most.expiries;
          for (int t = 0; t < 64 && room && !next; ++t) {
            const std::uint64_t bit = std::uint64_t(1) << t;
            if (!(offered & bit) || (f.tried[k] & bit)) continue;
            f.tried[k] |= bit;
            const int cost = f.d.preemptible && t != f.prev ? 1 : 0;
            if (f.before.preempts + cost > most.preempts) continue;
            f.thread = t;
            f.kind = Kind(k);
            f.weak = f.rank = 0;  // (what its step is offered: once it has run)
            f.tick = f.jump = f.ticked = false;
            take();
          }
        }
        if (!next) stack.pop_back();
      }
      if (!next) break;  // this bound is exhausted
    }
    search.bound_done = bound;
  }
  search.complete = true;
}

// A failure found by sampling, shrunk: bounded random schedules with 0, 1,
// ... fewer preemptions than it had; the first that fails replaces it.
void shrink(const RunConfig& cfg, const LockEntry& entry, const ExploreShape& shape,
            Search& search, std::vector<std::string>& notes) {
  const int had = search.failure.schedule.preemptions;
  std::uint64_t tried = 0;
  for (int c = 0; c < had; ++c)
    for (int t = 0; t < kShrinkTries; ++t) {
      if (interrupt_signal() != 0) {
        notes.push_back(fmt::format("not shrunk: {} after {} bounded schedules", interrupted_text(),
                                    tried));
        return;
      }
      ctl::Options o = base_options(cfg);
      o.strategy = ctl::Strategy::kBounded;
      o.preemptions = c;
      o.pct_steps = std::max<std::uint64_t>(1, search.failure.schedule.trace.size());
      o.seed = schedule_seed(cfg.seed ^ 0x5348524e4bULL, std::uint64_t(c) * kShrinkTries + t);
      ExploredSchedule e = entry.explore(shape, o);
      ++tried;
      // The same failure class only: the verdict printed, the exit status
      // and the replay line all describe the one schedule kept (an xadd
      // FAIL shrunk into a HANG once printed HANG and exited 1).
      if (e.verdict != search.failure.verdict || e.schedule.preemptions >= had) continue;
      notes.push_back(fmt::format("shrunk from {} preemption{} to {} ({} bounded schedules tried)",
                                  had, had == 1 ? "" : "s", e.schedule.preemptions, tried));
      search.failure = std::move(e);
      return;
    }
  notes.push_back(fmt::format("not shrunk: no schedule with fewer than {} preemption{} failed "
                              "the same way ({}) in {} tried",
                              had, had == 1 ? "" : "s", verdict_name(search.failure.verdict),
                              tried));
}

// The strategy's search: every schedule within the bound, or samples.
void search_for(const RunConfig& cfg, const LockEntry& entry, const ExploreShape& shape,
                Search& search) {
  if (cfg.explore.time_ns > 0)
    search.deadline = Clock::now() + std::chrono::nanoseconds(cfg.explore.time_ns);
  if (cfg.explore.exhaustive)
    exhaust(cfg, entry, shape, search);
  else
    sample(cfg, entry, shape, search);
}

// A shard's search as its process hands it back (search_side_by_side):
// its counts, and a failure's choices, verdict and digest (the parent runs
// them again for the trace: a schedule replays step for step).
nlohmann::json shard_result(const Search& s) {
  nlohmann::json j = {{"schedules", s.schedules},     {"steps", s.steps},
                      {"shared", s.shared},           {"at_bound", s.at_bound},
                      {"shared_at_bound", s.shared_at_bound}, {"bound", s.bound},
                      {"complete", s.complete},       {"bound_done", s.bound_done},
                      {"out_of_time", s.out_of_time}, {"k", s.k},
                      {"tick", s.met_tick_check},     {"clock", s.met_clock_read},
                      {"signal", s.met_signal_check}, {"timed", s.met_timed_wait},
                      {"found", s.found}};
  if (s.found)
    j["failure"] = {{"at", s.found_at},
                    {"verdict", int(s.failure.verdict)},
                    {"digest", s.failure.schedule.digest},
                    {"choices", s.failure.schedule.choices}};
  return j;
}

// --jobs N: the search split into N shards (with --shard i/M, shards
// i + M*j of M*N), each in a process forked here and run side by side.
// A shard that fails lowers the shared stop word; the others stop past it
// (sampling: at the next schedule after the failure's number, so that the
// lowest-numbered failure is the one kept; exhaustive: at the failure's
// bound, so that the kept one has the fewest preemptions). The counts are
// summed (less the schedules two shards both ran); an exhaustive search is
// complete when every shard's is. The failure kept is run again here for
// its trace. A shard that crashes has printed its crash and replay line:
// the others are stopped and this process exits as it did. A shard that
// ended without its result (not interrupted) leaves the search unjudged:
// "" or why.
std::string search_side_by_side(const RunConfig& cfg, const LockEntry& entry,
                                const ExploreShape& shape, Search& search) {
  const int jobs = cfg.explore.jobs;
  void* page = mmap(nullptr, sizeof(std::atomic<std::uint64_t>), PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) {
    search_for(cfg, entry, shape, search);
    return "";
  }
  auto* stop = new (page) std::atomic<std::uint64_t>(~std::uint64_t(0));
  std::vector<pid_t> pids;
  std::vector<std::FILE*> results;
  std::fflush(stdout);
  std::fflush(stderr);
  for (int j = 0; j < jobs; ++j) {
    std::FILE* f = std::tmpfile();
    const pid_t pid = f != nullptr ? fork() : -1;
    if (pid == 0) {
      controlled::keep_process_on_nth_cpu(j);
      RunConfig mine = cfg;
      mine.explore.shard_index = cfg.explore.shard_index + cfg.explore.shard_count * j;
      mine.explore.shard_count = cfg.explore.shard_count * jobs;
      // (an exhaustive shard counts what it runs: a share of --schedules)
      if (cfg.explore.exhaustive)
        mine.explore.schedules = (cfg.explore.schedules + std::uint64_t(jobs) - 1) / std::uint64_t(jobs);
      Search s;
      s.stop = stop;
      search_for(mine, entry, shape, s);
      if (s.found) {
        const std::uint64_t key = cfg.explore.exhaustive ? std::uint64_t(s.bound) : s.found_at - 1;
        std::uint64_t seen = stop->load();
        while (key < seen && !stop->compare_exchange_weak(seen, key)) {
        }
      }
      const std::string text = shard_result(s).dump();
      const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size() &&
                           std::fflush(f) == 0;
      _exit(written ? 0 : 1);
    }
    if (pid < 0) {  // no process: the shards that started search alone
      if (f != nullptr) std::fclose(f);
      break;
    }
    pids.push_back(pid);
    results.push_back(f);
  }
  if (pids.empty()) {
    munmap(page, sizeof(std::atomic<std::uint64_t>));
    search_for(cfg, entry, shape, search);
    return "";
  }
  // Wait for every shard; a signal this process takes goes on to them.
  std::vector<int> status(pids.size(), -1);
  int crashed = 0;
  bool forwarded = false;
  for (std::size_t left = pids.size(); left > 0;) {
    for (std::size_t j = 0; j < pids.size(); ++j) {
      if (status[j] != -1) continue;
      int st = 0;
      if (waitpid(pids[j], &st, WNOHANG) != pids[j]) continue;
      status[j] = st;
      --left;
      // A shard that crashed (its handler said where and exits
      // crash::g_exit) or was killed: the others stop.
      if (interrupt_signal() == 0 && crashed == 0 &&
          (WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) == crash::g_exit))) {
        crashed = WIFSIGNALED(st) ? WTERMSIG(st) : -1;
        stop->store(0);
      }
    }
    if (!forwarded && interrupt_signal() != 0) {
      forwarded = true;
      for (std::size_t j = 0; j < pids.size(); ++j)
        if (status[j] == -1) kill(pids[j], interrupt_signal());
    }
    if (left > 0) usleep(2000);
  }
  munmap(page, sizeof(std::atomic<std::uint64_t>));
  if (crashed != 0) {
    for (std::FILE* f : results) std::fclose(f);
    std::fflush(stdout);
    if (crashed < 0) _exit(crash::g_exit);
    signal(crashed, SIG_DFL);
    raise(crashed);
  }
  // Merge: the lowest key's failure (then the lowest shard's).
  search.complete = true;
  search.bound_done = std::numeric_limits<int>::max();
  std::optional<std::uint64_t> best;
  std::vector<int> choices;
  std::uint64_t digest = 0;
  Verdict verdict = Verdict::kPass;
  std::string lost;
  for (std::size_t j = 0; j < results.size(); ++j) {
    std::string text;
    std::rewind(results[j]);
    char buf[65536];
    for (std::size_t got; (got = std::fread(buf, 1, sizeof buf, results[j])) > 0;) text.append(buf, got);
    std::fclose(results[j]);
    const nlohmann::json r = nlohmann::json::parse(text, nullptr, false);
    if (!WIFEXITED(status[j]) || WEXITSTATUS(status[j]) != 0 || r.is_discarded() || !r.is_object()) {
      search.complete = false;  // a shard that said nothing searched nothing we can count
      search.bound_done = -1;
      if (lost.empty() && interrupt_signal() == 0)
        lost = fmt::format("process {} of {} ended without its result ({}): the search is not judged",
                           j + 1, results.size(),
                           WIFEXITED(status[j]) ? fmt::format("exit {}", WEXITSTATUS(status[j]))
                                                : fmt::format("signal {}", WTERMSIG(status[j])));
      continue;
    }
    search.schedules += r.value("schedules", std::uint64_t(0)) - r.value("shared", std::uint64_t(0));
    search.steps += r.value("steps", std::uint64_t(0));
    search.at_bound += r.value("at_bound", std::uint64_t(0)) - r.value("shared_at_bound", std::uint64_t(0));
    search.complete = search.complete && r.value("complete", false);
    search.bound_done = std::min(search.bound_done, r.value("bound_done", -1));
    search.out_of_time |= r.value("out_of_time", false);
    search.k = std::max(search.k, r.value("k", std::uint64_t(0)));
    search.met_tick_check |= r.value("tick", false);
    search.met_clock_read |= r.value("clock", false);
    search.met_signal_check |= r.value("signal", false);
    search.met_timed_wait |= r.value("timed", false);
    if (!r.value("found", false) || !r.contains("failure")) continue;
    const nlohmann::json& f = r["failure"];
    const std::uint64_t key = cfg.explore.exhaustive ? r.value("bound", 0) : f.value("at", std::uint64_t(0));
    if (best && *best <= key) continue;
    best = key;
    search.found_at = f.value("at", std::uint64_t(0));
    verdict = Verdict(f.value("verdict", 0));
    digest = f.value("digest", std::uint64_t(0));
    choices = f.value("choices", std::vector<int>{});
  }
  if (search.bound_done == std::numeric_limits<int>::max()) search.bound_done = -1;
  if (!best) return lost;
  // The failure, run again here for its trace (and, should it not come
  // out the same, reported as its shard saw it).
  ctl::Options o = base_options(cfg);
  o.strategy = ctl::Strategy::kFirst;
  o.replay = choices;
  search.failure = entry.explore(shape, o);
  if (search.failure.verdict == Verdict::kPass || search.failure.schedule.digest != digest)
    search.failure.verdict = verdict;
  search.found = true;
  search.complete = false;
  // An exhaustive search's number: the schedules its shards ran.
  if (cfg.explore.exhaustive) search.found_at = search.schedules;
  return "";
}

// A sampled failure with preemptions is shrunk (an exhaustive search's
// first failure already has the fewest its bounds allow).
bool shrinks(const RunConfig& cfg, const Search& search) {
  return cfg.explore.shrink && !cfg.explore.exhaustive && search.failure.schedule.preemptions > 0;
}

ExploreShape shape_of(const RunConfig& cfg, const LockMeta& meta) {
  ExploreShape shape;
  shape.scenario = cfg.scenario_for(meta);
  shape.ops = cfg.explore.ops;
  shape.fairness = meta.fairness;
  shape.handoff_after_ns = cfg.explore.handoff_after_ns;
  return shape;
}

// The command (after "rwstress ") that replays a failing schedule.
std::string replay_command(const RunConfig& cfg, const LockMeta& meta, const ExploreShape& shape,
                           const ExploredSchedule& failure) {
  return fmt::format("{} --replay {}", replay_flags(meta, shape, cfg.explore),
                     encode_replay(failure.schedule.digest, replay_settings(cfg.explore),
                                   ctl::essential_choices(failure.schedule)));
}

void arm_crash(const RunConfig& cfg, const LockMeta& meta, const ExploreShape& shape) {
  crash::arm(fmt::format("{}: CRASH", meta.name),
             fmt::format("  replay: rwstress {} --replay ", replay_flags(meta, shape, cfg.explore)),
             replay_settings_text(replay_settings(cfg.explore)));
}

std::string strategy_text(const RunConfig::Explore& x) {
  if (x.exhaustive) return fmt::format("exhaustive:preemptions={}", x.preemptions);
  if (x.pct) return fmt::format("pct:depth={}", x.depth);
  return "random";
}

// Runs a failure's choices `times` times: how many gave its digest and
// verdict again.
int replays_matching(const RunConfig& cfg, const LockEntry& entry, const ExploreShape& shape,
                     const ExploredSchedule& failure, int times) {
  int same = 0;
  for (int i = 0; i < times && interrupt_signal() == 0; ++i) {
    ctl::Options o = base_options(cfg);
    o.strategy = ctl::Strategy::kFirst;
    o.replay = failure.schedule.choices;
    ExploredSchedule again = entry.explore(shape, o);
    same += again.schedule.digest == failure.schedule.digest && again.verdict == failure.verdict;
  }
  return same;
}

void print_failure(const RunConfig& cfg, const ExploredSchedule& e, const ExploreShape& shape,
                   const Output& out) {
  for (const std::string& l : finding_lines(e, shape)) out.print("  " + l);
  out.print(fmt::format("  the last steps of {} ({} preemption{}; repeats folded):",
                        e.schedule.trace.size(), e.schedule.preemptions,
                        e.schedule.preemptions == 1 ? "" : "s"));
  for (const std::string& l : explore_trace_lines(e, shape, cfg.explore.trace_steps))
    out.print("  " + l);
}

// --trace-json FILE: schedules as Chrome trace events, one process each
// (explore_trace.h), written with the other files at the command's end.
struct TraceFile {
  nlohmann::json events = nlohmann::json::array();
  std::uint64_t next_flow = 1;
  int schedules = 0;

  void add(const ExploredSchedule& e, const ExploreShape& shape, const std::string& title) {
    append_trace_events(events, e, shape, ++schedules, title, finding_lines(e, shape), &next_flow);
  }
  // Writes it where asked, when there is a schedule to show; "" or why not.
  std::string write(const RunConfig& cfg, const Output& out) const {
    const std::string& path = cfg.explore.trace_json_path;
    if (path.empty()) return "";
    if (schedules == 0) {
      out.print(fmt::format("  --trace-json {}: not written (no failing schedule to show)", path));
      return "";
    }
    const nlohmann::json doc = {{"traceEvents", events},
                                {"displayTimeUnit", "ns"},
                                {"otherData", {{"tool", "rwstress explore"},
                                               {"time axis", "1 us = 1 step of the schedule"}}}};
    if (std::string why = write_report_file(path, doc.dump() + "\n"); !why.empty())
      return fmt::format("explore --trace-json {}: {}", path, why);
    out.print(fmt::format("  trace: {} ({} schedule{}; open it in Perfetto or chrome://tracing)",
                          path, schedules, schedules == 1 ? "" : "s"));
    return "";
  }
};

// --replay: one schedule, step for step.
int replay_one(const RunConfig& cfg, const LockMeta& meta, const LockEntry& entry,
               const ExploreShape& shape, const Output& out) {
  std::uint64_t digest = 0;
  std::vector<int> choices;
  ReplaySettings found;
  if (std::string err = decode_replay(cfg.explore.replay, &digest, &found, &choices); !err.empty()) {
    out.error("explore --replay: " + err);
    return 2;
  }
  // The code's settings are what its schedule means: replayed under
  // others, a FAIL under the model would pass, step for step.
  // (Time jumps are the code's alone: --time-jumps is a search's budget,
  // refused with --replay; the replay lets time jump where the code did.)
  if (const ReplaySettings given = {cfg.explore.memory, cfg.explore.signals, found.jumps,
                                     found.fair};
      !(given == found)) {
    std::vector<std::string> differ;
    if (given.memory != found.memory)
      differ.push_back(found.memory == ExploreMemory::kSc
                           ? fmt::format("without a memory model (this command gives --memory {})",
                                         memory_name(given.memory))
                           : fmt::format("under --memory {} (this command gives {})",
                                         memory_name(found.memory),
                                         given.memory == ExploreMemory::kSc
                                             ? std::string("none")
                                             : "--memory " + std::string(memory_name(given.memory))));
    if (given.signals != found.signals)
      differ.push_back(found.signals ? "with --signals (this command has none)"
                                     : "without --signals (this command gives it)");
    out.error(fmt::format("explore --replay: the schedule was recorded {}: give the options of "
                          "its replay line",
                          fmt::join(differ, " and ")));
    return 2;
  }
  ctl::Options o = base_options(cfg);
  o.strategy = ctl::Strategy::kFirst;
  o.replay = choices;
  o.time_jumps = found.jumps ? 1 : 0;  // (a replay takes the jumps its choices record)
  o.fair_turns = found.fair ? kFairTurnsPerThread : 0;  // (its forced turns are choices too)
  crash::g_schedule.store(1, std::memory_order_relaxed);
  ExploredSchedule e = entry.explore(shape, o);
  out.print(fmt::format("rwstress explore: replaying a schedule of {} recorded choices on {} ({})",
                        choices.size(), meta.name, shape_text(shape)));
  if (e.schedule.outcome == ctl::Outcome::kReplayDiverged) {
    out.error(fmt::format("explore --replay: the schedule does not replay on {} with this shape "
                          "(it left the recorded steps at step {}); give the lock, the shape and "
                          "the knobs of its replay line",
                          meta.name, std::min(e.schedule.trace.size(), choices.size())));
    return 2;
  }
  if (e.schedule.digest != digest) {
    // Every recorded choice was taken, but the steps themselves (points,
    // words, values) were not the recorded ones.
    out.error(fmt::format("explore --replay: the schedule does not replay on {} with this shape: "
                          "all {} recorded choices were taken, but the steps differ from the "
                          "recorded ones (digest {:016x}, recorded {:016x}): the lock's code, the "
                          "shape, its knobs, --ops, --step-time or --max-steps are not those of "
                          "the run that found it",
                          meta.name, choices.size(), e.schedule.digest, digest));
    return 2;
  }
  out.print(fmt::format("{}: {} (the recorded schedule, step for step: digest {:016x})", meta.name,
                        verdict_name(e.verdict), digest));
  if (e.verdict != Verdict::kPass) print_failure(cfg, e, shape, out);
  TraceFile trace;  // a replay is shown whatever its verdict
  trace.add(e, shape, fmt::format("{}: {}, replayed ({})", meta.name, verdict_name(e.verdict),
                                  shape_text(shape)));
  if (std::string why = trace.write(cfg, out); !why.empty()) {
    out.error(why);
    return e.verdict == Verdict::kPass ? 2 : exit_code_of(e.verdict);
  }
  return exit_code_of(e.verdict);
}

}  // namespace

std::string parse_explore_strategy(const std::string& text, RunConfig::Explore* out) {
  const std::string want =
      "--strategy: want random, pct[:depth=D] (D 1 to 10) or exhaustive[:preemptions=C] "
      "(C 0 to 10)";
  auto number = [&](std::string_view s, std::string_view key, int* v) {
    if (s.substr(0, key.size()) != key) return false;
    s.remove_prefix(key.size());
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
    return ec == std::errc() && p == s.data() + s.size() && *v >= 0 && *v <= 10;
  };
  const std::string_view t = text;
  RunConfig::Explore x = *out;
  x.strategy_text = text;
  x.exhaustive = x.pct = false;
  if (t == "random") {
  } else if (t == "pct") {
    x.pct = true;
  } else if (t.substr(0, 4) == "pct:") {
    x.pct = true;
    if (!number(t.substr(4), "depth=", &x.depth) || x.depth < 1) return want;
  } else if (t == "exhaustive") {
    x.exhaustive = true;
  } else if (t.substr(0, 11) == "exhaustive:") {
    x.exhaustive = true;
    if (!number(t.substr(11), "preemptions=", &x.preemptions)) return want;
  } else {
    return want;
  }
  *out = x;
  return "";
}

ReplaySettings replay_settings(const RunConfig::Explore& x) {
  return {x.memory, x.signals, x.time_jumps > 0, x.fair};
}

std::string replay_settings_text(const ReplaySettings& s) {
  return std::string(memory_name(s.memory)) + (s.signals ? "+signals" : "") +
         (s.jumps ? "+jumps" : "") + (s.fair ? "+fair" : "");
}

std::string encode_replay(std::uint64_t digest, const ReplaySettings& settings,
                          const std::vector<int>& choices) {
  std::string code = fmt::format("{:016x}:{}:", digest, replay_settings_text(settings));
  for (std::size_t i = 0; i < choices.size();) {
    std::size_t j = i;
    while (j < choices.size() && choices[j] == choices[i]) ++j;
    if (i > 0) code += '.';
    code += std::to_string(choices[i]);
    if (j - i > 1) code += fmt::format("x{}", j - i);
    i = j;
  }
  return code;
}

std::string decode_replay(const std::string& code, std::uint64_t* digest,
                          ReplaySettings* settings, std::vector<int>* choices) {
  const std::string want = "want DIGEST:SETTINGS:T[xN].T[xN]... as a replay line gives it";
  const std::size_t colon = code.find(':');
  if (colon != 16) return want;
  auto [p, ec] = std::from_chars(code.data(), code.data() + 16, *digest, 16);
  if (ec != std::errc() || p != code.data() + 16) return want;
  const std::size_t second = code.find(':', 17);
  if (second == std::string::npos)
    return "the code does not say the memory model and signals it was found under (a code "
           "made before codes carried them has DIGEST:CHOICES): run the search again for a new one";
  const std::string text = code.substr(17, second - 17);
  bool known = false;
  for (ExploreMemory m : {ExploreMemory::kSc, ExploreMemory::kC11, ExploreMemory::kTso})
    for (bool sig : {false, true})
      for (bool jumps : {false, true})
        for (bool fair : {false, true})
          if (text == replay_settings_text({m, sig, jumps, fair}))
            *settings = {m, sig, jumps, fair}, known = true;
  if (!known)
    return want + " (SETTINGS: sc, c11 or tso, +signals where signals were on, +jumps where "
                  "time could jump, +fair where schedules were fair)";
  choices->clear();
  std::stringstream tokens(code.substr(second + 1));
  for (std::string tok; std::getline(tokens, tok, '.');) {
    int thread = 0;
    std::uint64_t times = 1;
    const char* b = tok.data();
    const char* e = b + tok.size();
    auto [q, ec1] = std::from_chars(b, e, thread);
    if (ec1 != std::errc() || thread < 0 ||
        thread >= (ctl::MemoryModel::kMaxOlder + 1) * ctl::kReadChoice)
      return want;
    if (q != e) {
      if (*q != 'x') return want;
      auto [r, ec2] = std::from_chars(q + 1, e, times);
      if (ec2 != std::errc() || r != e || times == 0 || times > 100'000'000) return want;
    }
    if (choices->size() + times > 100'000'000) return want;
    choices->insert(choices->end(), std::size_t(times), thread);
  }
  return "";  // no choices: the schedule a replay makes by itself
}

// Why a search that found nothing stopped before its end: "" for a
// sampling search that ran its schedules, or "; not complete: ..." with
// how far an exhaustive search got.
std::string not_complete_text(const RunConfig& cfg, const Search& search) {
  const std::string why = search.out_of_time
                              ? fmt::format("--time ({}) ran out",
                                            format_duration(std::chrono::nanoseconds(cfg.explore.time_ns)))
                              : "--schedules ran out";
  if (!cfg.explore.exhaustive) return search.out_of_time ? "; stopped: " + why : "";
  return fmt::format("; not complete: {} before the bound did{}", why,
                     search.bound_done >= 0
                         ? fmt::format(" (every schedule within bound {} ran)", search.bound_done)
                         : "");
}

// How the search is split: ", 2 processes", ", shard 1/4" or "".
std::string split_text(const RunConfig::Explore& x) {
  std::string text;
  if (x.jobs > 1) text += fmt::format(", {} processes side by side", x.jobs);
  if (x.shard_count > 1)
    text += fmt::format(", shard {}/{} (this share of the search only)", x.shard_index, x.shard_count);
  return text;
}

// One lock's search as --outcome records it.
nlohmann::json outcome_of(const RunConfig& cfg, const LockMeta& meta, const Search& search,
                          Verdict verdict, double seconds, const std::string& replay) {
  nlohmann::json j;
  j["lock"] = std::string(meta.name);
  j["verdict"] = verdict_name(verdict);
  j["strategy"] = strategy_text(cfg.explore);
  j["seed"] = cfg.seed;
  j["schedules"] = search.schedules;
  j["steps"] = search.steps;
  j["seconds"] = seconds;
  j["found_at"] = search.found ? search.found_at : 0;
  j["complete"] = search.complete && !search.found;
  // exhaustive: the largest bound every schedule of which ran (-1: none)
  j["bound_done"] = search.bound_done;
  j["out_of_time"] = search.out_of_time;
  j["replay"] = replay;
  j["jobs"] = cfg.explore.jobs;
  j["shard"] = fmt::format("{}/{}", cfg.explore.shard_index, cfg.explore.shard_count);
  return j;
}

// explore merge: the --outcome files of one search's shards, joined. Each
// file must be an explore outcome of the same search (the same locks in
// the same order, strategy and seed) and shard i of the same N, each i
// once. Per lock: a failure in any shard is the search's (the lowest
// schedule number kept, with its replay line); an interrupted shard
// proves nothing; with shards missing, a search that found nothing is not
// a PASS (exit 2, after the lines that say what ran); else a PASS whose
// schedules are the shards' sum, complete when every shard's is.
int merge_outcomes(const RunConfig& cfg, const Output& out) {
  struct Run {
    std::string lock, verdict, strategy, replay;
    std::uint64_t seed = 0, schedules = 0, found_at = 0;
    double seconds = 0;
    bool complete = false, out_of_time = false;
    int bound_done = -1;
  };
  struct Shard {
    std::string file;
    int index = 0, count = 1;
    std::vector<Run> runs;
  };
  std::vector<Shard> shards;
  for (const std::string& file : cfg.explore.merge) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      out.error(fmt::format("explore merge: {}: cannot be read", file));
      return 2;
    }
    std::stringstream text;
    text << in.rdbuf();
    Shard shard;
    shard.file = file;
    try {
      const nlohmann::json doc = nlohmann::json::parse(text.str());
      if (doc.value("rwstress_explore_outcome", 0) != 1) throw std::runtime_error("not an explore --outcome file");
      for (const nlohmann::json& r : doc.at("runs")) {
        Run run;
        run.lock = r.at("lock").get<std::string>();
        run.verdict = r.at("verdict").get<std::string>();
        run.strategy = r.at("strategy").get<std::string>();
        run.replay = r.at("replay").get<std::string>();
        run.seed = r.at("seed").get<std::uint64_t>();
        run.schedules = r.at("schedules").get<std::uint64_t>();
        run.found_at = r.at("found_at").get<std::uint64_t>();
        run.seconds = r.at("seconds").get<double>();
        run.complete = r.at("complete").get<bool>();
        run.out_of_time = r.at("out_of_time").get<bool>();
        run.bound_done = r.at("bound_done").get<int>();
        const std::string split = r.value("shard", std::string("0/1"));
        int i = 0, n = 1;
        if (!parse_shard(split, &i, &n)) throw std::runtime_error("shard \"" + split + "\" is not i/N");
        if (!shard.runs.empty() && (i != shard.index || n != shard.count))
          throw std::runtime_error("its runs name different shards");
        shard.index = i;
        shard.count = n;
        shard.runs.push_back(run);
      }
      if (shard.runs.empty()) throw std::runtime_error("it records no search");
    } catch (const std::exception& e) {  // (nlohmann's errors are std::exceptions)
      std::string why = e.what();
      std::replace(why.begin(), why.end(), '\n', ' ');
      out.error(fmt::format("explore merge: {}: {}", file, why));
      return 2;
    }
    shards.push_back(std::move(shard));
  }
  const Shard& first = shards.front();
  std::vector<const Shard*> by_index(std::size_t(first.count), nullptr);
  for (const Shard& sh : shards) {
    bool same = sh.count == first.count && sh.runs.size() == first.runs.size();
    for (std::size_t k = 0; same && k < sh.runs.size(); ++k)
      same = sh.runs[k].lock == first.runs[k].lock && sh.runs[k].strategy == first.runs[k].strategy &&
             sh.runs[k].seed == first.runs[k].seed;
    if (!same) {
      out.error(fmt::format("explore merge: {} and {} are not shards of one search (the locks, "
                            "strategy, seed and N of --shard i/N must be the same)",
                            first.file, sh.file));
      return 2;
    }
    const Shard*& slot = by_index[std::size_t(sh.index)];
    if (slot != nullptr) {
      out.error(fmt::format("explore merge: shard {}/{} is in both {} and {}", sh.index, sh.count,
                            slot->file, sh.file));
      return 2;
    }
    slot = &sh;
  }
  std::vector<int> missing;
  for (std::size_t i = 0; i < by_index.size(); ++i)
    if (by_index[i] == nullptr) missing.push_back(int(i));
  out.print(fmt::format("rwstress explore merge: {} outcome file{}, {} of {} shard{}{}", shards.size(),
                        shards.size() == 1 ? "" : "s", shards.size(), first.count,
                        first.count == 1 ? "" : "s",
                        missing.empty() ? "" : fmt::format(" (missing: {})", fmt::join(missing, ", "))));
  Verdict worst = Verdict::kPass;
  bool unjudged = false;
  for (std::size_t k = 0; k < first.runs.size(); ++k) {
    const std::string& lock = first.runs[k].lock;
    std::uint64_t schedules = 0;
    bool complete = missing.empty(), out_of_time = false;
    int bound_done = std::numeric_limits<int>::max();
    const Run* failed = nullptr;
    const Shard* failed_in = nullptr;
    const Shard* interrupted = nullptr;
    for (const Shard& sh : shards) {
      const Run& r = sh.runs[k];
      schedules += r.schedules;
      complete = complete && r.complete;
      out_of_time = out_of_time || r.out_of_time;
      bound_done = std::min(bound_done, r.bound_done);
      if (r.verdict == verdict_name(Verdict::kInterrupted)) {
        interrupted = interrupted ? interrupted : &sh;
      } else if (r.verdict != verdict_name(Verdict::kPass) &&
                 (failed == nullptr || r.found_at < failed->found_at)) {
        failed = &r;
        failed_in = &sh;
      }
    }
    if (failed != nullptr) {
      Verdict v = Verdict::kFail;
      for (Verdict c : {Verdict::kStarved, Verdict::kFail, Verdict::kHang, Verdict::kCrash})
        if (failed->verdict == verdict_name(c)) v = c;
      worst = worse(worst, v);
      out.print(fmt::format("{}: {} at schedule {} (shard {}/{}, {})", lock, failed->verdict,
                            failed->found_at, failed_in->index, failed_in->count, failed_in->file));
      if (!failed->replay.empty()) out.print("  replay: rwstress " + failed->replay);
    } else if (interrupted != nullptr) {
      worst = worse(worst, Verdict::kInterrupted);
      out.print(fmt::format("{}: INTERRUPTED: shard {}/{} ({}) was cut short; {} schedules ran and "
                            "none failed, which proves nothing",
                            lock, interrupted->index, interrupted->count, interrupted->file, schedules));
    } else if (!missing.empty()) {
      unjudged = true;
      out.print(fmt::format("{}: not judged: {} schedules in the {} shard{} given found nothing, "
                            "but shard{} {} of {} {} missing",
                            lock, schedules, shards.size(), shards.size() == 1 ? "" : "s",
                            missing.size() == 1 ? "" : "s", fmt::join(missing, ", "), first.count,
                            missing.size() == 1 ? "is" : "are"));
    } else if (complete) {
      out.print(fmt::format("{}: PASS, complete: every shard ran every schedule of its share "
                            "({} schedules over {} shard{}, run over bounds 0 to {})",
                            lock, schedules, first.count, first.count == 1 ? "" : "s", bound_done));
    } else {
      out.print(fmt::format("{}: PASS, {} schedules over {} shards, no failure{}", lock, schedules,
                            first.count,
                            first.runs[k].strategy.rfind("exhaustive", 0) == 0
                                ? fmt::format("; not complete: a shard stopped before its share "
                                              "did{}",
                                              bound_done >= 0 ? fmt::format(" (every schedule within "
                                                                            "bound {} ran)",
                                                                            bound_done)
                                                              : "")
                                : out_of_time ? "; a shard stopped at its --time" : ""));
    }
  }
  if (worst == Verdict::kPass && unjudged) {
    out.error(fmt::format("explore merge: shard{} {} of {} missing: give every shard's --outcome",
                          missing.size() == 1 ? "" : "s", fmt::join(missing, ", "), first.count));
    return 2;
  }
  return exit_code_of(worst);
}

int run_explore(const RunConfig& cfg, const Output& out) {
  if (!cfg.explore.merge.empty()) return merge_outcomes(cfg, out);
  Verdict worst = Verdict::kPass;
  nlohmann::json runs = nlohmann::json::array();
  TraceFile trace;
  // --outcome and --trace-json: written whatever ends the command (a
  // verdict, a signal).
  const auto done = [&](int code) {
    if (std::string why = trace.write(cfg, out); !why.empty()) {
      out.error(why);
      if (code == 0) code = 2;
    }
    if (cfg.explore.outcome_path.empty() || !cfg.explore.replay.empty()) return code;
    nlohmann::json doc;
    doc["rwstress_explore_outcome"] = 1;
    doc["exit_code"] = code;
    doc["runs"] = runs;
    if (std::string why = write_report_file(cfg.explore.outcome_path, doc.dump(2) + "\n");
        !why.empty()) {
      out.error(fmt::format("explore --outcome {}: {}", cfg.explore.outcome_path, why));
      return code == 0 ? 2 : code;
    }
    return code;
  };
  for (const LockMeta* meta : cfg.locks) {
    const LockEntry& entry = entry_of(*meta);
    const ExploreShape shape = shape_of(cfg, *meta);
    arm_crash(cfg, *meta, shape);
    if (!cfg.explore.replay.empty()) return replay_one(cfg, *meta, entry, shape, out);

    out.print(fmt::format("rwstress explore: {} ({}), {}{}, at most {}, seed {:#x}",
                          meta->name, shape_text(shape), strategy_text(cfg.explore),
                          std::string(cfg.explore.signals ? ", fatal signals (at spurious wake-ups and signal checks)" : "") +
                              (cfg.explore.fair
                                   ? fmt::format(", fair (every runnable thread runs within {} "
                                                 "steps{})",
                                                 kFairTurnsPerThread * shape.scenario.threads(),
                                                 meta->fairness == Fairness::kHandoff
                                                     ? "; hand-off waits judged"
                                                     : "")
                                   : std::string()) +
                              (cfg.explore.memory != ExploreMemory::kSc
                                   ? fmt::format(", memory model {}", memory_name(cfg.explore.memory))
                                   : "") +
                              split_text(cfg.explore),
                          cfg.explore.time_ns > 0
                              ? fmt::format("{} schedules or {}", cfg.explore.schedules,
                                            format_duration(std::chrono::nanoseconds(cfg.explore.time_ns)))
                              : fmt::format("{} schedules", cfg.explore.schedules),
                          cfg.seed));
    Search search;
    const auto start = Clock::now();
    if (cfg.explore.jobs > 1) {
      if (std::string lost = search_side_by_side(cfg, entry, shape, search); !lost.empty()) {
        out.error(fmt::format("explore --jobs {}: {}", cfg.explore.jobs, lost));
        return done(2);
      }
    } else {
      search_for(cfg, entry, shape, search);
      // A shard's counts are its own schedules (the shards' add up).
      search.schedules -= search.shared;
      search.at_bound -= search.shared_at_bound;
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const std::string speed =
        fmt::format("{} steps, {:.0f} steps/s", search.steps,
                    seconds > 0 ? double(search.steps) / seconds : 0.0);
    if (cfg.explore.pct && !cfg.explore.exhaustive)
      out.print(fmt::format("  PCT at depth {}: a bug of that depth shows with probability at "
                            "least 1/(n k^(d-1)) = {:.3g} per schedule (n {} threads, k {} steps)",
                            cfg.explore.depth,
                            ctl::pct_bound(shape.scenario.threads(), search.k, cfg.explore.depth),
                            shape.scenario.threads(), search.k));
    // An event asked for that no schedule could take: the option changed
    // nothing for this lock (in-tree locks are refused before; a plugin's
    // points show only as it runs).
    if (cfg.explore.ticks > 0 && !search.met_tick_check)
      out.print(fmt::format("  note: --ticks {} changed nothing: {} met no need_resched() check in "
                            "{} schedules",
                            cfg.explore.ticks, meta->name, search.schedules));
    if (cfg.explore.time_jumps > 0 && !search.met_clock_read)
      out.print(fmt::format("  note: --time-jumps {} changed nothing: {} read no clock in {} "
                            "schedules",
                            cfg.explore.time_jumps, meta->name, search.schedules));
    if (cfg.explore.expiries > 0 && !search.met_timed_wait)
      out.print(fmt::format("  note: --expiries {} changed nothing: {} met no timed wait in {} "
                            "schedules",
                            cfg.explore.expiries, meta->name, search.schedules));
    if (cfg.explore.signals && !search.met_signal_check)
      out.print(fmt::format("  note: --signals changed nothing: {} met no signal check (a "
                            "killable or interruptible wait) in {} schedules",
                            meta->name, search.schedules));
    if (!search.found && interrupt_signal() != 0) {
      // Cut short: what ran found nothing, which proves nothing.
      out.print(fmt::format("{}: INTERRUPTED by {} after {} schedule{}: none failed, and the "
                            "search did not finish{} ({}, {:.1f} s)",
                            meta->name, interrupt_signal_name(interrupt_signal()), search.schedules,
                            search.schedules == 1 ? "" : "s",
                            cfg.explore.exhaustive ? " (not complete)" : "", speed, seconds));
      runs.push_back(outcome_of(cfg, *meta, search, Verdict::kInterrupted, seconds, ""));
      return done(128 + interrupt_signal());
    }
    if (!search.found) {
      if (search.complete)
        out.print(fmt::format("{}: PASS, complete{}: {} schedules, every schedule with at most {} "
                              "({} run over bounds 0 to {}; {}, {:.1f} s)",
                              meta->name,
                              cfg.explore.shard_count > 1
                                  ? fmt::format(" (shard {}/{}: its share)", cfg.explore.shard_index,
                                                cfg.explore.shard_count)
                                  : "",
                              search.at_bound, exhaustive_bounds(cfg),
                              search.schedules, exhaustive_limits(cfg).largest(), speed, seconds));
      else
        out.print(fmt::format("{}: PASS, {} schedules, no failure{} ({}, {:.1f} s)", meta->name,
                              search.schedules, not_complete_text(cfg, search), speed, seconds));
      runs.push_back(outcome_of(cfg, *meta, search, Verdict::kPass, seconds, ""));
      continue;
    }
    worst = worse(worst, search.failure.verdict);
    std::vector<std::string> notes;
    const std::size_t first_steps = search.failure.schedule.trace.size();
    const int first_preempts = search.failure.schedule.preemptions;
    if (shrinks(cfg, search)) shrink(cfg, entry, shape, search, notes);
    out.print(fmt::format("{}: {} at schedule {} ({} steps, {} preemption{}; {}, {:.1f} s)",
                          meta->name, verdict_name(search.failure.verdict), search.found_at,
                          first_steps, first_preempts, first_preempts == 1 ? "" : "s", speed,
                          seconds));
    for (const std::string& n : notes) out.print("  " + n);
    print_failure(cfg, search.failure, shape, out);
    trace.add(search.failure, shape,
              fmt::format("{}: {} at schedule {} ({})", meta->name,
                          verdict_name(search.failure.verdict), search.found_at, shape_text(shape)));
    const int same = replays_matching(cfg, entry, shape, search.failure, cfg.explore.replays);
    if (interrupt_signal() == 0)
      out.print(fmt::format("  replayed {} times: {} the same step for step (digest {:016x})",
                            cfg.explore.replays, same, search.failure.schedule.digest));
    else
      out.print(fmt::format("  not replayed {} times: {}", cfg.explore.replays,
                            interrupted_text()));
    const std::string replay = replay_command(cfg, *meta, shape, search.failure);
    out.print("  replay: rwstress " + replay);
    runs.push_back(outcome_of(cfg, *meta, search, search.failure.verdict, seconds, replay));
    if (const int sig = interrupt_signal()) {
      out.print(fmt::format("rwstress explore: {} after {}: the locks after it were not "
                            "explored", interrupted_text(), meta->name));
      return done(128 + sig);
    }
  }
  return done(exit_code_of(worst));
}

std::string why_not_explorable(const LockMeta& meta) {
  if (entry_of(meta).explore) return "";
  if (!meta.plugin) return "a library's lock runs code the scheduler cannot stop at";
  if (meta.kernel_layer)
    return "build the kernel files with -DRWSTRESS_KERNEL_EXPLORE (rwstress kernel --explore "
           "does), so that the layer's atomics and sleeps are scheduling points";
  return "the plugin does not mark its scheduling points (include <rwstress/explore.h> and "
         "declare RWSTRESS_LOCK_CONTROLLED)";
}

RunConfig explore_config(RunConfig base, const LockMeta& meta, int readers, int writers, int count) {
  base.lock_spec = std::string(meta.name);
  base.locks = {&meta};
  base.readers = readers;
  base.writers = writers;
  base.threads = writers;
  if (count > 0) base.count = count;
  base.injection.specs.clear();
  base.tuning.spin_limit = kExploreSpinLimit;
  base.explore = RunConfig::Explore{};
  return base;
}

ExploreOutcome explore_quietly(const RunConfig& cfg, const LockMeta& meta) {
  const LockEntry& entry = entry_of(meta);
  const ExploreShape shape = shape_of(cfg, meta);
  arm_crash(cfg, meta, shape);
  Search search;
  const auto start = Clock::now();
  search_for(cfg, entry, shape, search);
  ExploreOutcome o;
  o.schedules = search.schedules;
  o.complete = search.complete && !search.found;
  o.complete_schedules = o.complete ? search.at_bound : 0;
  if (search.found) {
    o.verdict = search.failure.verdict;
    o.found_at = search.found_at;
    std::vector<std::string> notes;
    if (shrinks(cfg, search)) shrink(cfg, entry, shape, search, notes);
    const std::vector<std::string> lines = finding_lines(search.failure, shape);
    if (!lines.empty()) o.finding = lines.front();
    o.replay = replay_command(cfg, meta, shape, search.failure);
  }
  if (!search.found && interrupt_signal() != 0) o.verdict = Verdict::kInterrupted, o.complete = false;
  o.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return o;
}

std::string explore_command(const RunConfig& cfg, const LockMeta& meta) {
  // The choices' budgets where not the defaults (a replay line's codes
  // carry the choices themselves; the search needs the budgets).
  const RunConfig::Explore& x = cfg.explore;
  const RunConfig::Explore defaults;
  std::string budgets;
  if (x.stale_reads != defaults.stale_reads && x.memory != ExploreMemory::kSc)
    budgets += fmt::format(" --stale-reads {}", x.stale_reads);
  if (x.ticks >= 0) budgets += fmt::format(" --ticks {}", x.ticks);
  if (x.spurious_wakes >= 0) budgets += fmt::format(" --spurious-wakes {}", x.spurious_wakes);
  if (x.expiries >= 0) budgets += fmt::format(" --expiries {}", x.expiries);
  if (x.time_jumps > 0) budgets += fmt::format(" --time-jumps {}", x.time_jumps);
  if (x.fair) budgets += " --fair";
  return fmt::format("{} --strategy {} --schedules {}{} --seed {:#x}",
                     replay_flags(meta, shape_of(cfg, meta), x), strategy_text(x), x.schedules,
                     budgets, cfg.seed);
}

}  // namespace rwstress
