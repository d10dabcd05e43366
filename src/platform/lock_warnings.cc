#include "platform/lock_warnings.h"

#include <utility>

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

}  // namespace rwstress
