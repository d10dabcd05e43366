#include "injectors/injection.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cerrno>

#include "platform/cpu_relax.h"
#include "platform/splitmix.h"

namespace rwstress {

namespace {

void busy_wait(std::int64_t ns) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
  while (std::chrono::steady_clock::now() < end) cpu_relax();
}

void sleep_ns(std::int64_t ns) {
  timespec ts{time_t(ns / 1000000000), long(ns % 1000000000)};
  nanosleep(&ts, nullptr);
}

bool timed(InjectKind k) {
  return k == InjectKind::kDelay || k == InjectKind::kSleep || k == InjectKind::kLongHold ||
         k == InjectKind::kStall;
}

// The decision for one visit, from its stream: the same function serves the
// run and the digest.
std::int64_t decide_from(const InjectSpec& s, std::mt19937_64& rng, std::uint64_t visit) {
  bool fire;
  if (s.every_visits)
    fire = visit % s.every_visits == 0;
  else
    fire = std::generate_canonical<double, 53>(rng) < s.p;
  if (!fire) return 0;
  if (!timed(s.kind)) return 1;
  return std::max<std::int64_t>(1, s.dist.sample(rng).count());
}

}  // namespace

std::uint64_t inject_stream_seed(std::uint64_t run_seed, int thread, std::size_t spec,
                                 InjectPoint p) {
  return splitmix64(splitmix64(splitmix64(run_seed ^ 0x1badcafe) + std::uint64_t(thread)) +
                  (std::uint64_t(spec) << 8 | std::uint64_t(p)));
}

ThreadInjector::ThreadInjector(const InjectionPlan& plan, InjectShared& shared,
                               std::uint64_t run_seed, int thread)
    : plan_(plan),
      shared_(shared),
      streams_(plan.specs.size()),
      fired_(plan.specs.size()),
      visits_(plan.specs.size()) {
  for (std::size_t i = 0; i < plan.specs.size(); ++i) {
    for (int p = 0; p < kInjectPointCount; ++p)
      streams_[i][p].seed(inject_stream_seed(run_seed, thread, i, InjectPoint(p)));
    fired_[i].fill(0);
    visits_[i].fill(0);
  }
}

std::int64_t ThreadInjector::decide(std::size_t spec, InjectPoint p) {
  const std::uint64_t visit = ++visits_[spec][int(p)];
  return decide_from(plan_.specs[spec], streams_[spec][int(p)], visit);
}

std::int64_t ThreadInjector::act(const InjectSpec& s, std::int64_t ns) {
  // What was paused is measured, not taken from the sample: a sleep
  // overshoots by the timer slack and a wake-up's wait for a CPU.
  auto paused = [](auto pause, std::int64_t ns) {
    const auto t0 = std::chrono::steady_clock::now();
    pause(ns);
    return std::int64_t(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
            .count());
  };
  switch (s.kind) {
    case InjectKind::kYield: sched_yield(); return 0;
    case InjectKind::kDelay: return paused(busy_wait, ns);
    case InjectKind::kSleep:
    case InjectKind::kLongHold: return paused(sleep_ns, ns);
    case InjectKind::kStall: {
      // One thread frozen at a time: if another is stalled, this one is not.
      if (shared_.stall_taken.exchange(true)) return 0;
      const std::int64_t slept = paused(sleep_ns, ns);
      shared_.stall_taken.store(false);
      return slept;
    }
    case InjectKind::kSignal: tl_signal_raised = true; return 0;
    default: return 0;
  }
}

void ThreadInjector::at(InjectPoint p) {
  for (std::size_t i = 0; i < plan_.specs.size(); ++i) {
    const InjectSpec& s = plan_.specs[i];
    if (is_global(s.kind) || s.kind == InjectKind::kSpuriousWake || s.kind == InjectKind::kResched)
      continue;
    if (std::find(s.points.begin(), s.points.end(), p) == s.points.end()) continue;
    if (std::int64_t ns = decide(i, p)) {
      ++fired_[i][int(p)];
      const std::int64_t paused = act(s, ns);
      if (holds_lock_at(p)) holding_pause_ns_ += paused;
    }
  }
  // The stutter gate: workers stop between passes while it is closed.
  if (p == InjectPoint::kBetweenPasses)
    while (shared_.paused.load(std::memory_order_acquire) &&
           !(shared_.run_stop && shared_.run_stop->load(std::memory_order_relaxed)))
      sleep_ns(50000);
}

// The kinds that fire at one point of their own, decided where the point
// is: spurious-wake at the futex wrapper, resched at need_resched().
bool ThreadInjector::fires_at(InjectKind kind, InjectPoint p) {
  bool fired = false;
  for (std::size_t i = 0; i < plan_.specs.size(); ++i) {
    if (plan_.specs[i].kind != kind) continue;
    if (decide(i, p)) {
      ++fired_[i][int(p)];
      fired = true;
    }
  }
  return fired;
}

bool ThreadInjector::spurious_futex_return() {
  return fires_at(InjectKind::kSpuriousWake, InjectPoint::kFutexWait);
}

bool ThreadInjector::resched_now() { return fires_at(InjectKind::kResched, InjectPoint::kNeedResched); }

std::uint64_t schedule_digest(const InjectionPlan& plan, std::uint64_t run_seed, int threads) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a over every decision
  auto mix = [&](std::uint64_t v) {
    for (int b = 0; b < 8; ++b) {
      h ^= (v >> (8 * b)) & 0xff;
      h *= 0x100000001b3ULL;
    }
  };
  for (int t = 0; t < threads; ++t)
    for (std::size_t i = 0; i < plan.specs.size(); ++i) {
      const InjectSpec& s = plan.specs[i];
      if (is_global(s.kind)) continue;
      for (InjectPoint p : s.points) {
        std::mt19937_64 rng(inject_stream_seed(run_seed, t, i, p));
        for (int k = 1; k <= kDigestDecisions; ++k) mix(std::uint64_t(decide_from(s, rng, k)));
      }
    }
  mix(run_seed);
  return h;
}

InjectionController::InjectionController(const InjectionPlan& plan, InjectShared& shared,
                                         std::uint64_t run_seed, std::vector<Target> targets,
                                         std::vector<int> cpus)
    : plan_(plan),
      shared_(shared),
      rng_(splitmix64(run_seed ^ 0xc0ffee)),
      targets_(std::move(targets)),
      cpus_(std::move(cpus)) {}

void InjectionController::start() {
  for (const auto& s : plan_.specs)
    if (is_global(s.kind)) {
      thread_ = std::thread([this] { run(); });
      return;
    }
}

void InjectionController::stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  shared_.paused.store(false);
}

void InjectionController::pin(const Target& t, const std::vector<int>& cpus) {
  const pid_t tid = t.tid->load();
  if (tid <= 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  sched_setaffinity(tid, sizeof set, &set);
}

// One event loop for every global injector: each has its next start time;
// an event with a span (stutter, cpu-offline, priority) also has an end.
void InjectionController::run() {
  using Clock = std::chrono::steady_clock;
  struct Event {
    std::size_t spec;
    Clock::time_point next;
    Clock::time_point ends{};
    bool active = false;
    int cpu = -1;       // cpu-offline: the CPU taken away
    std::size_t who = 0;  // priority: the thread reniced or made SCHED_FIFO
    bool fifo = false;    // priority: this event is a SCHED_FIFO burst
    int old_nice = 0;     // priority: the nice value to restore
    std::uint64_t count = 0;
  };
  std::vector<Event> events;
  const auto t0 = Clock::now();
  for (std::size_t i = 0; i < plan_.specs.size(); ++i)
    if (is_global(plan_.specs[i].kind)) events.push_back({i, t0 + plan_.specs[i].every});

  auto restore_pins = [&] {
    for (const auto& t : targets_) pin(t, {t.planned_cpu});
  };
  while (!stop_.load()) {
    const auto now = Clock::now();
    for (Event& e : events) {
      const InjectSpec& s = plan_.specs[e.spec];
      if (e.active && now >= e.ends) {
        e.active = false;
        if (s.kind == InjectKind::kStutter) shared_.paused.store(false, std::memory_order_release);
        if (s.kind == InjectKind::kCpuOffline) restore_pins();
        if (s.kind == InjectKind::kPriority) end_priority(e.who, e.fifo, e.old_nice);
      }
      if (!e.active && now >= e.next) {
        e.next = now + s.every;
        shared_.global_fired[e.spec]->fetch_add(1);
        switch (s.kind) {
          case InjectKind::kStutter:
            shared_.paused.store(true, std::memory_order_release);
            break;
          case InjectKind::kShuffle:
            for (const auto& t : targets_)
              pin(t, {cpus_[std::uniform_int_distribution<std::size_t>(0, cpus_.size() - 1)(rng_)]});
            break;
          case InjectKind::kCpuOffline: {
            if (cpus_.size() < 2) break;  // nothing to move the threads to
            e.cpu = cpus_[std::uniform_int_distribution<std::size_t>(0, cpus_.size() - 1)(rng_)];
            std::vector<int> rest;
            for (int c : cpus_)
              if (c != e.cpu) rest.push_back(c);
            for (const auto& t : targets_)
              if (t.planned_cpu == e.cpu) pin(t, rest);
            break;
          }
          case InjectKind::kPriority: {
            // Odd events are SCHED_FIFO bursts where the process may use
            // them; the others, and all of them where it may not, renice.
            e.who = std::uniform_int_distribution<std::size_t>(0, targets_.size() - 1)(rng_);
            e.fifo = (++e.count % 2 == 0) && !shared_.fifo_denied.load();
            // (a real-time thread is already above the rest: nothing to
            // give it, and its policy is the run's)
            pid_t tid = targets_[e.who].real_time ? 0 : targets_[e.who].tid->load();
            if (tid <= 0) break;
            if (e.fifo) {
              sched_param sp{};
              sp.sched_priority = 1;
              if (sched_setscheduler(tid, SCHED_FIFO, &sp) == 0) {
                shared_.fifo_bursts.fetch_add(1);
                break;
              }
              shared_.fifo_denied.store(true);
              e.fifo = false;
            }
            errno = 0;
            e.old_nice = getpriority(PRIO_PROCESS, id_t(tid));
            if (errno != 0) e.old_nice = 0;
            setpriority(PRIO_PROCESS, id_t(tid), 19);
            break;
          }
          default: break;
        }
        if (s.kind != InjectKind::kShuffle) {
          e.active = true;
          e.ends = now + s.span;
        }
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  shared_.paused.store(false);
  for (Event& e : events)
    if (e.active && plan_.specs[e.spec].kind == InjectKind::kPriority)
      end_priority(e.who, e.fifo, e.old_nice);
}

void InjectionController::end_priority(std::size_t who, bool fifo, int old_nice) {
  pid_t tid = targets_[who].real_time ? 0 : targets_[who].tid->load();
  if (tid <= 0) return;
  if (fifo) {
    sched_param sp{};
    sched_setscheduler(tid, SCHED_OTHER, &sp);
  } else {
    setpriority(PRIO_PROCESS, id_t(tid), old_nice);
  }
}

}  // namespace rwstress
