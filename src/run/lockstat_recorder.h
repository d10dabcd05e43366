// The --lockstat / --hist recorder of one worker: it reads the clock around
// each acquisition and fills that worker's LockStat (model/lockstat.h).
// Only the instrumented instantiation of a run reaches it, through
// tl_lockstat.
#pragma once

#include <algorithm>
#include <cstdint>

#include "injectors/injection.h"
#include "model/lockstat.h"
#include "platform/cycle_clock.h"

namespace rwstress {

// One worker's recorder, reached through tl_lockstat while it runs the
// instrumented loop. request() -> [rejected()] -> acquired() -> released().
class LockStatRecorder {
 public:
  // `writes`: its acquisitions are write (exclusive) ones, which
  // --acq-writer-lim bounds.
  LockStatRecorder(RoleStat& role, const ClockCalibration& cal, const MeasureSpec& m,
                   bool writes)
      : role_(&role),
        ns_per_tick_(cal.ns_per_tick),
        overhead_(cal.overhead_ticks),
        hist_hold_(m.hist_hold),
        hist_wait_(m.hist_wait),
        write_limit_ns_(writes ? m.acq_writer_limit_ns : 0) {}

  void request() {
    rejected_ = false;
    tl_hook_waited = false;
    t_request_ = CycleClock::now();
  }
  void rejected() {
    ++role_->requests;
    ++role_->rejected;
    rejected_ = true;  // the blocking call that follows was not "at once"
  }
  void acquired() {
    t_acquired_ = CycleClock::now();
    const std::uint64_t ns = interval_ns(t_request_, t_acquired_);
    ++role_->requests;
    ++role_->acquired;
    if (rejected_ || tl_hook_waited || ns > kWaitedAfterNs)
      ++role_->waited;
    else
      ++role_->nowait;
    role_->wait.add(ns);
    if (hist_wait_) role_->wait_hist.add(ns);
    if (write_limit_ns_ > 0 && ns > write_limit_ns_) {
      ++role_->over_limit;
      role_->over_limit_max_ns = std::max(role_->over_limit_max_ns, ns);
    }
  }
  void released() {
    const std::uint64_t ns = interval_ns(t_acquired_, CycleClock::now());
    role_->hold.add(ns);
    if (hist_hold_) role_->hold_hist.add(ns);
  }
  // Switches the role recorded (a downgraded write hold ends as a read).
  void set_role(RoleStat& role) { role_ = &role; }

 private:
  std::uint64_t interval_ns(std::uint64_t a, std::uint64_t b) const {
    if (b <= a) return 0;  // never wrap, whatever the counter does
    const double ticks = double(b - a) - overhead_;
    return ticks > 0 ? std::uint64_t(ticks * ns_per_tick_ + 0.5) : 0;
  }

  RoleStat* role_;
  double ns_per_tick_;
  double overhead_;
  bool hist_hold_, hist_wait_;
  std::uint64_t write_limit_ns_;
  bool rejected_ = false;
  std::uint64_t t_request_ = 0, t_acquired_ = 0;
};

inline thread_local LockStatRecorder* tl_lockstat = nullptr;

}  // namespace rwstress
