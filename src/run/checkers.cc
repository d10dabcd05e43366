#include "run/checkers.h"

#include <fmt/format.h>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

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

void drain_lock_warnings(ViolationLog& log) {
  std::uint64_t beyond = 0;
  for (LockWarnings::Entry& e : LockWarnings::instance().take(beyond)) {
    const ViolationKind kind = e.kind == LockSaid::kSpinBound   ? ViolationKind::kSpinBound
                               : e.kind == LockSaid::kLockOrder ? ViolationKind::kLockOrder
                                                                : ViolationKind::kLockWarning;
    std::string detail =
        e.times > 1 ? fmt::format("{} ({} times; the first on this thread)", e.detail, e.times)
                    : e.detail;
    log.report(kind, e.thread, std::move(detail));
    log.count_more(kind, e.times - 1);
  }
  if (beyond) log.count_more(ViolationKind::kLockWarning, beyond);
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

// The record's words are read and written two at a time where the build
// has 16-byte vector loads and stores that are each two aligned 8-byte
// accesses (SSE2, in every x86-64): the same words tested for the same
// values, in 16 loads instead of 32, without a branch per word. That is a
// third of the scan's time on the development VM (docs/PERFORMANCE.md, the
// checked mode's price), and a reader scans twice per hold. The accesses
// are written in assembly so that the compiler neither splits nor merges
// them; thread sanitizer builds keep the atomics it can see.
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#define RWSTRESS_RECORD_PAIRS 1
#else
#define RWSTRESS_RECORD_PAIRS 0
#endif

#if RWSTRESS_RECORD_PAIRS
namespace {
static_assert(sizeof(std::atomic<std::uint64_t>) == 8);

inline void compiler_barrier() { asm volatile("" ::: "memory"); }

inline __m128i load_pair(const std::atomic<std::uint64_t>* p) {
  __m128i pair;
  asm volatile("movdqa %1, %0" : "=x"(pair) : "m"(*reinterpret_cast<const __m128i*>(p)));
  return pair;
}

inline void store_pair(std::atomic<std::uint64_t>* p, __m128i pair) {
  asm volatile("movdqa %1, %0" : "=m"(*reinterpret_cast<__m128i*>(p)) : "x"(pair));
}
}  // namespace
#endif

void ProtectedRecord::write(std::uint64_t value) {
#if RWSTRESS_RECORD_PAIRS
  const __m128i pair = _mm_set1_epi64x(static_cast<long long>(value));
  compiler_barrier();
  for (int i = 0; i < kWords; i += 2) store_pair(&words_[i], pair);
  compiler_barrier();
#else
  for (auto& w : words_) w.store(value, std::memory_order_relaxed);
#endif
}

bool ProtectedRecord::all_equal(std::uint64_t v) const {
#if RWSTRESS_RECORD_PAIRS
  const __m128i want = _mm_set1_epi64x(static_cast<long long>(v));
  __m128i differ = _mm_setzero_si128();
  compiler_barrier();
  for (int i = 0; i < kWords; i += 2)
    differ = _mm_or_si128(differ, _mm_xor_si128(load_pair(&words_[i]), want));
  compiler_barrier();
  return _mm_movemask_epi8(_mm_cmpeq_epi8(differ, _mm_setzero_si128())) == 0xffff;
#else
  for (const auto& w : words_)
    if (w.load(std::memory_order_relaxed) != v) return false;
  return true;
#endif
}

int ProtectedRecord::first_other_than(std::uint64_t v, int from, std::uint64_t& seen) const {
  for (int i = from; i < kWords; ++i) {
    seen = words_[i].load(std::memory_order_relaxed);
    if (seen != v) return i;
  }
  return -1;
}

bool ProtectedRecord::check_whole(int thread, ViolationLog& log) const {
  const std::uint64_t first = words_[0].load(std::memory_order_relaxed);
  if (all_equal(first)) return true;
  std::uint64_t seen = 0;
  const int i = first_other_than(first, 1, seen);
  log.report(ViolationKind::kTornRecord, thread,
             i < 0 ? fmt::format("reader saw a torn record: a word differed from word 0 = {} "
                                 "(read again, every word was equal)",
                                 describe_record_value(first))
                   : fmt::format("reader saw a torn record: word 0 = {}, word {} = {}",
                                 describe_record_value(first), i, describe_record_value(seen)));
  return false;
}

bool ProtectedRecord::check_holds(std::uint64_t value, int thread, ViolationKind kind,
                                  const char* when, ViolationLog& log) const {
  if (all_equal(value)) return true;
  std::uint64_t seen = 0;
  const int i = first_other_than(value, 0, seen);
  log.report(kind, thread,
             i < 0 ? fmt::format("{}: a word was not my {} (read again, every word was)", when,
                                 describe_record_value(value))
                   : fmt::format("{}: word {} = {}, expected my {}", when, i,
                                 describe_record_value(seen), describe_record_value(value)));
  return false;
}

}  // namespace rwstress
