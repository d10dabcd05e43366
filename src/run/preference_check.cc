#include "run/preference_check.h"

namespace rwstress {

namespace {

struct Waiter {
  int thread;
  std::uint64_t call;
};

// The waiters the calling worker must not pass: its own, one worker at a time.
thread_local std::vector<Waiter> tl_must_not_pass;

}  // namespace

std::string preference_broken(Fairness f, Family family, int me, bool me_exclusive, int waiter,
                              bool waiter_exclusive) {
  const auto role = [&](int t, bool excl) {
    const bool rw = family == Family::kRwlock;
    return std::string(rw ? (excl ? "writer W" : "reader R") : "thread T") + std::to_string(t);
  };
  const char* rule = f == Fairness::kWriterPref  ? "no reader while a writer waits"
                     : f == Fairness::kPhaseFair ? "no new reader phase after a read phase while a writer waits"
                                                 : "in arrival order";
  return role(me, me_exclusive) + " was let in while " + role(waiter, waiter_exclusive) +
         ", already waiting in the lock when it asked, still waited: a " + fairness_name(f) +
         " lock admits " + rule;
}

void TimedPreference::asks(int i) {
  WaitSignal& me = *signals_[std::size_t(i)];
  const std::uint64_t done = me.call.load(std::memory_order_relaxed);
  // Odd: in progress. Relaxed: what another worker needs ordered is the
  // lock's write that took the place, which the spin turn's release store
  // of `spun` carries.
  me.call.store(done + 1, std::memory_order_relaxed);
  tl_must_not_pass.clear();
  if ((done >> 1) % kJudgedEvery != 0) return;  // judged: one acquisition in kJudgedEvery
  const bool me_exclusive = exclusive(i);
  for (int j = 0; j < int(signals_.size()); ++j) {
    if (j == i || !may_not_pass(fairness_, me_exclusive, exclusive(j))) continue;
    const WaitSignal& w = *signals_[std::size_t(j)];
    const std::uint64_t call = w.call.load(std::memory_order_acquire);
    if ((call & 1) && w.spun.load(std::memory_order_acquire) == call)
      tl_must_not_pass.push_back({j, call});
  }
}

void TimedPreference::admitted(int i, ViolationLog& log) {
  WaitSignal& me = *signals_[std::size_t(i)];
  const std::uint64_t call = me.call.load(std::memory_order_relaxed);
  // Before anything else and before the release: whoever the lock lets in
  // after this hold sees that this acquisition ended.
  me.call.store(call + 1, std::memory_order_release);
  for (const Waiter& w : tl_must_not_pass) {
    if (signals_[std::size_t(w.thread)]->call.load(std::memory_order_acquire) != w.call) continue;
    log.report(ViolationKind::kPreference, i,
               preference_broken(fairness_, family_, i, exclusive(i), w.thread, exclusive(w.thread)));
    break;
  }
  tl_must_not_pass.clear();
}

}  // namespace rwstress
