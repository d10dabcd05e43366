#include "run/checkers.h"

#include <fmt/format.h>

namespace rwstress {

void ViolationLog::report(ViolationKind kind, int thread, std::string detail) {
  total_.fetch_add(1, std::memory_order_relaxed);
  by_kind_[int(kind)].fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard guard(mutex_);
    if (kept_per_kind_[int(kind)] < kKeptPerKind) {
      ++kept_per_kind_[int(kind)];
      kept_.push_back(Violation{kind, thread, std::move(detail)});
    }
  }
  if (stop_) stop_->store(true, std::memory_order_relaxed);
}

void ViolationLog::count_more(ViolationKind kind, std::uint64_t n) {
  total_.fetch_add(n, std::memory_order_relaxed);
  by_kind_[int(kind)].fetch_add(n, std::memory_order_relaxed);
}

LockWarnings& LockWarnings::instance() {
  static LockWarnings w;
  return w;
}

void LockWarnings::raise(int thread, std::string detail) {
  std::lock_guard guard(mutex_);
  for (Entry& e : entries_)
    if (e.detail == detail) {
      ++e.times;
      return;
    }
  if (entries_.size() < kDistinct)
    entries_.push_back(Entry{thread, std::move(detail), 1});
  else
    ++beyond_;
}

void LockWarnings::clear() {
  std::lock_guard guard(mutex_);
  entries_.clear();
  beyond_ = 0;
}

void LockWarnings::drain_into(ViolationLog& log) {
  std::lock_guard guard(mutex_);
  for (Entry& e : entries_) {
    std::string detail =
        e.times > 1 ? fmt::format("{} ({} times; the first on this thread)", e.detail, e.times)
                    : e.detail;
    log.report(ViolationKind::kLockWarning, e.thread, std::move(detail));
    log.count_more(ViolationKind::kLockWarning, e.times - 1);
  }
  if (beyond_) log.count_more(ViolationKind::kLockWarning, beyond_);
  entries_.clear();
  beyond_ = 0;
}

void ViolationLog::copy_into(RunResult& r) const {
  r.violation_count = count();
  for (int k = 0; k < kViolationKindCount; ++k) r.violations_by_kind[k] = by_kind_[k].load();
  std::lock_guard guard(mutex_);
  r.first_violations = kept_;
}

void ExclusionCheck::writer_enter(int thread, ViolationLog& log) {
  int writers = writers_inside_.fetch_add(1) + 1;
  int readers = readers_inside_.load();
  if (writers > 1 || readers > 0)
    log.report(ViolationKind::kWriterExclusion, thread,
               fmt::format("writer entered with {} other writer(s) and {} reader(s) inside",
                           writers - 1, readers));
}

int SemaphoreBoundCheck::enter(int thread, int count, ViolationLog& log) {
  int inside = holders_.fetch_add(1) + 1;
  if (inside > count)
    log.report(ViolationKind::kSemaphoreBound, thread,
               fmt::format("{} holders inside a semaphore of count {}", inside, count));
  return inside;
}

int ExclusionCheck::reader_enter(int thread, ViolationLog& log) {
  int readers = readers_inside_.fetch_add(1) + 1;
  int writers = writers_inside_.load();
  if (writers > 0)
    log.report(ViolationKind::kReaderExclusion, thread,
               fmt::format("reader entered with {} writer(s) inside", writers));
  return readers;
}

std::string describe_record_value(std::uint64_t value) {
  if (value == 0) return "initial 0";
  return fmt::format("writer {} write #{}", int(value >> 40) - 1,
                     value & ((std::uint64_t(1) << 40) - 1));
}

bool ProtectedRecord::check_whole(int thread, ViolationLog& log) const {
  std::uint64_t first = words_[0].load(std::memory_order_relaxed);
  for (int i = 1; i < kWords; ++i) {
    std::uint64_t w = words_[i].load(std::memory_order_relaxed);
    if (w != first) {
      log.report(ViolationKind::kTornRecord, thread,
                 fmt::format("reader saw a torn record: word 0 = {}, word {} = {}",
                             describe_record_value(first), i, describe_record_value(w)));
      return false;
    }
  }
  return true;
}

bool ProtectedRecord::check_holds(std::uint64_t value, int thread, ViolationKind kind,
                                  const char* when, ViolationLog& log) const {
  for (int i = 0; i < kWords; ++i) {
    std::uint64_t w = words_[i].load(std::memory_order_relaxed);
    if (w != value) {
      log.report(kind, thread,
                 fmt::format("{}: word {} = {}, expected my {}", when, i,
                             describe_record_value(w), describe_record_value(value)));
      return false;
    }
  }
  return true;
}

}  // namespace rwstress
