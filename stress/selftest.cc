#include "stress/selftest.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <chrono>
#include <vector>

#include <fmt/format.h>

#include "stress/registry.h"

namespace rwstress {

namespace {

// Where a busted lock is caught: its threads, critical section, and, for
// the narrow-window bugs, the injecting instantiation of the same lock.
struct BustedCase {
  std::string_view lock;
  std::string_view bug_class;
  Verdict expected;
  bool hang_also_caught = false;  // lost updates may show as FAIL or as HANG
  int readers = 3, writers = 2;   // rwlocks; mutexes and semaphores use `writers` threads
  std::uint64_t cs_read = 0;
  std::string_view injection = {};  // --inject spec that catches it fast, if any
};

const BustedCase kCases[] = {
    {"busted-noop", "no exclusion at all (positive control)", Verdict::kFail},
    {"busted-reader-in-writer", "readers admitted while a writer holds", Verdict::kFail},
    {"busted-writer-in-readers", "writer admitted while readers hold", Verdict::kFail},
    {"busted-racy-readers", "non-atomic reader count", Verdict::kFail, true},
    {"busted-downgrade", "downgrade_write lets a writer in", Verdict::kFail},
    {"busted-unfair-claims-fair", "declares task-fair, starves writers", Verdict::kStarved, false, 4,
     1, 20000},
    {"busted-racy-tas", "non-atomic test-and-set", Verdict::kFail, false, 0, 4},
    {"busted-lying-trylock", "trylock succeeds while held", Verdict::kFail, false, 0, 3},
    {"busted-ticket-wrap", "ticket wraps too early (2-bit tickets)", Verdict::kFail, true, 0, 8},
    {"busted-early-release", "release before the last protected store", Verdict::kFail, false, 0,
     2, 0, "sleep@in-cs:p=0.001,fixed(5ms)"},
    {"busted-lost-wakeup", "lost wake-up between enqueue and sleep", Verdict::kHang, false, 0, 4,
     0, "sleep@before-sleep:fixed(200us)"},
    {"busted-spurious-grant", "spurious futex return taken as a grant", Verdict::kFail, true, 0, 4,
     0, "spurious-wake:p=0.25"},
    {"busted-sem-double-up", "up() hands off and increments", Verdict::kFail, false, 0, 4},
};

// Runs `fn` in a child process: a busted lock that hangs leaves threads
// that can never be joined, and they must not spin on into the runs after
// it. The child reports its verdict through a pipe; a child that dies by a
// signal is a CRASH, one that says nothing within `limit` is a HANG.
struct IsolatedOutcome {
  Verdict verdict = Verdict::kCrash;
  double seconds = 0;
};

template <class Fn>
IsolatedOutcome run_isolated(Fn fn, std::chrono::seconds limit) {
  IsolatedOutcome out;
  int fds[2];
  if (pipe(fds) != 0) return out;
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return out;
  }
  if (pid == 0) {
    close(fds[0]);
    IsolatedOutcome mine = fn();
    ssize_t written = write(fds[1], &mine, sizeof mine);
    _exit(written == sizeof mine ? 0 : 1);
  }
  close(fds[1]);
  pollfd p{fds[0], POLLIN, 0};
  const auto t0 = std::chrono::steady_clock::now();
  bool got = false;
  if (poll(&p, 1, int(std::chrono::milliseconds(limit).count())) == 1)
    got = read(fds[0], &out, sizeof out) == sizeof out;
  close(fds[0]);
  if (!got) {
    out.verdict = Verdict::kHang;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    kill(pid, SIGKILL);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!got && WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL) out.verdict = Verdict::kCrash;
  return out;
}

bool caught(const BustedCase& c, Verdict v) {
  return v == c.expected || (c.hang_also_caught && v == Verdict::kHang);
}

constexpr const char* kRow = "{:<26} {:<42} {:<8} {:<8} {:>8}  {}";

}  // namespace

int run_selftest(const SelftestOptions& opt, const Topology& topology,
                 const std::function<void(const std::string&)>& print) {
  using Clock = std::chrono::steady_clock;
  const auto cap = opt.short_form ? std::chrono::seconds(2) : std::chrono::seconds(5);
  const auto control_time = opt.short_form ? std::chrono::milliseconds(100)
                                           : std::chrono::milliseconds(300);
  const std::vector<int> cpus = topology.placement_order(Placement::kCompact);
  int failures = 0;

  auto run_timed = [&](RunFn fn, const LockMeta& meta, Scenario sc, double* seconds) {
    sc.plan = topology.plan(sc.threads(), cpus);
    sc.topology = &topology;
    auto t0 = Clock::now();
    RunResult r = fn(sc, meta);
    *seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return r;
  };
  auto base = [&](Family f) {
    Scenario sc;
    sc.family = f;
    sc.seed = opt.seed;
    sc.count = 2;
    return sc;
  };

  print(fmt::format("busted locks, each in a child process: a run stops at its first violation "
                    "(cap {}s, watchdog 2s)",
                    cap.count()));
  print(fmt::format(fmt::runtime(kRow), "LOCK", "BUG CLASS", "EXPECTED", "OBSERVED", "SECONDS",
                    "RESULT"));
  for (const BustedCase& c : kCases) {
    const LockEntry* e = find_lock(c.lock);
    if (!e) {
      print(fmt::format("{}: not registered", c.lock));
      ++failures;
      continue;
    }
    Scenario sc = base(e->meta.family);
    sc.readers = e->meta.family == Family::kRwlock ? c.readers : 0;
    sc.writers = c.writers;
    sc.cs_read_loops = c.cs_read;
    sc.duration = cap;
    sc.watchdog = std::chrono::seconds(2);
    sc.fail_fast = c.expected != Verdict::kStarved;
    InjectionPlan plan;
    if (!c.injection.empty()) {
      std::string err;
      plan.specs.push_back(*parse_inject_spec(c.injection, &err));
    }
    auto row = [&](RunFn fn, std::string_view how, bool required = true) {
      auto attempt = [&] {
        return run_isolated(
            [&] {
              IsolatedOutcome mine;
              mine.verdict = run_timed(fn, e->meta, sc, &mine.seconds).verdict;
              return mine;
            },
            std::chrono::duration_cast<std::chrono::seconds>(cap) + std::chrono::seconds(30));
      };
      IsolatedOutcome o = attempt();
      bool ok = caught(c, o.verdict);
      // A race is a matter of scheduling: one run in tens can miss it (CI
      // saw busted-ticket-wrap PASS once in 2 s). A required case gets one
      // more run, and the row says so; the time is both runs'.
      bool second = false;
      if (!ok && required) {
        const double first = o.seconds;
        o = attempt();
        ok = caught(c, o.verdict);
        o.seconds += first;
        second = true;
      }
      std::string result = ok ? "caught" : required ? "MISSED" : "not caught";
      if (ok && second) result += " on a second run";
      if (!how.empty()) result += fmt::format(" ({})", how);
      print(fmt::format(fmt::runtime(kRow), c.lock, c.bug_class, verdict_name(c.expected),
                        verdict_name(o.verdict), ok ? fmt::format("{:.2f}", o.seconds) : "-",
                        result));
      return ok;
    };
    if (!c.injection.empty()) {
      if (!opt.short_form) row(e->run, "without injection", false);  // shown, not required
      sc.injection = &plan;
      if (!row(e->run_instrumented, fmt::format("with --inject {}", c.injection))) ++failures;
    } else if (!row(e->run, "")) {
      ++failures;
    }
  }

  print("");
  print(fmt::format("correct locks as controls: {} ms each; any verdict but PASS is flagged",
                    control_time.count()));
  print(fmt::format("{:<26} {:<10} {:<8} {:<8}  {}", "LOCK", "TEST", "OBSERVED", "SECONDS",
                    "RESULT"));
  for (const LockEntry& e : lock_registry()) {
    if (e.meta.busted) continue;
    // One thread per CPU: the fairness promises of spinning locks assume
    // their waiters are not preempted, so controls are not oversubscribed.
    Scenario sc = base(e.meta.family);
    const int n = std::max(2, int(cpus.size()));
    sc.readers = e.meta.family == Family::kRwlock ? n - 1 : 0;
    sc.writers = e.meta.family == Family::kRwlock ? 1 : n;
    sc.duration = control_time;
    sc.watchdog = std::chrono::seconds(5);
    double secs = 0;
    RunResult r = run_timed(e.run, e.meta, sc, &secs);
    bool ok = r.verdict == Verdict::kPass;
    const bool known = !ok && r.verdict == Verdict::kHang && !e.meta.known_issue.empty();
    if (!ok && !known) ++failures;
    std::string shape = e.meta.family == Family::kRwlock
                            ? fmt::format("{}R+{}W", sc.readers, sc.writers)
                            : fmt::format("{}T", sc.writers);
    print(fmt::format("{:<26} {:<10} {:<8} {:<8.2f}  {}", e.meta.name, shape,
                      verdict_name(r.verdict), secs,
                      ok ? "ok" : known ? "known library bug (rwstress list)" : "FLAGGED"));
  }
  print("");
  print(failures == 0 ? "selftest: every busted lock caught, no control flagged -> PASS"
                      : fmt::format("selftest: {} problem(s) -> FAIL", failures));
  return failures == 0 ? 0 : 1;
}

}  // namespace rwstress
