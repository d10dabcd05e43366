#include "model/verdict.h"

#include <algorithm>

#include <fmt/format.h>

#include "model/stats.h"

namespace rwstress {

namespace {

std::string seconds_text(double s) {  // "77us", "5.4ms", "1.20s"
  if (s < 1e-3) return fmt::format("{:.0f}us", s * 1e6);
  if (s < 1) return fmt::format("{:.1f}ms", s * 1e3);
  return fmt::format("{:.2f}s", s);
}

}  // namespace

const char* starvation_cause_text(StarvationCause c) {
  switch (c) {
    case StarvationCause::kLock: return "waiting in the lock";
    case StarvationCause::kScheduler: return "held back by the scheduler, not the lock";
    case StarvationCause::kNeverRan: return "never ran between start and stop, not the lock";
    case StarvationCause::kBehindHeldBack:
      return "queued behind a thread the scheduler held back, not the lock";
  }
  return "?";
}

StarvationCause starvation_cause(const ThreadResult& t) {
  if (t.wall_s <= 0) return StarvationCause::kNeverRan;
  if (t.runq_wait_s < 0 || t.on_cpu_s < 0) return StarvationCause::kLock;  // no schedstat
  if (t.runq_wait_s >= kRunqShare * t.wall_s && t.on_cpu_s < kCpuShare * t.wall_s)
    return StarvationCause::kScheduler;
  // Time spent taking --nested-locks is not the lock under test's: there
  // the thread waits behind another writer that holds them (and that, as
  // often as not, waits in a run queue itself); that writer is judged on
  // its own wait for the lock.
  const double outside_runq_s = std::max(0.0, t.wall_s - t.runq_wait_s - t.nested_wait_s);
  if (t.runq_wait_s >= kRunqShareWhenGranted * t.wall_s && t.ops > 0 &&
      outside_runq_s <= kPromptGrantS * double(t.ops))
    return StarvationCause::kScheduler;
  return StarvationCause::kLock;
}

double handoff_wait_bound_s(int threads, int cpus) {
  return std::max(kHandoffWaitS,
                  kHandoffWaitPerThreadS * double(threads) / double(std::max(1, cpus)));
}

std::vector<StarvedThread> find_starved_threads(const std::vector<ThreadResult>& threads) {
  std::vector<StarvedThread> starved;
  std::uint64_t total = 0;
  for (const auto& t : threads) total += t.ops;
  if (threads.empty() || total < kStarvationMinOps) return starved;
  double mean = double(total) / double(threads.size());
  for (size_t i = 0; i < threads.size(); ++i)
    if (double(threads[i].ops) * kStarvedShare < mean)
      starved.push_back({int(i), threads[i].role, threads[i].ops, double(threads[i].ops) / mean,
                         starvation_cause(threads[i])});
  // A thread that waited in the lock yet got within one operation of one
  // the scheduler held back may simply have been queued behind it each
  // time: at 200 readers and 1 writer on 2 CPUs the writer sits in a run
  // queue 98% of the run, and the readers that queue behind it (as a FIFO
  // lock must) get one read per write. One of slack: the run stops in the
  // middle of a turn. A held-back thread that completed nothing explains
  // nobody: the others are judged as before.
  const StarvedThread* slowest_held_back = nullptr;
  for (const auto& s : starved)
    if (s.cause == StarvationCause::kScheduler && s.ops > 0 &&
        (!slowest_held_back || s.ops < slowest_held_back->ops))
      slowest_held_back = &s;
  if (slowest_held_back) {
    const int behind = slowest_held_back->thread;
    const std::uint64_t behind_ops = slowest_held_back->ops;
    for (auto& s : starved)
      if (s.cause == StarvationCause::kLock && s.ops + 1 >= behind_ops) {
        s.cause = StarvationCause::kBehindHeldBack;
        s.behind = behind;
      }
  }
  return starved;
}

void summarize_run(RunResult& r) {
  std::vector<std::uint64_t> reader_ops, writer_ops;
  r.reads = r.writes = 0;
  r.min_thread_ops = r.threads.empty() ? 0 : UINT64_MAX;
  r.max_thread_ops = 0;
  r.max_readers_seen = 0;
  std::uint64_t overlaps = 0;
  for (const auto& t : r.threads) {
    (t.role == Role::kReader ? r.reads : r.writes) += t.ops;
    (t.role == Role::kReader ? reader_ops : writer_ops).push_back(t.ops);
    r.min_thread_ops = std::min(r.min_thread_ops, t.ops);
    r.max_thread_ops = std::max(r.max_thread_ops, t.ops);
    r.max_readers_seen = std::max(r.max_readers_seen, t.max_readers_seen);
    overlaps += t.reader_overlaps;
  }
  r.user_s = r.sys_s = 0;
  r.voluntary_csw = r.involuntary_csw = 0;
  r.injected_holding_s = 0;
  for (const auto& t : r.threads) {
    r.injected_holding_s += t.injected_holding_s;
    r.user_s += t.user_s;
    r.sys_s += t.sys_s;
    r.voluntary_csw += t.voluntary_csw;
    r.involuntary_csw += t.involuntary_csw;
  }
  const int cpus_used = distinct_cpus(r.cpus);
  r.idle_share = idle_share(r.user_s + r.sys_s, r.duration_s, cpus_used);
  r.others_share = r.cpus_busy_s < 0 || r.duration_s <= 0 || cpus_used <= 0
                       ? -1
                       : std::clamp((r.cpus_busy_s - r.user_s - r.sys_s) / (r.duration_s * cpus_used),
                                    0.0, 1.0);
  const bool machine_busy = r.others_share >= kOthersShare;
  const bool injector_held = r.duration_s > 0 &&
                             r.injected_holding_s >= kInjectedHoldingShare * r.duration_s;
  r.jain_readers = jain_index(reader_ops);
  r.jain_writers = jain_index(writer_ops);

  // A run that hung or stopped at its first violation is too short, or
  // ended too strangely, to say anything about sharing or starvation.
  const bool cut_short = !r.hang_report.empty() || r.stopped_at_violation;
  if (r.checked && !cut_short && r.readers >= 2 && r.reads > 0 && overlaps == 0)
    r.notes.push_back(
        "readers never overlapped: the lock serialised them, or the critical section was too "
        "short to catch two inside (try --cs-read)");

  // A spinning lock's fairness promise assumes its waiters keep their CPUs:
  // with more threads than CPUs, a preempted waiter holds up the queue.
  const bool preemption_voids_promise = r.spins && r.threads.size() > std::size_t(cpus_used);
  const bool too_short = r.duration_s < kShareMinRunS;
  bool starved_promised = false;
  // The lines a STARVED verdict rests on come first (the console marks
  // them '!'), then those reported and not judged ('~').
  std::vector<std::string> judged, reported;
  if (!cut_short && r.error.empty()) {
    for (const auto& s : find_starved_threads(r.threads)) {
      const ThreadResult& t = r.threads[size_t(s.thread)];
      bool promised = promises_share(r.fairness, s.role != Role::kReader);
      std::string why;
      if (s.cause == StarvationCause::kBehindHeldBack)
        why = fmt::format(" (queued behind thread {}, which the scheduler held back; not the lock)",
                          s.behind);
      else if (s.cause != StarvationCause::kLock)
        why = fmt::format(" ({})", starvation_cause_text(s.cause));
      else if (!promised && r.fairness == Fairness::kHandoff)
        why = " (allowed: a hand-off lock promises a bounded wait, not a share)";
      else if (!promised)
        why = fmt::format(" (allowed: {} lock)", fairness_name(r.fairness));
      else if (preemption_voids_promise)
        why = " (not judged: a spinning lock on more threads than CPUs)";
      else if (machine_busy)
        why = fmt::format(" (not judged: other programs had {:.0f}% of the CPUs)",
                          100 * r.others_share);
      else if (injector_held)
        why = fmt::format(
            " (not judged: injected pauses held the lock {} in all, over a {} run)",
            seconds_text(r.injected_holding_s), seconds_text(r.duration_s));
      else if (too_short)
        why = fmt::format(" (not judged: a {} run is too short to judge a share; {:.0f}ms at least)",
                          seconds_text(r.duration_s), kShareMinRunS * 1e3);
      const bool counts = s.cause == StarvationCause::kLock && promised &&
                          !preemption_voids_promise && !machine_busy && !injector_held &&
                          !too_short;
      starved_promised |= counts;
      ++r.starved_by_cause[int(s.cause)];
      std::string where;
      if (t.wall_s > 0 && t.on_cpu_s >= 0)
        where = fmt::format("; on a CPU {:.0f}%, in a run queue {:.0f}% of its {:.2f}s{}",
                            100 * t.on_cpu_s / t.wall_s, 100 * t.runq_wait_s / t.wall_s, t.wall_s,
                            t.ops == 0 ? std::string()
                                       : fmt::format(", {} per operation outside it{}",
                                                     seconds_text((t.wall_s - t.runq_wait_s) /
                                                                    double(t.ops)),
                                                     t.nested_wait_s <= 0
                                                         ? std::string()
                                                         : fmt::format(" ({:.0f}% taking nested locks)",
                                                                       100 * t.nested_wait_s / t.wall_s)));
      (counts ? judged : reported).push_back(fmt::format("thread {}{}: {} ops, {:.4f}% of the mean per thread{}{}",
                                      s.thread,
                                      s.role == Role::kHolder
                                          ? std::string()
                                          : fmt::format(" ({})", role_name(s.role)),
                                      s.ops, 100.0 * s.share_of_mean, where, why));
    }
  }

  // A hand-off lock's waits past its bound: the same exemptions as a share.
  if (!cut_short && r.error.empty()) {
    for (const RunResult::LongWait& w : r.long_waits) {
      std::string why;
      if (machine_busy)
        why = fmt::format(" (not judged: other programs had {:.0f}% of the CPUs)",
                          100 * r.others_share);
      else if (r.injected_holding_s >= kInjectedHoldingShare * w.judged_s)
        why = fmt::format(" (not judged: injected pauses held the lock {} in all)",
                          seconds_text(r.injected_holding_s));
      else if (preemption_voids_promise)
        why = " (not judged: a spinning lock on more threads than CPUs)";
      starved_promised |= why.empty();
      ++r.starved_by_cause[int(StarvationCause::kLock)];
      (why.empty() ? judged : reported).push_back(fmt::format(
          "thread {}{}: one wait in {} lasted {} ({} of it out of a run queue, from the "
          "watchdog's first look on) while the others completed {} operations: a {} lock "
          "promises every waiter the lock within its bound{}",
          w.thread, w.role == Role::kHolder ? std::string() : fmt::format(" ({})", role_name(w.role)),
          w.phase, seconds_text(w.waited_s), seconds_text(w.judged_s), w.others,
          fairness_name(r.fairness), why));
    }
  }

  r.starved_judged = int(judged.size());
  r.starved = std::move(judged);
  r.starved.insert(r.starved.end(), reported.begin(), reported.end());

  // A run that saw a safety violation is FAIL, naming it, whatever happened
  // after: threads that then could not leave the lock are the violation's
  // consequence (its hang report is kept beside it), and calling the run a
  // HANG would hide what was found.
  Verdict v = Verdict::kPass;
  if (starved_promised) v = worse(v, Verdict::kStarved);
  if (!r.hang_report.empty()) v = worse(v, Verdict::kHang);
  if (r.violation_count > 0 || !r.error.empty()) v = Verdict::kFail;
  r.verdict = v;
}

}  // namespace rwstress
