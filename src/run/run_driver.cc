#include "run/run_driver.h"

#include <sys/syscall.h>

#include <unistd.h>

#include <sched.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <condition_variable>
#include <new>
#include <optional>

#include <fmt/format.h>

#include "model/verdict.h"
#include "platform/cpu_relax.h"
#include "platform/duration.h"
#include "platform/interrupt.h"
#include "platform/sched_stat.h"
#include "platform/splitmix.h"

namespace rwstress {

using Clock = std::chrono::steady_clock;

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::kStarting: return "starting";
    case Phase::kOutside: return "outside the lock";
    case Phase::kDownRead: return "down_read";
    case Phase::kReadTrylock: return "down_read_trylock";
    case Phase::kHoldRead: return "holding read";
    case Phase::kUpRead: return "up_read";
    case Phase::kDownWrite: return "down_write";
    case Phase::kWriteTrylock: return "down_write_trylock";
    case Phase::kHoldWrite: return "holding write";
    case Phase::kDowngrade: return "downgrade_write";
    case Phase::kUpWrite: return "up_write";
    case Phase::kAcquire: return "lock/down";
    case Phase::kTryAcquire: return "trylock/down_trylock/down_timeout";
    case Phase::kHold: return "holding";
    case Phase::kRelease: return "unlock/up";
    case Phase::kUnchecked: return "in acquire, work or release (--no-check's loop does not tell them apart)";
    case Phase::kAway: return "away (killed in its acquisition; back once the others make progress)";
    case Phase::kNestedAcquire: return "taking a nested lock (--nested-locks)";
    case Phase::kNestedRelease: return "releasing a nested lock (--nested-locks)";
    case Phase::kDone: return "done";
  }
  return "?";
}

void stay_away_killed() {
  RunShared* s = tl_run;
  const int me = tl_worker_index;
  if (!s || me < 0 || me >= s->scenario.threads() || tl_nested_held > 0) return;
  const int n = s->scenario.threads();
  WorkerSlot& slot = s->slots[me];
  const Phase was = slot.phase.load(std::memory_order_relaxed);
  slot.phase.store(Phase::kAway, std::memory_order_relaxed);
  auto others_ops = [&] {
    std::uint64_t sum = 0;
    for (int i = 0; i < n; ++i)
      if (i != me) sum += s->slots[i].ops.load(std::memory_order_relaxed);
    return sum;
  };
  // Nobody left to make progress without this thread: every other one has
  // finished, or is away too.
  auto others_gone = [&] {
    for (int i = 0; i < n; ++i) {
      const Phase p = s->slots[i].phase.load(std::memory_order_relaxed);
      if (i != me && p != Phase::kDone && p != Phase::kAway) return false;
    }
    return true;
  };
  // Not back at the stop either: the others finish their passes (progress)
  // or, asleep in a lock nobody holds, never do, and the driver's wait for
  // them after the stop judges the HANG.
  const std::uint64_t at_start = others_ops();
  auto pause = std::chrono::microseconds(20);
  while (others_ops() == at_start && !others_gone()) {
    std::this_thread::sleep_for(pause);
    pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(1));
  }
  slot.phase.store(was, std::memory_order_relaxed);
}

RunShared::RunShared(const Scenario& s)
    : scenario(s),
      slots(s.threads()),
      violations(s.fail_fast ? &stop : nullptr) {}

WorkerSlots::WorkerSlots(int n) : n_(n) { place(0); }

WorkerSlots::~WorkerSlots() { release(); }

void WorkerSlots::release() {
  for (WorkerSlot* s : at_) s->~WorkerSlot();
  at_.clear();
  ::operator delete(storage_, std::align_val_t(kPage));
  storage_ = nullptr;
}

WorkerSlots::Blocks WorkerSlots::blocks_of(const void* p, std::size_t bytes) {
  constexpr std::size_t kBlocks = kPage / kBlock;
  if (bytes >= kPage) return ~Blocks(0);
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
  Blocks b = 0;
  for (std::uintptr_t at = a - a % kBlock; at < a + std::max<std::size_t>(bytes, 1); at += kBlock)
    b |= Blocks(1) << (at % kPage / kBlock % kBlocks);
  return b;
}

void WorkerSlots::avoid(std::initializer_list<std::pair<const void*, std::size_t>> ranges) {
  Blocks all = 0;
  for (const auto& [p, bytes] : ranges) all |= blocks_of(p, bytes);
  if (std::popcount(all) > int(kPage / kBlock / 2) && ranges.size() > 0)
    all = blocks_of(ranges.begin()->first, 1);
  release();
  place(all);
}

void WorkerSlots::place(Blocks avoided) {
  // Offsets from a page-aligned base: skip any block whose page offset is avoided.
  std::vector<std::size_t> offsets;
  std::size_t at = 0;
  for (int i = 0; i < n_; ++i) {
    while (avoided >> (at % kPage / kBlock) & 1) at += kBlock;
    offsets.push_back(at);
    at += sizeof(WorkerSlot);
  }
  storage_ = ::operator new(std::max<std::size_t>(at, 1), std::align_val_t(kPage));
  for (std::size_t off : offsets)
    at_.push_back(new (static_cast<char*>(storage_) + off) WorkerSlot());
}

ThreadUsage::ThreadUsage()
    : wall_start_(Clock::now()), sched_start_(read_thread_sched_times()) {
  getrusage(RUSAGE_THREAD, &start_);
}

void ThreadUsage::finish(ThreadResult& r) const {
  rusage end;
  getrusage(RUSAGE_THREAD, &end);
  auto seconds = [](const timeval& a, const timeval& b) {
    return double(b.tv_sec - a.tv_sec) + double(b.tv_usec - a.tv_usec) / 1e6;
  };
  r.user_s = seconds(start_.ru_utime, end.ru_utime);
  r.sys_s = seconds(start_.ru_stime, end.ru_stime);
  r.voluntary_csw = std::uint64_t(end.ru_nvcsw - start_.ru_nvcsw);
  r.involuntary_csw = std::uint64_t(end.ru_nivcsw - start_.ru_nivcsw);
  r.wall_s = std::chrono::duration<double>(Clock::now() - wall_start_).count();
  const std::optional<SchedTimes> sched_end = read_thread_sched_times();
  if (sched_start_ && sched_end) {
    r.on_cpu_s = double(sched_end->on_cpu_ns - sched_start_->on_cpu_ns) / 1e9;
    r.runq_wait_s = double(sched_end->runq_wait_ns - sched_start_->runq_wait_ns) / 1e9;
  }
}

std::uint64_t thread_seed(std::uint64_t run_seed, int index) {
  // splitmix64 of seed + (index) * golden: the (index + 1)th output of the
  // splitmix stream that starts at the run seed.
  return splitmix64(run_seed + 0x9e3779b97f4a7c15ULL * std::uint64_t(index));
}

double spin_turn_ns() {
  static const double ns = [] {
    constexpr std::uint64_t kTurns = 1 << 22;
    double best = 1e9;
    for (int i = 0; i < 3; ++i) {  // the fastest of three: preemption only adds
      Clock::time_point t0 = Clock::now();
      spin_work(kTurns);
      best = std::min(best, std::chrono::duration<double, std::nano>(Clock::now() - t0).count());
    }
    return best / double(kTurns);
  }();
  return ns;
}

bool worker_start(RunShared& shared, int index) {
  const Scenario& sc = shared.scenario;
  WorkerSlot& slot = shared.slots[index];
  slot.result.role = sc.family != Family::kRwlock ? Role::kHolder
                     : index < sc.readers       ? Role::kReader
                                                : Role::kWriter;
  slot.result.cpu = sc.plan.cpu_of_thread[size_t(index)];
  slot.tid.store(pid_t(gettid()), std::memory_order_release);
  if (sc.topology) {
    std::string err = sc.topology->bind_current_thread(slot.result.cpu);
    if (!err.empty()) {
      std::lock_guard guard(shared.error_mutex);
      if (shared.bind_error.empty()) shared.bind_error = fmt::format("thread {}: {}", index, err);
      shared.stop.store(true);
    }
  }
  shared.ready.fetch_add(1);
  while (!shared.go.load(std::memory_order_acquire)) {
    if (shared.stop.load(std::memory_order_relaxed)) break;
    sched_yield();
  }
  // Real-time only once the run goes (spinning on `go` above every other
  // thread of its CPU, it would keep them from getting ready).
  if (sc.real_time(index)) {
    sched_param fifo{};
    fifo.sched_priority = 1;
    if (sched_setscheduler(0, SCHED_FIFO, &fifo) != 0) {
      const int err = errno;
      std::lock_guard guard(shared.error_mutex);
      if (shared.bind_error.empty())
        shared.bind_error = fmt::format("thread {}: SCHED_FIFO: {}", index, std::strerror(err));
      shared.stop.store(true);
    }
    slot.result.rt = sched_getscheduler(0) == SCHED_FIFO;
  }
  return !shared.stop.load(std::memory_order_relaxed);
}

namespace {

struct ThreadWatch {
  ThreadWatch(std::uint64_t o, Phase p, Clock::time_point t, std::uint64_t all_ops)
      : ops(o), phase(p), since(t), others_at_since(all_ops) {}
  std::uint64_t ops = 0;
  Phase phase = Phase::kStarting;
  Clock::time_point since;
  // For the lost-wake-up watch, over the current phase only:
  std::uint64_t others_at_since = 0;  // every thread's operations when it began
  int free_seen = 0;                  // samples that saw the lock free meanwhile
  std::optional<std::uint64_t> ran_ns;  // on a CPU + in a run queue, at the mark
  Clock::time_point marked;
  std::uint64_t others_at_mark = 0;  // every thread's operations at the mark
  int most_holders = 0;              // most holders seen at once since the mark
  bool reported = false;
  // For the bounded-wait watch (hand-off locks), over the current wait:
  std::optional<std::uint64_t> runq_ns;  // its time in a run queue, at its mark
  Clock::time_point wait_marked;
  std::uint64_t others_at_wait_mark = 0;
  bool wait_reported = false;
};

bool waits_in_lock(Phase p) {
  return p == Phase::kDownRead || p == Phase::kDownWrite || p == Phase::kAcquire;
}

// Phases in which a thread may hold the lock (a trylock may have taken it,
// a release may not be done yet).
bool may_hold(Phase p) {
  switch (p) {
    case Phase::kReadTrylock:
    case Phase::kHoldRead:
    case Phase::kUpRead:
    case Phase::kWriteTrylock:
    case Phase::kHoldWrite:
    case Phase::kDowngrade:
    case Phase::kUpWrite:
    case Phase::kTryAcquire:
    case Phase::kHold:
    case Phase::kRelease:
    case Phase::kUnchecked: return true;
    default: return false;
  }
}

// The workers still inside the lock after the join's bound, moved to
// SCHED_IDLE (any thread may lower its own user's threads to it): they go on
// draining through the lock only when no other thread wants a CPU. Returns
// how many were moved.
int idle_left_behind(RunShared& s) {
  int moved = 0;
  for (int i = 0; i < s.scenario.threads(); ++i) {
    if (s.slots[i].phase.load() == Phase::kDone) continue;
    const pid_t tid = s.slots[i].tid.load(std::memory_order_relaxed);
    sched_param param{};
    moved += tid != 0 && sched_setscheduler(tid, SCHED_IDLE, &param) == 0;
  }
  return moved;
}

std::vector<std::string> hang_report(RunShared& s, const std::vector<ThreadWatch>& watch,
                                     Clock::time_point now) {
  std::vector<std::string> lines;
  for (int i = 0; i < s.scenario.threads(); ++i) {
    const WorkerSlot& slot = s.slots[i];
    double secs = std::chrono::duration<double>(now - watch[size_t(i)].since).count();
    // A mutex or semaphore thread has no role to name: "holder" would read
    // as if it held the lock while it waits in lock/down.
    const Role role = slot.result.role;
    lines.push_back(fmt::format("thread {} ({}cpu {}): {} for {:.2f}s, {} ops done", i,
                                role == Role::kHolder ? "" : fmt::format("{}, ", role_name(role)),
                                slot.result.cpu, phase_name(slot.phase.load()), secs,
                                slot.ops.load()));
  }
  // A semaphore whose every thread waits in down() with nobody holding
  // any unit: the units the lock should have are gone. The same words as
  // the lost-wake-up check's while a unit remains (a leak that takes the
  // last unit stops everyone, and is a HANG rather than a FAIL).
  if (s.scenario.family == Family::kSemaphore) {
    int waiting = 0, holding = 0;
    for (int i = 0; i < s.scenario.threads(); ++i) {
      const Phase p = s.slots[i].phase.load();
      waiting += waits_in_lock(p);
      holding += may_hold(p);
    }
    if (holding == 0 && waiting > 0)
      lines.insert(lines.begin(),
                   fmt::format("units lost: none of the semaphore's {} units is held and {} "
                               "thread{} wait{} in down() (an up() that did not give its unit "
                               "back, or a wake-up that never came)",
                               s.scenario.count, waiting, waiting == 1 ? "" : "s",
                               waiting == 1 ? "s" : ""));
  }
  return lines;
}

}  // namespace

void drive_run(const std::shared_ptr<RunShared>& shared, std::vector<std::thread>& workers,
               const LockMeta& meta, RunResult& result) {
  RunShared& s = *shared;
  const Scenario& sc = s.scenario;
  const int n = sc.threads();
  // A semaphore is free with fewer holders than its count.
  const int free_below = sc.family == Family::kSemaphore ? sc.count : 1;
  // Lost or late wake-ups in the stress loop. A thread that waits in
  // down_read/down_write/lock/down for the watchdog time while the others go
  // on, that saw the lock free in kFreeSamples samples meanwhile, and that
  // neither ran nor waited for a CPU in the second half of that time (asleep:
  // not spinning, not woken), was not woken when it should have been. Only
  // where the fairness class promises the thread's role progress (a
  // reader-preference writer may sleep through a stream of readers), and
  // with --no-check's loop, which does not tell waiting from holding, not
  // at all. Under --inject the asleep window is the whole watchdog time:
  // the guard keeps any one injected pause shorter than that.
  constexpr int kFreeSamples = 3;
  const bool watch_wakeups = sc.check && !meta.caps.spins;
  const auto asleep_window = sc.injection ? sc.watchdog : sc.watchdog / 2;

  while (s.ready.load() < n) std::this_thread::sleep_for(std::chrono::microseconds(200));

  const auto tick = std::clamp<std::chrono::nanoseconds>(sc.watchdog / 20,
                                                         std::chrono::milliseconds(5),
                                                         std::chrono::milliseconds(100));
  const std::optional<double> busy_before = read_cpus_busy_s(sc.plan.cpus);
  Clock::time_point start = Clock::now();
  std::vector<ThreadWatch> watch(size_t(n), ThreadWatch(0, Phase::kStarting, start, 0));
  s.go.store(true, std::memory_order_release);

  Clock::time_point last_progress = start;
  std::uint64_t last_total = 0;
  bool hung = false;
  auto watch_wakeup = [&](int i, ThreadWatch& w, Clock::time_point now, std::uint64_t total) {
    const bool writer_role = s.slots[i].result.role != Role::kReader;
    if (w.reported || !waits_in_lock(w.phase) || !promises_bounded_wait(result.fairness, writer_role))
      return;
    const auto waited = now - w.since;
    const pid_t tid = s.slots[i].tid.load(std::memory_order_relaxed);
    if (tid == 0 || waited < sc.watchdog / 2) return;
    auto times = read_thread_sched_times(int(tid));
    if (!times) return;
    const std::uint64_t ran = times->on_cpu_ns + times->runq_wait_ns;
    if (!w.ran_ns || ran != *w.ran_ns) {  // (re)start the asleep window here
      w.ran_ns = ran;
      w.marked = now;
      w.others_at_mark = total;
      w.most_holders = 0;
      return;
    }
    // The others' operations while this thread slept: not the ones they did
    // before they, too, got stuck (that is a HANG, said by the watchdog).
    const std::uint64_t others = total - w.others_at_mark;
    if (now - w.marked < asleep_window || waited < sc.watchdog || w.free_seen < kFreeSamples ||
        others == 0)
      return;
    w.reported = true;
    const double asleep_s = std::chrono::duration<double>(now - w.marked).count();
    // A semaphore "seen free" had fewer holders than its count. If no more
    // than that were ever in at once while this one slept and the others
    // cycled, units are missing: an up() that did not give its unit back
    // looks the same from outside as a wake-up that never came.
    if (sc.family == Family::kSemaphore && w.most_holders < sc.count) {
      s.violations.report(
          ViolationKind::kLostWakeup, i,
          fmt::format("asleep in {} for {:.2f}s (not run, not runnable for the last {:.2f}s) "
                      "while the others did {} operations in that time, never more than {} of "
                      "the semaphore's {} units held at once: units lost (an up() that did not "
                      "give its unit back) or a lost wake-up",
                      phase_name(w.phase), std::chrono::duration<double>(waited).count(),
                      asleep_s, others, w.most_holders, sc.count));
      return;
    }
    s.violations.report(
        ViolationKind::kLostWakeup, i,
        fmt::format("asleep in {} for {:.2f}s (not run, not runnable for the last {:.2f}s) "
                    "while the others did {} operations in that time and the lock was seen "
                    "free {} times: a lost or late wake-up",
                    phase_name(w.phase), std::chrono::duration<double>(waited).count(), asleep_s,
                    others, w.free_seen));
  };
  // Bounded waiting, where the class promises it and not a share (a
  // hand-off lock): a wait that outlasts the bound out of a run queue while
  // the lock keeps changing hands is kept for summarize_run to judge
  // (model/verdict.h). Marked at the watchdog's first look at the wait,
  // then measured from there at each look; one report per wait.
  const bool watch_bounded_waits =
      sc.check && promises_bounded_wait(result.fairness, true) &&
      !promises_share(result.fairness, true) && !promises_share(result.fairness, false);
  const auto wait_bound = std::chrono::duration<double>(
      handoff_wait_bound_s(n, std::max<int>(1, int(sc.plan.cpus.size()))));
  auto watch_bounded_wait = [&](int i, ThreadWatch& w, Clock::time_point now,
                                std::uint64_t total) {
    if (w.wait_reported || !waits_in_lock(w.phase) || now == w.since) return;
    const pid_t tid = s.slots[i].tid.load(std::memory_order_relaxed);
    if (tid == 0) return;
    if (!w.runq_ns) {
      if (now - w.since < wait_bound / 8) return;
      const auto times = read_thread_sched_times(int(tid));
      if (!times) return;
      w.runq_ns = times->runq_wait_ns;
      w.wait_marked = now;
      w.others_at_wait_mark = total - w.ops;
      return;
    }
    if (now - w.wait_marked < wait_bound) return;
    const auto times = read_thread_sched_times(int(tid));
    if (!times) return;
    const auto runq = std::chrono::nanoseconds(times->runq_wait_ns - *w.runq_ns);
    const auto judged = std::chrono::duration<double>(now - w.wait_marked - runq);
    const std::uint64_t others = total - w.ops - w.others_at_wait_mark;
    if (judged < wait_bound || others < kHandoffWaitOthers) return;
    w.wait_reported = true;
    result.long_waits.push_back({i, s.slots[i].result.role, phase_name(w.phase),
                                 std::chrono::duration<double>(now - w.since).count(),
                                 judged.count(), others});
  };
  auto sample = [&](Clock::time_point now) {
    std::uint64_t total = 0;
    int holders = 0;
    for (int i = 0; i < n; ++i) {
      std::uint64_t ops = s.slots[i].ops.load(std::memory_order_relaxed);
      Phase phase = s.slots[i].phase.load(std::memory_order_relaxed);
      ThreadWatch& w = watch[size_t(i)];
      if (ops != w.ops || phase != w.phase) w = ThreadWatch(ops, phase, now, last_total);
      total += ops;
      holders += may_hold(phase);
    }
    if (watch_wakeups) {
      const bool free_now = holders < free_below;
      for (int i = 0; i < n; ++i) {
        ThreadWatch& w = watch[size_t(i)];
        w.free_seen += free_now && waits_in_lock(w.phase);
        w.most_holders = std::max(w.most_holders, holders);
        watch_wakeup(i, w, now, total);
      }
    }
    if (watch_bounded_waits)
      for (int i = 0; i < n; ++i) watch_bounded_wait(i, watch[size_t(i)], now, total);
    if (total != last_total) {
      last_total = total;
      last_progress = now;
    }
    return now - last_progress >= sc.watchdog;
  };

  // No progress for the watchdog time is a HANG only once every thread that
  // wanted a CPU since then has had one: a spinlock's holder preempted on
  // an overloaded machine (16 spinners on 2 CPUs beside a CPU hog) keeps
  // everyone waiting without the lock being at fault, and is runnable, not
  // running, all that time. From the moment the watchdog expires each
  // thread's schedstat is watched; the hang stands when each has run
  // kHangTurn on a CPU, or is not runnable (asleep in the lock), and still
  // nothing moved. Any progress ends the check. Without schedstat,
  // the watchdog alone decides, as before.
  constexpr std::chrono::nanoseconds kHangTurn = std::chrono::milliseconds(1);
  // Two rounds: a hand-over can take a wake-up chain (the releaser's wake,
  // then the woken thread's own turn), so once every thread has had its
  // turn the marks are taken again and each must have another, nothing
  // moving (absl-mutex, 16 threads beside two nice -15 busy loops, was a
  // false HANG after one round: CI run of 4 December).
  constexpr int kHangRounds = 2;
  struct HangCheck {
    bool active = false;
    int rounds = 0;  // rounds in which every thread had its turn and nothing moved
    std::vector<std::optional<SchedTimes>> at;
    std::vector<int> waiting;  // threads still owed a turn on a CPU, at the last look
  } check;
  const auto take_marks = [&] {
    check.at.assign(size_t(n), std::nullopt);
    for (int i = 0; i < n; ++i)
      if (const pid_t tid = s.slots[i].tid.load(std::memory_order_relaxed); tid != 0)
        check.at[size_t(i)] = read_thread_sched_times(int(tid));
  };
  const auto hang_confirmed = [&] {
    if (!check.active) {  // the first look only takes the marks
      check.active = true;
      check.rounds = 0;
      take_marks();
      return std::none_of(check.at.begin(), check.at.end(), [](const auto& t) { return t.has_value(); });
    }
    // Owed a turn: runnable now ('R': schedstat adds a run-queue wait only
    // once the thread gets a CPU) and not yet kHangTurn on one since the mark.
    check.waiting.clear();
    for (int i = 0; i < n; ++i) {
      const pid_t tid = s.slots[i].tid.load(std::memory_order_relaxed);
      if (!check.at[size_t(i)] || tid == 0 || s.slots[i].phase.load() == Phase::kDone) continue;
      const std::optional<SchedTimes> t = read_thread_sched_times(int(tid));
      if (!t) continue;
      const std::uint64_t ran = t->on_cpu_ns - check.at[size_t(i)]->on_cpu_ns;
      if (ran < std::uint64_t(kHangTurn.count()) && read_thread_state(int(tid)) == 'R')
        check.waiting.push_back(i);
    }
    if (!check.waiting.empty()) return false;
    if (++check.rounds < kHangRounds) {
      take_marks();
      return false;
    }
    return true;
  };
  // "threads 0, 4 and 3 more": those still owed a CPU at the last look.
  const auto waiting_text = [&] {
    std::string who;
    for (std::size_t k = 0; k < check.waiting.size() && k < 8; ++k)
      who += (k ? ", " : "") + std::to_string(check.waiting[k]);
    if (check.waiting.size() > 8) who += fmt::format(" and {} more", check.waiting.size() - 8);
    return fmt::format("thread{} {}", check.waiting.size() == 1 ? "" : "s", who);
  };
  std::string held_back_note;  // a stall the machine caused, said if the run is not a HANG

  const Clock::time_point end = start + sc.duration;
  while (!s.stop.load()) {
    Clock::time_point now = Clock::now();
    if (now >= end || interrupt_signal() != 0) break;
    std::this_thread::sleep_for(std::min<std::chrono::nanoseconds>(tick, end - now));
    now = Clock::now();
    if (!sample(now)) {
      check.active = false;
      continue;
    }
    if (hang_confirmed()) {
      hung = true;
      break;
    }
  }
  if (!hung && check.active && !check.waiting.empty())
    held_back_note = fmt::format(
        "no progress for {:.2f}s before the stop, while {} waited for a CPU (runnable, not "
        "running) all that time: the machine held them back, not the lock; not judged as a HANG",
        std::chrono::duration<double>(Clock::now() - last_progress).count(), waiting_text());
  Clock::time_point stopped = Clock::now();
  const std::optional<double> busy_after = read_cpus_busy_s(sc.plan.cpus);
  // Only a --fail-fast violation (or a failed binding) sets the flag before
  // the driver does.
  result.stopped_at_violation = s.stop.load() && !hung && s.violations.count() > 0;
  s.stop.store(true);

  // Every worker must notice the stop flag; one that makes no progress for
  // the watchdog time is stuck inside the lock. The clock restarts whenever
  // a worker finishes or completes a pass: thousands of threads on a few
  // CPUs may take longer than the watchdog to drain through a FIFO lock,
  // each of them still moving.
  auto done_count = [&] {
    int done = 0;
    for (int i = 0; i < n; ++i) done += s.slots[i].phase.load() == Phase::kDone;
    return done;
  };
  int done = done_count();
  Clock::time_point last_move = stopped;  // a worker finished or passed
  Clock::time_point join_deadline = last_move + sc.watchdog;
  // However long the workers keep draining (2000 threads through a FIFO
  // lock on 2 CPUs take minutes: each hand-over waits for the one queued
  // thread to get a CPU among a thousand), the join ends by this, a
  // watchdog after the stop (a second at least), while they are still
  // moving: those still inside are reported, left running at SCHED_IDLE
  // (idle_left_behind), and not waited for, so that a run ends within its
  // duration and its watchdog at any thread count, and what they still
  // spin takes no CPU from the runs after this one or from the rest of the
  // machine. (busted-racy-readers' stuck writer, the readers gone just
  // before the bound, was a PASS when the bound cut whatever was inside.)
  const Clock::time_point join_cap =
      stopped + std::max<std::chrono::nanoseconds>(sc.watchdog, std::chrono::seconds(1));
  // A stall still unconfirmed because threads wait for a CPU gets longer:
  // on a machine that busy a deadlock is told from a slow scheduler only
  // once every thread has had its turn; past this it is a HANG all the same
  // (with the threads that never ran named), never a PASS. Not sooner than
  // 10 s (the join's bound): beside two nice -15 busy loops on 2 CPUs a
  // thread of 16 sat runnable 2 s without a turn, a false HANG of
  // pthread-spinlock (test_plugins, 4 December) at ten watchdogs and a second.
  const Clock::time_point check_cap =
      stopped + std::max<std::chrono::nanoseconds>(10 * sc.watchdog + std::chrono::seconds(1),
                                                   std::chrono::seconds(10));
  std::uint64_t join_total = last_total;
  // Workers usually finish within microseconds of the stop: look again soon,
  // then less often (a whole tick's nap here was a tenth of a second added
  // to every run, and most of a short fuzz trial's overhead).
  std::chrono::nanoseconds nap = std::chrono::microseconds(50);
  while (!hung && done < n) {
    Clock::time_point now = Clock::now();
    sample(now);
    const int now_done = done_count();
    if (now_done > done || last_total != join_total) {
      done = now_done;
      join_total = last_total;
      last_move = now;
      join_deadline = last_move + sc.watchdog;
      check.active = false;
    }
    if (done == n) break;
    if (now >= join_deadline) {  // nothing moved for the watchdog time
      if (hang_confirmed()) {
        hung = true;
        break;
      }
      if (now >= check_cap) {
        hung = true;
        result.notes.push_back(fmt::format(
            "HANG judged with {} still waiting for a CPU {:.1f}s after the stop: the machine "
            "gave them none, so this may be its doing as much as the lock's",
            waiting_text(), std::chrono::duration<double>(now - stopped).count()));
        break;
      }
    } else if (now >= join_cap && now - last_move < sc.watchdog / 4) {
      // Still moving at the bound: something finished or passed within the
      // last quarter watchdog. (A last move longer ago may have been the
      // last thread able to: the watchdog then judges the rest, a HANG if
      // they are stuck, at most a watchdog later.)
      const int idled = idle_left_behind(s);
      result.notes.push_back(fmt::format(
          "{} of {} threads had not left the lock {:.1f}s after the stop, still moving: left "
          "running{}, not waited for (their counts are not in the totals); not a HANG",
          n - done, n, std::chrono::duration<double>(now - stopped).count(),
          idled > 0 ? fmt::format(" ({} at SCHED_IDLE: they take no CPU another thread wants)",
                                  idled)
                    : std::string()));
      break;
    }
    // The next look: the bound while it is ahead, else the deadline (past
    // the bound with nothing moving lately, the watchdog judges).
    const Clock::time_point next = now >= join_deadline ? check_cap
                                   : now < join_cap     ? std::min(join_deadline, join_cap)
                                                        : join_deadline;
    std::this_thread::sleep_for(std::min<std::chrono::nanoseconds>(
        std::max<std::chrono::nanoseconds>(nap, std::chrono::microseconds(50)), next - now));
    nap = std::min<std::chrono::nanoseconds>(nap * 2, tick);
  }

  if (hung) {
    Clock::time_point now = Clock::now();
    sample(now);
    result.hang_report = hang_report(s, watch, now);
  } else if (!held_back_note.empty()) {
    result.notes.push_back(held_back_note);
  }
  for (int i = 0; i < n; ++i) {
    if (s.slots[i].phase.load() == Phase::kDone)
      workers[size_t(i)].join();
    else
      workers[size_t(i)].detach();
  }

  result.duration_s = std::chrono::duration<double>(stopped - start).count();
  if (busy_before && busy_after) result.cpus_busy_s = std::max(0.0, *busy_after - *busy_before);
  {
    std::lock_guard guard(s.error_mutex);
    result.error = s.bind_error;
  }
  // A detached worker may still write its slot; read only what it published.
  for (int i = 0; i < n; ++i) {
    ThreadResult t;
    if (s.slots[i].phase.load(std::memory_order_acquire) == Phase::kDone) {
      t = s.slots[i].result;
    } else {
      ++result.stuck_threads;
      t.role = s.slots[i].result.role;
      t.cpu = s.slots[i].result.cpu;
      t.rt = sc.real_time(i);  // (what it was to be: its own report is not published)
    }
    t.ops = s.slots[i].ops.load();
    result.threads.push_back(t);
  }
}

bool run_with_timeout(std::function<void()> fn, std::chrono::nanoseconds limit,
                      const std::atomic<std::int64_t>* uncharged) {
  struct Done {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    std::atomic<pid_t> tid{0};
  };
  auto done = std::make_shared<Done>();
  std::thread t([done, fn = std::move(fn)] {
    done->tid.store(pid_t(syscall(SYS_gettid)));
    fn();
    std::lock_guard guard(done->m);
    done->done = true;
    done->cv.notify_all();
  });
  // Only time in which the thread could run counts against `limit`: a
  // slice in which it sat runnable without getting a CPU (an overloaded
  // machine) is not charged, up to a cap of ten limits and two seconds.
  constexpr std::chrono::milliseconds kSlice{5};
  const auto cap = Clock::now() + 10 * limit + std::chrono::seconds(2);
  std::chrono::nanoseconds charged{0};
  std::int64_t uncharged_before = uncharged ? uncharged->load() : 0;
  std::uint64_t ran_ns = 0;  // the thread's CPU time at the last look
  std::unique_lock lk(done->m);
  for (;;) {
    if (done->cv.wait_for(lk, kSlice, [&] { return done->done; })) {
      lk.unlock();
      t.join();
      return true;
    }
    const pid_t tid = done->tid.load();
    if (!(tid && kept_off_cpu(int(tid), &ran_ns))) charged += kSlice;
    if (uncharged) {  // what the thread's own waits spent on others kept off their CPUs
      const std::int64_t now_uncharged = uncharged->load();
      charged -= std::min(charged, std::chrono::nanoseconds(now_uncharged - uncharged_before));
      uncharged_before = now_uncharged;
    }
    if (charged >= limit || Clock::now() >= cap) break;
  }
  t.detach();
  return false;
}

}  // namespace rwstress

namespace rwstress {

void collect_injections(const Scenario& sc, const InjectShared& shared, RunResult& result) {
  const InjectionPlan& plan = *sc.injection;
  for (std::size_t i = 0; i < plan.specs.size(); ++i) {
    const InjectSpec& spec = plan.specs[i];
    if (is_global(spec.kind)) {
      result.injections.push_back(
          {spec.describe(), "timer", shared.global_fired[i]->load(), 0});
      continue;
    }
    for (InjectPoint p : spec.points) {
      InjectionCount c{spec.describe(), inject_point_name(p), 0, 0};
      for (const ThreadResult& t : result.threads) {
        if (i < t.inject_fired.size()) {
          c.fired += t.inject_fired[i][int(p)];
          c.visits += t.inject_visits[i][int(p)];
        }
      }
      result.injections.push_back(c);
    }
  }
  result.schedule_digest = schedule_digest(plan, sc.seed, sc.threads());
  for (const InjectSpec& spec : plan.specs) {
    if (spec.kind != InjectKind::kPriority) continue;
    if (shared.fifo_denied.load())
      result.notes.push_back(
          "priority: SCHED_FIFO is not permitted to this process (sched_setscheduler failed); "
          "its bursts were skipped and those events reniced instead");
    else
      result.notes.push_back(fmt::format("priority: {} SCHED_FIFO bursts", shared.fifo_bursts.load()));
    break;
  }
}

void report_over_limit(const Scenario& sc, const RunResult& result, ViolationLog& log) {
  const std::uint64_t limit = sc.measure.acq_writer_limit_ns;
  if (limit == 0) return;
  for (std::size_t i = 0; i < result.threads.size(); ++i) {
    const RoleStat& w = result.threads[i].lockstat.write;
    if (w.over_limit == 0) continue;
    log.report(ViolationKind::kAcquireLimit, int(i),
               fmt::format("{} of its {} write acquisitions waited longer than --acq-writer-lim "
                           "{} (the longest {:.3f} ms)",
                           w.over_limit, w.acquired, format_duration(std::chrono::nanoseconds(limit)),
                           double(w.over_limit_max_ns) / 1e6));
  }
}

}  // namespace rwstress
