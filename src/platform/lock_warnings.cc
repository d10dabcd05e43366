#include "platform/lock_warnings.h"

#include <string>
#include <utility>

#include "explore/controlled.h"

namespace rwstress {

LockWarnings& LockWarnings::instance() {
  static LockWarnings w;
  return w;
}

void LockWarnings::raise(int thread, std::string detail, LockSaid kind) {
  std::lock_guard guard(mutex_);
  for (Entry& e : entries_)
    if (e.kind == kind && e.detail == detail) {
      ++e.times;
      return;
    }
  if (entries_.size() < kDistinct)
    entries_.push_back(Entry{kind, thread, std::move(detail), 1});
  else
    ++beyond_;
}

void LockWarnings::clear() {
  std::lock_guard guard(mutex_);
  entries_.clear();
  beyond_ = 0;
}

std::vector<LockWarnings::Entry> LockWarnings::take(std::uint64_t& beyond) {
  std::lock_guard guard(mutex_);
  beyond = std::exchange(beyond_, 0);
  return std::exchange(entries_, {});
}

namespace {

void spin_bound_broken(rwstress_spin_bound& b, std::string detail) noexcept {
  b.reported = 1;  // until the lock states a new bound
  try {
    // Which step of the schedule, under explore: its trace numbers its
    // steps from 1, and the spinner's last is this one.
    const controlled::Schedule* s = controlled::schedule_so_far();
    if (s && !s->trace.empty()) detail += " (after step " + std::to_string(s->trace.size()) + ")";
    LockWarnings::instance().raise(tl_worker_index, std::move(detail), LockSaid::kSpinBound);
  } catch (...) {  // out of memory in a report: the run goes on without it
  }
}

}  // namespace

void judge_spin_turn(rwstress_spin_bound& b, std::uint64_t now_ns) noexcept {
  if (b.reported) return;
  switch (b.kind) {
    case RWSTRESS_SPIN_BOUND_DEADLINE:
      if (now_ns <= b.deadline_ns) return;
      if (!b.overdue) {  // one turn of grace: the lock may have looked just in time
        b.overdue = 1;
        return;
      }
      spin_bound_broken(b, std::string(b.what) +
                               ": a busy-wait turn past its deadline, after a turn already past it "
                               "(the lock's look at its clock between the two did not end the spin)");
      return;
    case RWSTRESS_SPIN_BOUND_TURNS:
      if (b.left-- > 0) return;
      spin_bound_broken(b, std::string(b.what) + ": more than its " + std::to_string(b.turns) +
                               " busy-wait turns with the state it waits on unchanged");
      return;
    default: return;
  }
}

}  // namespace rwstress
