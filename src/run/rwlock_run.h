// The rwlock workload: one templated hot loop per lock type (no virtual call
// or std::function inside the measured loop), type-erased once by the
// registry at the run boundary.
//
// Each worker is a reader or a writer for the whole run, as in the 2001 rwsem benchmark's
// rwsem-test modules: a reader loops down_read/up_read, a writer loops
// down_write/up_write. Inside every hold the checkers look at who else is
// inside and at the protected record. Where the lock has them, about one
// acquisition in sixteen (--try-every) goes through a trylock and about one
// write hold in sixteen ends with downgrade_write, chosen from the thread's
// seeded stream.
#pragma once

#include <climits>
#include <type_traits>
#include <thread>

#include "run/family_run.h"
#include "run/semantics_probe.h"

namespace rwstress {

// RCU-like locks: a reader must see one whole version, never a torn or a
// freed (poisoned) one. Readers are counted only to show that they overlap.
template <class Lock>
void check_snapshot(LockRunShared<Lock>& s, int index, ThreadResult& r) {
  int inside = s.bound.enter(index, INT_MAX, s.violations);
  if (inside > 1) ++r.reader_overlaps;
  if (inside > r.max_readers_seen) r.max_readers_seen = inside;
  const auto* v = s.lock.read_current();
  const std::uint64_t first = v->words[0].load(std::memory_order_relaxed);
  spin_work(s.scenario.cs_read_loops);
  for (const auto& w : v->words) {
    const std::uint64_t x = w.load(std::memory_order_relaxed);
    if (x == v->kPoison || x != first) {
      s.violations.report(ViolationKind::kTornRecord, index,
                          x == v->kPoison ? "a reader saw a version that was already freed"
                                          : fmt::format("a reader saw a torn version: {} and {}",
                                                        describe_record_value(first),
                                                        describe_record_value(x)));
      break;
    }
  }
  s.bound.exit();
}

template <bool kInstrumented, class Lock>
void rw_reader_pass(LockRunShared<Lock>& s, int index, WorkerSlot& slot, PassRng& rng) {
  ThreadResult& r = slot.result;
  maybe_inject<kInstrumented>(InjectPoint::kBeforeAcquire);
  if constexpr (SnapshotReads<Lock>) {
    slot.phase.store(Phase::kDownRead, std::memory_order_relaxed);
    measure_request<kInstrumented>();
    s.lock.down_read();
    measure_acquired<kInstrumented>();
    slot.phase.store(Phase::kHoldRead, std::memory_order_relaxed);
    maybe_inject<kInstrumented>(InjectPoint::kInCs);
    check_snapshot(s, index, r);
    release_tail<kInstrumented>(slot, Phase::kUpRead, [&] { s.lock.up_read(); });
    return;
  }
  acquire<kInstrumented, HasReadTrylock<Lock>>(
      slot, rng, s.scenario.try_mask, Phase::kReadTrylock, Phase::kDownRead,
      [&] { return try_down_read(s.lock); }, [&] { s.lock.down_read(); });
  slot.phase.store(Phase::kHoldRead, std::memory_order_relaxed);
  int inside = s.exclusion.reader_enter(index, s.violations);
  if (inside > 1) ++r.reader_overlaps;
  if (inside > r.max_readers_seen) r.max_readers_seen = inside;
  s.record.check_whole(index, s.violations);
  spin_work(s.scenario.cs_read_loops);
  maybe_inject<kInstrumented>(InjectPoint::kInCs);
  s.record.check_whole(index, s.violations);
  s.exclusion.reader_exit();
  release_tail<kInstrumented>(slot, Phase::kUpRead, [&] { s.lock.up_read(); });
}

template <bool kInstrumented, class Lock>
void rw_writer_pass(LockRunShared<Lock>& s, int index, WorkerSlot& slot, PassRng& rng,
                    std::uint64_t seq) {
  ThreadResult& r = slot.result;
  maybe_inject<kInstrumented>(InjectPoint::kBeforeAcquire);
  const std::uint32_t nest = take_nested(s, index, slot, rng);
  if constexpr (SnapshotReads<Lock>) {
    slot.phase.store(Phase::kDownWrite, std::memory_order_relaxed);
    measure_request<kInstrumented>();
    s.lock.down_write();
    measure_acquired<kInstrumented>();
    slot.phase.store(Phase::kHoldWrite, std::memory_order_relaxed);
    s.exclusion.writer_enter(index, s.violations);
    spin_work(s.scenario.cs_write_loops);
    maybe_inject<kInstrumented>(InjectPoint::kInCs);
    auto* old = s.lock.publish(new typename Lock::Version(record_value(index, seq)));
    s.exclusion.writer_exit();
    release_tail<kInstrumented>(slot, Phase::kUpWrite, [&] { s.lock.up_write(); });
    s.lock.retire(old, seq);
    release_nested(s, slot, nest);
    return;
  }
  acquire<kInstrumented, HasWriteTrylock<Lock>>(
      slot, rng, s.scenario.try_mask, Phase::kWriteTrylock, Phase::kDownWrite,
      [&] { return try_down_write(s.lock); }, [&] { s.lock.down_write(); });
  slot.phase.store(Phase::kHoldWrite, std::memory_order_relaxed);
  const std::uint64_t value = exclusive_hold<kInstrumented>(
      s, index, seq, "another writer changed the record during my write hold");

  if constexpr (HasDowngrade<Lock>) {
    if ((rng() & s.scenario.try_mask) == 0) {
      s.exclusion.writer_to_reader();
      slot.phase.store(Phase::kDowngrade, std::memory_order_relaxed);
      measure_released<kInstrumented>();  // the write hold ends here
      s.lock.downgrade_write();
      ++r.downgrades;
      slot.phase.store(Phase::kHoldRead, std::memory_order_relaxed);
      spin_work(s.scenario.cs_read_loops);
      s.record.check_holds(value, index, ViolationKind::kDowngrade,
                           "a writer changed the record after my downgrade_write", s.violations);
      s.exclusion.reader_exit();
      release_tail<kInstrumented>(slot, Phase::kUpRead, [&] { s.lock.up_read(); }, false);
      release_nested(s, slot, nest);
      return;
    }
  }
  s.exclusion.writer_exit();
  release_tail<kInstrumented>(slot, Phase::kUpWrite, [&] { s.lock.up_write(); });
  release_nested(s, slot, nest);
}

template <class Lock, bool kInstrumented>
void rw_worker(std::shared_ptr<LockRunShared<Lock>> shared, int index) {
  LockRunShared<Lock>& s = *shared;
  const bool writer = index >= s.scenario.readers;
  family_worker<Lock, kInstrumented>(
      shared, index, [&](WorkerSlot& slot, PassRng& rng, std::uint64_t seq) {
        if (writer)
          rw_writer_pass<kInstrumented>(s, index, slot, rng, seq);
        else
          rw_reader_pass<kInstrumented>(s, index, slot, rng);
      });
}

// After every worker left, the lock must be free.
template <class Lock>
void check_final_state(Lock& lock, ViolationLog& log) {
  if constexpr (HasWriteTrylock<Lock>)
    check_free_after_run([&] { return lock.down_write_trylock(); }, [&] { lock.up_write(); },
                         "the lock was not free for a writer after every thread had released it",
                         log);
}

template <class Lock, bool kInstrumented = false>
RunResult run_rwlock(const Scenario& sc, const LockMeta& meta) {
  return run_lock_workers<Lock, kInstrumented>(
      sc, meta, &rw_worker<Lock, kInstrumented>, [](Lock& l) { return probe_rwlock_semantics(l); },
      [](Lock& l, ViolationLog& log) { check_final_state(l, log); });
}

}  // namespace rwstress
