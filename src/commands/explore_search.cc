// explore_search.h: the searches over the controlled scheduler.
#include "commands/explore_search.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <new>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "platform/splitmix.h"

namespace rwstress::explore_search {

namespace ctl = controlled;

// A split exhaustive search's subtrees start at its first this many
// decisions (explore.cc exhaust).
constexpr std::size_t kSplitDepth = 12;

// Shrinking tries this many bounded schedules per preemption count.
inline constexpr int kShrinkTries = 300;

// Schedule i's seed: the i-th draw of splitmix64's stream from `seed`.
static std::uint64_t schedule_seed(std::uint64_t seed, std::uint64_t i) {
  return splitmix64(seed + 0x9e3779b97f4a7c15ULL * i);
}

bool reduces(const RunConfig& cfg) {
  // (--fair schedules force turns by how long a thread waited: the order
  // of independent steps counts there: not with --fair)
  return cfg.explore.exhaustive && cfg.explore.reduce && !cfg.explore.fair;
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
  o.interrupts = cfg.explore.interrupts;
  o.virtual_cpus = cfg.explore.virtual_cpus;
  o.rt_threads = cfg.explore.rt_threads;
  o.memory = cfg.explore.memory == ExploreMemory::kC11   ? ctl::Memory::kC11
             : cfg.explore.memory == ExploreMemory::kTso ? ctl::Memory::kTso
                                                         : ctl::Memory::kSc;
  o.stale_reads = cfg.explore.stale_reads;
  o.fair_turns = cfg.explore.fair ? kFairTurnsPerThread : 0;
  o.pct_conflicts = cfg.explore.pct && cfg.explore.conflicts;
  o.footprints = reduces(cfg);
  return o;
}

// A lock whose code crashes in a schedule (a waiter left linked on a dead
// stack) takes the process with it: the handler says which schedule and
// step, and prints the schedule so far as a replay line (replaying it
// crashes the same way, at the same step). Async-signal-safe: text made
// before the search, digits by hand, write(2).
namespace crash {

static char g_what[256];    // "LOCK: CRASH"
static char g_replay[768];  // "  replay: rwstress ... --replay "
static char g_settings[64];  // ":c11+signals:", between the digest and the choices
std::atomic<std::uint64_t> g_schedule{0};
// This process's own count of schedules, the crashing one included, and
// where a shard of a split search hands its result back (-1: not a
// shard): the handler writes its count there, so that the search's
// process can say how much ran.
std::atomic<std::uint64_t> g_own{0};
static int g_result_fd = -1;
static int g_exit = 4;

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

static const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
  }
  return "a signal";
}

static void handler(int sig) {
  Text t;
  t.add(g_what);
  t.add(" (");
  t.add(signal_name(sig));
  t.add(") at schedule ");
  t.num(g_schedule.load(std::memory_order_relaxed));
  const ctl::Schedule* s = ctl::schedule_so_far();
  Text code;  // the replay code: digest, settings, choices (run-length)
  if (s) {
    t.add(", step ");
    t.num(s->choices.size());
    t.add(": the lock's code crashed under this schedule\n");
    t.add(g_replay);
    code.num(s->digest, 16, 16);
    code.add(g_settings);
    for (std::size_t i = 0; i < s->choices.size();) {
      std::size_t j = i;
      while (j < s->choices.size() && s->choices[j] == s->choices[i]) ++j;
      if (i > 0) code.add(".");
      code.num(std::uint64_t(s->choices[i]));
      if (j - i > 1) code.add("x"), code.num(j - i);
      i = j;
    }
    for (std::size_t i = 0; i < code.n && t.n < sizeof t.buf; ++i) t.buf[t.n++] = code.buf[i];
  } else {
    t.add(": outside the schedule's threads");
  }
  t.add("\n");
  const auto put = [](int fd, const Text& text) {
    for (std::size_t off = 0; off < text.n;) {
      const ssize_t w = write(fd, text.buf + off, text.n - off);
      if (w <= 0) break;
      off += std::size_t(w);
    }
  };
  put(STDOUT_FILENO, t);
  if (g_result_fd >= 0) {  // (a shard: its result, as search_side_by_side reads it)
    Text r;
    r.add("{\"crashed\": true, \"schedules\": ");
    r.num(g_own.load(std::memory_order_relaxed));
    r.add(", \"at\": ");
    r.num(g_schedule.load(std::memory_order_relaxed));
    r.add(", \"code\": \"");  // (hex digits, the settings' words, '.', ':', '+', 'x': no escapes)
    for (std::size_t i = 0; i < code.n && r.n < sizeof r.buf; ++i) r.buf[r.n++] = code.buf[i];
    r.add("\"}");
    put(g_result_fd, r);
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
static ExploredSchedule run_schedule(const LockEntry& entry, const ExploreShape& shape,
                              const ctl::Options& o, Search& search, std::uint64_t number = 0) {
  crash::g_schedule.store(number > 0 ? number : search.schedules + 1, std::memory_order_relaxed);
  crash::g_own.store(search.schedules - search.shared + 1, std::memory_order_relaxed);
  ExploredSchedule e = entry.explore(shape, o);
  ++search.schedules;
  if (search.observe) search.observe(e);
  for (const ctl::Decision& d : e.schedule.decisions) {
    search.met_tick_check |= d.tick;
    search.met_clock_read |= d.jump;
    search.met_signal_check |= d.checking != 0;
    search.met_timed_wait |= d.timed != 0;
    search.met_interrupt_offer |= d.interrupt;
  }
  // (or one that arrived with no choice: work was posted; a run that
  // takes no interrupts has none to look for)
  if (o.interrupts > 0 && !search.met_interrupt_offer)
    for (const ctl::Step& st : e.schedule.trace)
      if (st.interrupt) {
        search.met_interrupt_offer = true;
        break;
      }
  search.steps += e.schedule.trace.size();
  // Conflict-guided PCT learns the words two threads touched: at most
  // kSharedWords (addresses that change from schedule to schedule, a
  // thread's stack, would grow the set without end).
  constexpr std::size_t kSharedWords = 4096;
  for (const std::uint64_t w : e.schedule.shared)
    if (search.shared_words.size() < kSharedWords) search.shared_words.insert(w);
  // PCT's k: the longest schedule seen (conflict-guided: its conflicting
  // steps alone), but for one that ran into the fair tail (a strategy's
  // starved loop, or a livelock): its length says nothing of where the
  // lock's steps are, and PCT's change points drawn over it would mostly
  // fall past the end of every other schedule.
  if (e.schedule.trace.size() < o.fair_from() || search.k == 0)
    search.k = std::max<std::uint64_t>(
        search.k, o.pct_conflicts ? e.schedule.conflicts : e.schedule.trace.size());
  return e;
}

// `number`: the schedule's 1-based number in the whole search (a
// sampling shard's are the whole search's); 0: the count run so far.
static bool note_failure(Search& search, ExploredSchedule&& e, std::uint64_t number = 0) {
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
static void sample(const RunConfig& cfg, const LockEntry& entry, const ExploreShape& shape,
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
    o.shared_words = &search.shared_words;
    if (note_failure(search, run_schedule(entry, shape, o, search, i + 1), i + 1)) return;
  }
}

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
  limit.interrupts = o.interrupts;
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
  if (limit.interrupts > 0) count(limit.interrupts, "interrupt", "interrupts");
  std::string text = parts.front();
  for (std::size_t i = 1; i < parts.size(); ++i)
    text += (i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return text;
}

// Partial-order reduction for the exhaustive search (docs/explore.md,
// "Partial-order reduction"): two prefixes that ran the same steps, each
// thread's in its own order, with every pair of dependent steps in the
// same order (Mazurkiewicz-equivalent), reach the same state; the search
// below the second is the first's again, and is cut when it has no more
// budget left than the first had (the same thread at the point, and no
// more of each bound used). Sound where the budget is the bound's and
// the state is the same, which is why the key holds more than the trace:
// the scheduler's view of the threads and the harness's bookkeeping
// (Decision::state), and the thread at the point (a preemption's cost
// depends on it). This is state caching over the happens-before graph,
// as CHESS did, not DPOR's backtracking: it never needs to prove that a
// race reversed within the bound was reached some other way (the trap of
// combining DPOR with a preemption bound, Coons et al. 2013).
//
// Dependence is conservative: two steps are independent only when the
// words each touched (the one its point names, and Schedule::touches:
// what the model was told, plain accesses, futex wakes) are different,
// or the same ones only read by both (a load, a failed cmpxchg, an
// access that left the word as it was; under a model a read-modify-write
// that changed nothing still writes, as the model sees it). A step that
// did anything else (Decision::opaque: read the clock or another thread's
// state, a fence, a timed wait, a thread's start) is ordered with every
// step. A point with no word touches nothing by itself: code under control
// makes every access another thread sees a point of its own or tells the
// model of it (the lock contract, docs/plugins.md), and the harness's and
// the kernel layer's bookkeeping touch one word of their own
// (controlled::shared_state()).
class Reduction {
 public:
  Reduction() = default;

  // The key of the state before each decision of `e`'s schedule (index j:
  // before decision j).
  std::vector<std::uint64_t> keys(const ExploredSchedule& e) {
    const ctl::Schedule& s = e.schedule;
    const std::size_t len = std::min(s.choices.size(), s.decisions.size());
    const std::size_t n = threads_of(s);
    std::vector<std::uint64_t> out(len);
    clocks_.assign(n, Vc(n, 0));
    words_.clear();
    all_.assign(n, 0);
    last_opaque_.assign(n, 0);
    std::uint64_t sum = 0;
    std::size_t t_at = 0, touch_at = 0;
    for (std::size_t j = 0; j < len; ++j) {
      const ctl::Decision& d = s.decisions[j];
      // (the thread at the point matters only where leaving it costs a
      // preemption: else the next choice is the same from any)
      out[j] = mix(mix(mix(sum, d.state), d.preemptible ? std::uint64_t(d.from + 1) : 0), j);
      const int thread = ctl::chosen_thread(s.choices[j]);
      const std::size_t u = std::size_t(thread);
      // The step's footprint and what it saw.
      std::uint64_t content = mix(0x51ed27, std::uint64_t(s.choices[j]));
      bool opaque = d.opaque;
      footprint_.clear();
      bool any = false;
      for (; t_at < s.trace.size() && s.trace[t_at].at == j; ++t_at) {
        const ctl::Step& st = s.trace[t_at];
        any = true;
        content = mix(content, std::hash<std::string_view>{}(st.what ? st.what : ""));
        content = mix(content, name(e, st.word));
        if (st.has_value) content = mix(mix(content, name(e, st.before)), name(e, st.after));
        content = mix(content, std::uint64_t(st.older) | std::uint64_t(st.early) << 8 |
                                   std::uint64_t(st.tick) << 9 |
                                   std::uint64_t(st.foreign_wake) << 10 |
                                   std::uint64_t(st.interrupt) << 11);
        content = mix(content, st.jump_ns);
        if (st.word)  // (under a model, what it told the model too: below)
          footprint_.push_back({st.word, !st.has_value || st.before != st.after});
      }
      for (; touch_at < s.touches.size() && s.touches[touch_at].at == j; ++touch_at)
        footprint_.push_back({s.touches[touch_at].word, s.touches[touch_at].write});
      if (!any) opaque = true;  // (a thread's start: the body before its first point)
      // Its happens-before clock: its thread's, joined with every earlier
      // step it depends on.
      Vc& c = scratch_;
      if (u < n)
        c = clocks_[u];
      else
        c.assign(n, 0);
      join(c, last_opaque_);
      if (opaque) join(c, all_);
      for (const auto& [word, write] : footprint_) {
        auto it = words_.find(word);
        if (it == words_.end()) continue;
        join(c, it->second.write);
        if (write) join(c, it->second.reads);
      }
      if (u < n) ++c[u];
      std::uint64_t h = mix(content, std::uint64_t(thread));
      for (std::uint32_t x : c) h = mix(h, x);
      sum += finish(h);
      if (u < n) clocks_[u] = c;
      join(all_, c);
      if (opaque) last_opaque_ = c;
      for (const auto& [word, write] : footprint_) {
        Words& w = words_.try_emplace(word, Words{Vc(n, 0), Vc(n, 0)}).first->second;
        if (write)
          w.write = c, std::fill(w.reads.begin(), w.reads.end(), 0);
        else
          join(w.reads, c);
      }
    }
    // The whole schedule's execution (its steps up to where it ended, and
    // how it ended): a new one, or one an earlier schedule ran.
    if (executions_.size() < kMaxStates) executions_.insert(mix(sum, std::uint64_t(s.outcome)));
    return out;
  }

  // Whether the state `key` was reached before at this bound with no more
  // of any budget used than `used` (its subtree covers this one); if not,
  // it is remembered (the least used kept where one is below the other).
  bool seen(std::uint64_t key, const ExhaustiveCounts& used) {
    const std::uint64_t packed = pack(used);
    auto [it, fresh] = seen_.try_emplace(key, packed);
    if (fresh) {
      if (seen_.size() > kMaxStates) seen_.erase(it);  // (full: search on, unreduced)
      return false;
    }
    if (below(it->second, packed)) return true;
    if (below(packed, it->second)) it->second = packed;
    return false;
  }

  void clear() { seen_.clear(), executions_.clear(); }
  // The distinct executions (happens-before orders) the schedules since
  // clear() ran.
  std::uint64_t executions() const { return executions_.size(); }

 private:
  using Vc = std::vector<std::uint32_t>;
  struct Words {
    Vc write;  // the last step that wrote it
    Vc reads;  // the steps that read it since
  };
  // About 64 bytes a state (and as much again for the executions): at
  // most half a gigabyte; past it the search goes on, reducing less.
  static constexpr std::size_t kMaxStates = std::size_t(4) << 20;

  static std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    return splitmix64(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
  }
  static std::uint64_t finish(std::uint64_t h) { return splitmix64(h); }
  static void join(Vc& into, const Vc& c) {
    for (std::size_t i = 0; i < into.size() && i < c.size(); ++i) into[i] = std::max(into[i], c[i]);
  }
  static std::size_t threads_of(const ctl::Schedule& s) {
    int n = 0;
    for (int c : s.choices) n = std::max(n, ctl::chosen_thread(c) + 1);
    return std::size_t(n);
  }
  // An address as the same thing in every schedule: an offset in the
  // lock object or in a named object (a thread's stack, its task), which
  // are new each schedule; anything else as it is.
  static std::uint64_t name(const ExploredSchedule& e, std::uint64_t value) {
    const auto begin = reinterpret_cast<std::uintptr_t>(e.lock_begin);
    if (e.lock_begin && value >= begin && value - begin < e.lock_size)
      return (std::uint64_t(1) << 62) | (value - begin);
    for (const ctl::NamedObject& o : e.schedule.objects) {
      const auto b = reinterpret_cast<std::uintptr_t>(o.begin);
      if (value < b || value - b >= o.size) continue;
      const std::uint64_t offset = o.from_end ? b + o.size - value : value - b;
      return mix(mix(std::uint64_t(o.thread) + 1, std::hash<std::string_view>{}(o.what)), offset) |
             (std::uint64_t(1) << 63);
    }
    return value;
  }
  static std::uint64_t name(const ExploredSchedule& e, const void* word) {
    return word ? name(e, std::uint64_t(reinterpret_cast<std::uintptr_t>(word))) : 0;
  }
  static std::uint64_t pack(const ExhaustiveCounts& c) {
    const auto b = [](int v) { return std::uint64_t(std::min(v, 255)); };
    return b(c.preempts) | b(c.weak) << 8 | b(c.ticks) << 16 | b(c.jumps) << 24 |
           b(c.signals) << 32 | b(c.wakes) << 40 | b(c.expiries) << 48 | b(c.interrupts) << 56;
  }
  static bool below(std::uint64_t a, std::uint64_t b) {  // every count of a <= b's
    for (int i = 0; i < 8; ++i)
      if ((a >> (8 * i) & 0xff) > (b >> (8 * i) & 0xff)) return false;
    return true;
  }

  std::unordered_map<std::uint64_t, std::uint64_t> seen_;
  std::unordered_set<std::uint64_t> executions_;
  std::vector<Vc> clocks_;
  std::unordered_map<const void*, Words> words_;
  Vc all_, last_opaque_, scratch_;
  std::vector<std::pair<const void*, bool>> footprint_;
};

// exhaustive: depth-first over the decisions, each schedule replaying a
// prefix and going on without preemption; alternatives that would exceed
// a bound are not taken. A decision's alternatives: the weak choices its
// step was offered under a memory model (each older value its load could
// read, its store placed early) and a tick at its need_resched() check,
// a time jump at its clock read or a wake-up from another wake_q at its
// wake_q_add(), then every other eligible thread, one at a signal check
// with a signal too (--signals), every blocked thread woken spuriously,
// and every timed sleeper's timeout expiring. Along a schedule at most
// --preemptions preemptions, --stale-reads weak choices, --ticks ticks,
// --time-jumps time jumps, two signals, --spurious-wakes wake-ups (of
// both kinds) and --expiries expiries. Iterative
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
static void exhaust(const RunConfig& cfg, const LockEntry& entry, const ExploreShape& shape,
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
    bool tick;     // its step met a need_resched() check, a clock read, a wake_q_add() or
                   // an interrupt offer (known once it ran)
    bool jump;     // (the clock read: a time jump, not a tick)
    bool foreign;  // (the wake_q_add(): a wake-up from another wake_q, one of the spurious)
    bool irq;      // (the offer: an interrupt arrives)
    bool ticked;   // and the tick, the jump, the wake-up or the interrupt came there
    int code() const {
      return thread + (kind == kSignal || ticked ? ctl::kSignalChoice : 0) + rank * ctl::kReadChoice;
    }
  };
  const ctl::Options options = base_options(cfg);
  const Counts limit = exhaustive_limits(cfg);
  const std::uint64_t shards = std::uint64_t(cfg.explore.shard_count);
  const std::uint64_t me = std::uint64_t(cfg.explore.shard_index);
  const bool reduce = reduces(cfg);
  Reduction reduction;
  for (int bound = 0; bound <= limit.largest(); ++bound) {
    search.bound = bound;
    reduction.clear();
    search.reduced_at_bound = 0;
    Counts most;
    most.preempts = std::min(bound, limit.preempts);
    most.weak = std::min(bound, limit.weak);
    most.ticks = std::min(bound, limit.ticks);
    most.jumps = std::min(bound, limit.jumps);
    most.signals = std::min(bound, limit.signals);
    most.wakes = std::min(bound, limit.wakes);
    most.expiries = std::min(bound, limit.expiries);
    most.interrupts = std::min(bound, limit.interrupts);
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
        f.tick = d.tick || d.jump || d.foreign_wake || d.interrupt;
        f.jump = d.jump;
        f.foreign = d.foreign_wake;
        f.irq = d.interrupt;
      }
      // States this search reached before: the decisions from there on
      // get no frames (a split search cuts only below the split depth, in
      // its own subtrees: every shard numbers the subtrees alike).
      std::vector<std::uint64_t> keys;
      if (reduce) keys = reduction.keys(e);
      search.executions_at_bound = reduction.executions();
      const bool mine = owner % shards == me;
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
        if (j >= stack.size() && j < keys.size() && mine && (shards == 1 || j >= kSplitDepth) &&
            reduction.seen(keys[j], took)) {
          ++search.reduced, ++search.reduced_at_bound;
          break;
        }
        if (j >= stack.size()) {  // (kFirst's own choice: a thread going on, no event)
          Frame f{d,
                  {bit, 0, 0, 0},
                  prev,
                  took,
                  chose,
                  kPlain,
                  d.weak,
                  ctl::read_chosen(c),
                  d.tick || d.jump || d.foreign_wake || d.interrupt,
                  d.jump,
                  d.foreign_wake,
                  d.interrupt,
                  ticked};
          stack.push_back(f);
        }
        took.preempts += d.preemptible && chose != prev;
        took.weak += ctl::read_chosen(c) > 0;
        took.ticks += ticked && !d.jump && !d.foreign_wake && !d.interrupt;
        took.jumps += ticked && d.jump;
        took.signals += signal;
        took.wakes += spurious || (ticked && d.foreign_wake);
        took.expiries += expired;
        took.interrupts += ticked && d.interrupt;
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
        const bool event_room = f.jump      ? f.before.jumps < most.jumps
                                : f.foreign ? f.before.wakes < most.wakes
                                : f.irq     ? f.before.interrupts < most.interrupts
                                            : f.before.ticks < most.ticks;
        if (f.tick && !f.ticked && event_room) {
          f.ticked = true;
          take();
          if (next) break;
          continue;
        }
        if (f.rank < f.weak && f.before.weak < most.weak) {
          ++f.rank;
          // (whether a check comes: once it has run)
          f.tick = f.jump = f.foreign = f.irq = f.ticked = false;
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
            f.tick = f.jump = f.foreign = f.irq = f.ticked = false;
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
static nlohmann::json shard_result(const Search& s) {
  nlohmann::json j = {{"schedules", s.schedules},     {"steps", s.steps},
                      {"shared", s.shared},           {"at_bound", s.at_bound},
                      {"shared_at_bound", s.shared_at_bound}, {"bound", s.bound},
                      {"complete", s.complete},       {"bound_done", s.bound_done},
                      {"out_of_time", s.out_of_time}, {"k", s.k},
                      {"tick", s.met_tick_check},     {"clock", s.met_clock_read},
                      {"signal", s.met_signal_check}, {"timed", s.met_timed_wait},
                      {"interrupt", s.met_interrupt_offer}, {"found", s.found}};
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
// its trace. A shard whose lock crashes has printed its crash and replay
// line and writes its count: the others are stopped, and the search is
// `crashed` with every shard's count (nothing is run again here); one
// killed by a signal no handler took ends this process the same way. A
// shard that ended without its result (not interrupted) leaves the
// search unjudged: "" or why. With N = 1 the search runs in one process of
// its own (explore --outcome: a crash is then counted and written too).
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
      // (one process alone keeps the CPUs it was given: explore runs side
      // by side, --shard on one machine, must not pile up on the first)
      if (jobs > 1) controlled::keep_process_on_nth_cpu(j);
      RunConfig mine = cfg;
      mine.explore.shard_index = cfg.explore.shard_index + cfg.explore.shard_count * j;
      mine.explore.shard_count = cfg.explore.shard_count * jobs;
      // (an exhaustive shard counts what it runs: a share of --schedules)
      if (cfg.explore.exhaustive)
        mine.explore.schedules = (cfg.explore.schedules + std::uint64_t(jobs) - 1) / std::uint64_t(jobs);
      Search s;
      s.stop = stop;
      crash::g_result_fd = fileno(f);
      search_for(mine, entry, shape, s);
      if (s.found) {
        const std::uint64_t key = cfg.explore.exhaustive ? std::uint64_t(s.bound) : s.found_at - 1;
        std::uint64_t seen = stop->load();
        while (key < seen && !stop->compare_exchange_weak(seen, key)) {
        }
      }
      nlohmann::json result = shard_result(s);
      if (jobs == 1) {  // (one process: what partial-order reduction did is the search's)
        result["reduced_at_bound"] = s.reduced_at_bound;
        result["executions_at_bound"] = s.executions_at_bound;
      }
      const std::string text = result.dump();
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
  if (crashed > 0) {  // killed by a signal its handler did not take: as it was
    for (std::FILE* f : results) std::fclose(f);
    std::fflush(stdout);
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
    // A shard whose lock crashed said where (its handler printed the
    // schedule and its replay line) and how many schedules it ran: the
    // search is a CRASH, with every shard's own count (the schedules two
    // shards ran left out, as below).
    if (crashed < 0 && r.is_object() && r.value("crashed", false)) {
      const std::uint64_t at = r.value("at", std::uint64_t(0));
      if (!search.crashed || at < search.found_at)
        search.found_at = at, search.crash_code = r.value("code", std::string());
      search.crashed = true;
      search.schedules += r.value("schedules", std::uint64_t(0));
      search.complete = false;
      continue;
    }
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
    search.met_interrupt_offer |= r.value("interrupt", false);
    search.reduced_at_bound = r.value("reduced_at_bound", std::uint64_t(0));
    search.executions_at_bound = r.value("executions_at_bound", std::uint64_t(0));
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
  if (search.crashed) {  // (nothing is run again here: it would crash this process)
    search.complete = false;
    return "";
  }
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

}  // namespace rwstress::explore_search
