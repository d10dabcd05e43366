// Invariant checkers for the rwlock family (docs/checkers.md).
//
// The checkers watch the lock from the outside, through state the harness
// keeps next to it: who is inside (ExclusionCheck) and what the protected
// data looks like (ProtectedRecord). Both are read and written with atomics
// so that a broken lock is a reported violation, never undefined behaviour
// in the harness.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "model/lock_traits.h"
#include "model/run_result.h"
#include "platform/lock_order.h"
#include "platform/lock_warnings.h"

namespace rwstress {

inline constexpr std::size_t kCacheLinePad = 128;  // two lines: adjacent-line prefetch pairs them

// Counts every violation, keeps the first few of each kind for the report, and stops the
// run on the first one under --fail-fast.
class ViolationLog {
 public:
  static constexpr int kKeptPerKind = 3;

  explicit ViolationLog(std::atomic<bool>* stop_on_first = nullptr) : stop_(stop_on_first) {}

  void report(ViolationKind kind, int thread, std::string detail);
  // `n` more violations of `kind`, already described by an earlier report.
  void count_more(ViolationKind kind, std::uint64_t n);

  std::uint64_t count() const { return total_.load(std::memory_order_relaxed); }
  void copy_into(RunResult& r) const;

 private:
  std::atomic<bool>* stop_;
  std::atomic<std::uint64_t> total_{0};
  std::array<std::atomic<std::uint64_t>, kViolationKindCount> by_kind_{};
  mutable std::mutex mutex_;
  std::vector<Violation> kept_;
  std::array<int, kViolationKindCount> kept_per_kind_{};
};

// Takes what the locks raised (platform/lock_warnings.h) into `log`: a
// WARN_ON as lock-warning, a spinner past its declared bound as
// spin-bound.
void drain_lock_warnings(ViolationLog& log);

static_assert(kProbeThread == -1, "platform/lock_warnings.h: tl_worker_index starts at -1");

// Writer exclusion and reader sharing. Each side announces itself with a
// seq_cst increment and then reads the other side's count (Dekker style):
// if a reader and a writer are ever inside together, at least one of them
// sees the other.
class ExclusionCheck {
 public:
  void writer_enter(int thread, ViolationLog& log);
  void writer_exit() { writers_inside_.fetch_sub(1); }

  // Returns how many readers were inside, counting this one.
  int reader_enter(int thread, ViolationLog& log);
  void reader_exit() { readers_inside_.fetch_sub(1); }

  // Called while still holding the write lock, before downgrade_write().
  void writer_to_reader() {
    readers_inside_.fetch_add(1);
    writers_inside_.fetch_sub(1);
  }

 private:
  alignas(kCacheLinePad) std::atomic<int> readers_inside_{0};
  alignas(kCacheLinePad) std::atomic<int> writers_inside_{0};
};

// Semaphore bound: never more holders inside than the count. Each holder
// announces itself with a seq_cst increment and reads the total it made.
class SemaphoreBoundCheck {
 public:
  // Returns how many holders were inside, counting this one.
  int enter(int thread, int count, ViolationLog& log);
  void exit() { holders_.fetch_sub(1); }

 private:
  alignas(kCacheLinePad) std::atomic<int> holders_{0};
};

// A multi-cache-line record: a writer fills every word with one value; a
// reader must find every word equal. Catches broken exclusion and missing
// barriers (a release that lets the next holder in before the last store)
// even when the counters above look fine.
class ProtectedRecord {
 public:
  static constexpr int kWords = 32;  // 256 bytes: four 64-byte cache lines

  // Stores `value` in every word.
  void write(std::uint64_t value);

  // Stores only the first `count` words: lets tests build a torn record.
  void write_prefix(std::uint64_t value, int count) {
    for (int i = 0; i < count; ++i) words_[i].store(value, std::memory_order_relaxed);
  }

  // Reader side: every word equal. Reports a torn record.
  bool check_whole(int thread, ViolationLog& log) const;

  // Writer side: every word still holds `value`. Reports who changed it.
  bool check_holds(std::uint64_t value, int thread, ViolationKind kind, const char* when,
                   ViolationLog& log) const;

 private:
  // Whether every word equals `v`: the test a hold makes, twice.
  bool all_equal(std::uint64_t v) const;
  // After all_equal failed: the first word from `from` on that is not `v`,
  // read again one by one, and its value; -1 if they all are `v` by now.
  int first_other_than(std::uint64_t v, int from, std::uint64_t& seen) const;

  alignas(kCacheLinePad) std::array<std::atomic<std::uint64_t>, kWords> words_{};
};

// The value a writer stores: the writer's index and a per-writer sequence
// number, so a torn record says who wrote each half.
inline std::uint64_t record_value(int thread, std::uint64_t seq) {
  return (std::uint64_t(thread + 1) << 40) | (seq & ((std::uint64_t(1) << 40) - 1));
}

std::string describe_record_value(std::uint64_t value);

// The lock contract's idle check (HasIdleCheck): after every thread left.
template <class Lock>
void check_idle(const Lock& lock, ViolationLog& log) {
  if constexpr (HasIdleCheck<Lock>) {
    if (const char* what = lock.not_idle())
      log.report(ViolationKind::kNotIdle, kAfterRunThread,
                 std::string("the lock was not idle after every thread had left: ") + what);
  }
}

// A semaphore's free units after a run: takes up to `limit` with take(n)
// (n: how many it holds so far; a trylock, retried or not), gives every
// one back, returns how many it got. The timed run's count check and
// explore's (which cannot wait: nothing else runs) both count this way.
template <class Lock, class Take>
int count_free_units(Lock& lock, int limit, Take take) {
  int held = 0;
  while (held < limit && take(held)) ++held;
  for (int i = 0; i < held; ++i) lock.up();
  return held;
}

}  // namespace rwstress
