// The rwlock workload: one templated hot loop per lock type (no virtual call
// or std::function inside the measured loop), type-erased once by the
// registry at the run boundary.
//
// Each worker is a reader or a writer for the whole run, as in the seed's
// rwsem-test modules: a reader loops down_read/up_read, a writer loops
// down_write/up_write. Inside every hold the checkers look at who else is
// inside and at the protected record. Where the lock has them, about one
// acquisition in sixteen goes through a trylock and about one write hold in
// sixteen ends with downgrade_write, chosen from the thread's seeded stream.
#pragma once

#include <sched.h>

#include <memory>
#include <random>
#include <system_error>
#include <thread>

#include <fmt/format.h>
#include <vector>

#include "stress/checkers.h"
#include "stress/lock_traits.h"
#include "stress/run_driver.h"
#include "stress/run_result.h"
#include "stress/scenario.h"
#include "stress/semantics_probe.h"
#include "stress/stats.h"

namespace rwstress {

template <class Lock>
struct RwRunShared : RunShared {
  using RunShared::RunShared;
  Lock lock;
};

// One in kTryEvery acquisitions uses a trylock (and one in kTryEvery write
// holds ends in a downgrade) where the lock has them: often enough to
// exercise those paths thousands of times a second, rarely enough that the
// blocking paths still dominate, as in real use.
inline constexpr unsigned kTryEvery = 16;

// Acquires through the trylock about once in kTryEvery passes where the lock
// has one (falling back to the blocking call when it fails), otherwise
// through the blocking call.
template <bool kHasTrylock, class TryFn, class BlockFn>
inline void acquire(WorkerSlot& slot, std::mt19937_64& rng, Phase try_phase, Phase block_phase,
                    TryFn try_lock, BlockFn block) {
  if constexpr (kHasTrylock) {
    if (rng() % kTryEvery == 0) {
      slot.phase.store(try_phase, std::memory_order_relaxed);
      ++slot.result.trylock_attempts;
      if (try_lock()) return;
      ++slot.result.trylock_failures;
    }
  }
  slot.phase.store(block_phase, std::memory_order_relaxed);
  block();
}

template <class Lock>
void rw_reader_pass(RwRunShared<Lock>& s, int index, WorkerSlot& slot, std::mt19937_64& rng) {
  ThreadResult& r = slot.result;
  acquire<HasReadTrylock<Lock>>(
      slot, rng, Phase::kReadTrylock, Phase::kDownRead,
      [&] { return try_down_read(s.lock); }, [&] { s.lock.down_read(); });
  slot.phase.store(Phase::kHoldRead, std::memory_order_relaxed);
  int inside = s.exclusion.reader_enter(index, s.violations);
  if (inside > 1) ++r.reader_overlaps;
  if (inside > r.max_readers_seen) r.max_readers_seen = inside;
  s.record.check_whole(index, s.violations);
  spin_work(s.scenario.cs_read_loops);
  s.exclusion.reader_exit();
  slot.phase.store(Phase::kUpRead, std::memory_order_relaxed);
  s.lock.up_read();
}

template <class Lock>
void rw_writer_pass(RwRunShared<Lock>& s, int index, WorkerSlot& slot, std::mt19937_64& rng,
                    std::uint64_t seq) {
  ThreadResult& r = slot.result;
  acquire<HasWriteTrylock<Lock>>(
      slot, rng, Phase::kWriteTrylock, Phase::kDownWrite,
      [&] { return try_down_write(s.lock); }, [&] { s.lock.down_write(); });
  slot.phase.store(Phase::kHoldWrite, std::memory_order_relaxed);
  s.exclusion.writer_enter(index, s.violations);
  const std::uint64_t value = record_value(index, seq);
  s.record.write(value);
  spin_work(s.scenario.cs_write_loops);
  s.record.check_holds(value, index, ViolationKind::kTornRecord,
                       "another writer changed the record during my write hold", s.violations);

  if constexpr (HasDowngrade<Lock>) {
    if (rng() % kTryEvery == 0) {
      s.exclusion.writer_to_reader();
      slot.phase.store(Phase::kDowngrade, std::memory_order_relaxed);
      s.lock.downgrade_write();
      ++r.downgrades;
      slot.phase.store(Phase::kHoldRead, std::memory_order_relaxed);
      spin_work(s.scenario.cs_read_loops);
      s.record.check_holds(value, index, ViolationKind::kDowngrade,
                           "a writer changed the record after my downgrade_write", s.violations);
      s.exclusion.reader_exit();
      slot.phase.store(Phase::kUpRead, std::memory_order_relaxed);
      s.lock.up_read();
      return;
    }
  }
  s.exclusion.writer_exit();
  slot.phase.store(Phase::kUpWrite, std::memory_order_relaxed);
  s.lock.up_write();
}

template <class Lock>
void rw_worker(std::shared_ptr<RwRunShared<Lock>> shared, int index) {
  RwRunShared<Lock>& s = *shared;
  WorkerSlot& slot = s.slots[index];
  if (worker_start(s, index)) {
    const Scenario& sc = s.scenario;
    const bool writer = slot.result.role == Role::kWriter;
    std::mt19937_64 rng(thread_seed(sc.seed, index));
    std::uint64_t ops = 0;
    while (!s.stop.load(std::memory_order_relaxed)) {
      spin_work(sc.delay_loops);
      if (writer)
        rw_writer_pass(s, index, slot, rng, ops + 1);
      else
        rw_reader_pass(s, index, slot, rng);
      slot.ops.store(++ops, std::memory_order_relaxed);
      slot.phase.store(Phase::kOutside, std::memory_order_relaxed);
      if (sc.sched) sched_yield();
    }
  }
  slot.phase.store(Phase::kDone, std::memory_order_release);
}

// After every worker left, the lock must be free.
template <class Lock>
void check_final_state(Lock& lock, ViolationLog& log) {
  if constexpr (HasWriteTrylock<Lock>) {
    bool free = false;
    for (int attempt = 0; attempt < 100 && !free; ++attempt) {
      free = lock.down_write_trylock();
      if (!free) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (free)
      lock.up_write();
    else
      log.report(ViolationKind::kFinalState, -1,
                 "the lock was not free for a writer after every thread had released it");
  }
}

template <class Lock>
RunResult run_rwlock(const Scenario& sc, const LockMeta& meta) {
  RunResult result;
  result.lock = std::string(meta.name);
  result.family = meta.family;
  result.fairness = meta.fairness;
  result.readers = sc.readers;
  result.writers = sc.writers;
  result.sched = sc.sched;
  result.cpus = sc.plan.cpus;

  // Semantics first, on a fresh instance, on a thread of its own: a broken
  // lock may block the probe forever.
  auto probe_found = std::make_shared<std::vector<Violation>>();
  bool probe_finished = run_with_timeout(
      [probe_found] {
        auto probe_lock = std::make_shared<Lock>();
        *probe_found = probe_rwlock_semantics(*probe_lock);
      },
      sc.watchdog);
  if (!probe_finished) {
    result.hang_report.push_back(fmt::format(
        "semantics probe (trylock/downgrade, two threads) did not finish within {:.1f}s",
        std::chrono::duration<double>(sc.watchdog).count()));
    summarize_run(result);
    return result;
  }

  auto shared = std::make_shared<RwRunShared<Lock>>(sc);
  for (const Violation& v : *probe_found) shared->violations.report(v.kind, v.thread, v.detail);

  std::vector<std::thread> workers;
  try {
    for (int i = 0; i < sc.threads(); ++i) workers.emplace_back(rw_worker<Lock>, shared, i);
  } catch (const std::system_error& e) {
    // Out of threads (ulimit, memory): call the run off before it starts.
    shared->stop.store(true);
    for (auto& w : workers) w.join();
    result.error = fmt::format("could not start worker thread {}: {}", workers.size(), e.what());
    summarize_run(result);
    return result;
  }
  drive_run(shared, workers, result);
  if (result.hang_report.empty() && result.error.empty())
    check_final_state(shared->lock, shared->violations);
  shared->violations.copy_into(result);
  summarize_run(result);
  return result;
}

}  // namespace rwstress
