#include "run/rt_guard.h"

#include <pthread.h>
#include <sched.h>

#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "platform/sched_stat.h"

namespace rwstress {

RtGuard::RtGuard(RunShared& shared)
    : shared_(shared), throttled_(std::size_t(shared.scenario.threads()), 0) {
  const Scenario& sc = shared.scenario;
  for (int i = 0; i < sc.threads(); ++i)
    if (sc.real_time(i)) rt_.push_back(i);
  if (!rt_.empty()) thread_ = std::thread([this] { run(); });
}

pid_t RtGuard::live_tid(int i) const {
  const WorkerSlot& slot = shared_.slots[i];
  if (slot.phase.load(std::memory_order_acquire) == Phase::kDone) return 0;
  return slot.tid.load(std::memory_order_acquire);
}

void RtGuard::set_policy(int i, int policy) const {
  const pid_t tid = live_tid(i);
  if (tid == 0) return;  // (gone: its tid may be another thread's by now)
  sched_param p{};
  p.sched_priority = policy == SCHED_FIFO ? 1 : 0;
  sched_setscheduler(tid, policy, &p);
}

void RtGuard::run() {
  // Above every worker, so that its timer's wake-up preempts a spinner.
  sched_param top{};
  top.sched_priority = sched_get_priority_max(SCHED_FIFO);
  pthread_setschedparam(pthread_self(), SCHED_FIFO, &top);
  using Clock = std::chrono::steady_clock;
  std::vector<std::uint64_t> ran(throttled_.size(), 0);  // on a CPU, at the period's start
  const auto mark = [&] {
    for (int i : rt_)
      if (const pid_t tid = live_tid(i); tid != 0)
        if (const auto t = read_thread_sched_times(int(tid))) ran[std::size_t(i)] = t->on_cpu_ns;
  };
  mark();
  Clock::time_point start = Clock::now();
  std::unique_lock lock(mutex_);
  while (!wake_.wait_until(lock, start + kPeriod, [&] { return stopping_; })) {
    const auto elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start);
    // Per CPU: what its real-time workers took of the period.
    std::map<int, std::uint64_t> took;
    std::map<int, std::vector<int>> on;
    for (int i : rt_) {
      const pid_t tid = live_tid(i);
      if (tid == 0) continue;
      const auto t = read_thread_sched_times(int(tid));
      const int cpu = read_thread_cpu(int(tid));
      if (!t || cpu < 0) continue;
      took[cpu] += t->on_cpu_ns - std::min(t->on_cpu_ns, ran[std::size_t(i)]);
      on[cpu].push_back(i);
    }
    const auto budget = std::uint64_t(elapsed.count()) * std::uint64_t(kBudget.count()) /
                        std::uint64_t(kPeriod.count());
    std::vector<int> off;
    for (const auto& [cpu, ns] : took)
      if (ns >= budget) off.insert(off.end(), on[cpu].begin(), on[cpu].end());
    if (!off.empty()) {
      ++steps_in_;
      for (int i : off) set_policy(i, SCHED_OTHER), ++throttled_[std::size_t(i)];
      wake_.wait_for(lock, kRelief, [&] { return stopping_; });
      if (!stopping_)
        for (int i : off) set_policy(i, SCHED_FIFO);
    }
    mark();
    start = Clock::now();
  }
}

void RtGuard::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard guard(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  for (int i : rt_) set_policy(i, SCHED_IDLE);
}

std::string RtGuard::note(const std::vector<ThreadResult>& threads) const {
  if (rt_.empty()) return "";
  std::vector<int> fifo, not_fifo;
  std::uint64_t times = 0;
  for (int i : rt_) {
    const bool was = std::size_t(i) < threads.size() && threads[std::size_t(i)].rt;
    (was ? fifo : not_fifo).push_back(i);
    times += throttled_[std::size_t(i)];
  }
  std::string text = fmt::format("real-time: thread{} {} ran SCHED_FIFO (priority 1)",
                                 fifo.size() == 1 ? "" : "s", fmt::join(fifo, ", "));
  if (fifo.empty()) text = "real-time: no thread ran SCHED_FIFO";
  if (!not_fifo.empty())
    text += fmt::format("; thread{} {} did not get it", not_fifo.size() == 1 ? "" : "s",
                        fmt::join(not_fifo, ", "));
  if (steps_in_ == 0)
    return text + fmt::format("; the guard never stepped in (they never kept a CPU {} ms of {})",
                              kBudget.count(), kPeriod.count());
  return text + fmt::format(
                    "; the guard put {} to SCHED_OTHER {} time{} for {} ms, in {} period{} of {} "
                    "ms where the real-time threads of a CPU had kept it {} ms or more (the "
                    "kernel's RT throttling, on a shorter period: without it, a real-time "
                    "thread that spins on a lock whose owner is a normal thread of its CPU "
                    "keeps that CPU for good)",
                    rt_.size() == 1 ? "it" : "them", times, times == 1 ? "" : "s",
                    kRelief.count(), steps_in_, steps_in_ == 1 ? "" : "s", kPeriod.count(),
                    kBudget.count());
}

RaisedForRun::RaisedForRun(bool raise) {
  if (!raise) return;
  sched_param was{};
  if (pthread_getschedparam(pthread_self(), &policy_, &was) != 0) return;
  priority_ = was.sched_priority;
  sched_param fifo{};
  fifo.sched_priority = 2;
  raised_ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo) == 0;
}

RaisedForRun::~RaisedForRun() {
  if (!raised_) return;
  sched_param was{};
  was.sched_priority = priority_;
  pthread_setschedparam(pthread_self(), policy_, &was);
}

}  // namespace rwstress
