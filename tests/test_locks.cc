// The conformance suite: every registered rwlock through the same torture,
// plus the hooks seam and the XADD count layout.
#define BOOST_TEST_MODULE test_locks
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "injectors/counting_hooks.h"
#include "locks/rwlock/rwsem_aa.h"
#include "locks/rwlock/rwsem_spinlock.h"
#include "locks/rwlock/rwsem_waiter.h"
#include "locks/rwlock/rwsem_xadd.h"
#include "registry/registry.h"
#include "run/rwlock_run.h"
#include "tests/test_support.h"

using namespace rwstress;
namespace bdata = boost::unit_test::data;

namespace {

// Boost.Test keeps a reference to a dataset's container: keep them alive.
std::vector<std::string> collect(Family family) {
  std::vector<std::string> names;
  for (const auto& e : lock_registry())
    if (e.meta.family == family && !e.meta.busted) names.emplace_back(e.meta.name);
  return names;
}

const std::vector<std::string>& registered(Family family) {
  static const std::vector<std::string> rw = collect(Family::kRwlock),
                                        sem = collect(Family::kSemaphore),
                                        mtx = collect(Family::kMutex);
  return family == Family::kRwlock ? rw : family == Family::kSemaphore ? sem : mtx;
}

const Topology& machine() {
  static Topology topo = Topology::load_system();
  return topo;
}

}  // namespace

// Exclusion, torn record, trylock truth, downgrade (probe and stress) and
// final state all hold; readers share; every optional operation was used.
BOOST_DATA_TEST_CASE(correct_rwlock_passes_the_torture, bdata::make(registered(Family::kRwlock)),
                     name) {
  const LockEntry* e = find_lock(name);
  BOOST_REQUIRE(e);
  Scenario sc = test::short_scenario(machine(), 3, 2, std::chrono::milliseconds(400));
  sc.cs_read_loops = 2000;  // long enough holds that two readers meet on two CPUs
  RunResult r = e->run(sc, e->meta);
  for (const auto& v : r.first_violations) BOOST_TEST_MESSAGE(name << ": " << v.detail);
  BOOST_TEST(r.violation_count == 0u);
  BOOST_TEST(r.hang_report.empty());
  BOOST_TEST(r.reads > 0u);
  BOOST_TEST(r.writes > 0u);
  // A writer-preference lock with writers always waiting may legitimately
  // keep readers apart for a whole short run; so may a spinning FIFO lock
  // on more threads than CPUs, whose readers queue behind preempted writers.
  // Readers that a FIFO lock grants together still have to be on CPUs at
  // the same moment to be seen together, and with two writers queued a FIFO
  // lock admits readers together only when they queue side by side: on a
  // loaded or slowed machine (CI runs test binaries in parallel; TSan) one
  // run may have no such moment. Two more runs then have readers only,
  // where a lock that shares readers at all must show it.
  const bool oversubscribed = sc.threads() > int(sc.plan.cpus.size());
  if (e->meta.fairness != Fairness::kWriterPref && !(e->meta.caps.spins && oversubscribed)) {
    int most = r.max_readers_seen;
    Scenario readers_only = test::short_scenario(machine(), 3, 0, std::chrono::milliseconds(400));
    readers_only.cs_read_loops = sc.cs_read_loops;
    readers_only.seed = sc.seed;
    for (int retry = 0; retry < 2 && most < 2; ++retry) {
      readers_only.seed += 1;
      most = std::max(most, e->run(readers_only, e->meta).max_readers_seen);
    }
    BOOST_TEST(most >= 2, name << " never let two readers in together, in 3 runs");
  }
  std::uint64_t tries = 0, downgrades = 0;
  for (const auto& t : r.threads) {
    tries += t.trylock_attempts;
    downgrades += t.downgrades;
  }
  if (e->meta.caps.read_trylock || e->meta.caps.write_trylock) BOOST_TEST(tries > 0u);
  // One write hold in 16 downgrades: with 200 writes, none has p < 3e-6.
  if (e->meta.caps.downgrade && r.writes >= 200) BOOST_TEST(downgrades > 0u);
  BOOST_TEST(r.verdict != Verdict::kFail);
  BOOST_TEST(r.verdict != Verdict::kHang);
}

// Mutual exclusion, the protected record and trylock truth hold for every
// mutex and spinlock; every thread got in; the trylock was used.
BOOST_DATA_TEST_CASE(correct_mutex_passes_the_torture, bdata::make(registered(Family::kMutex)),
                     name) {
  const LockEntry* e = find_lock(name);
  BOOST_REQUIRE(e);
  Scenario sc = test::short_scenario(machine(), 0, 3, std::chrono::milliseconds(300));
  sc.family = Family::kMutex;
  RunResult r = e->run(sc, e->meta);
  for (const auto& v : r.first_violations) BOOST_TEST_MESSAGE(name << ": " << v.detail);
  BOOST_TEST(r.violation_count == 0u);
  BOOST_TEST(r.hang_report.empty());
  BOOST_TEST(r.min_thread_ops > 0u);
  std::uint64_t tries = 0;
  for (const auto& t : r.threads) tries += t.trylock_attempts;
  if (e->meta.caps.trylock) BOOST_TEST(tries > 0u);
  BOOST_TEST(r.verdict != Verdict::kFail);
  BOOST_TEST(r.verdict != Verdict::kHang);
}

// The bound (never more holders than the count) and the count restored at
// the end hold for every semaphore; the count was reached.
BOOST_DATA_TEST_CASE(correct_semaphore_passes_the_torture,
                     bdata::make(registered(Family::kSemaphore)), name) {
  const LockEntry* e = find_lock(name);
  BOOST_REQUIRE(e);
  for (int count : {1, 2}) {
    Scenario sc = test::short_scenario(machine(), 0, 4, std::chrono::milliseconds(300));
    sc.family = Family::kSemaphore;
    sc.count = count;
    sc.cs_write_loops = 2000;
    RunResult r = e->run(sc, e->meta);
    for (const auto& v : r.first_violations) BOOST_TEST_MESSAGE(name << ": " << v.detail);
    BOOST_TEST(r.violation_count == 0u, name << " count " << count);
    std::string hang;
    for (const auto& h : r.hang_report) hang += "\n  " + h;
    // A library with a known lost wake-up may hang; that is the finding,
    // recorded in its registry entry, not a harness failure.
    if (e->meta.known_issue.empty())
      BOOST_TEST(r.hang_report.empty(), name << " count " << count << " HANG:" << hang);
    else if (!r.hang_report.empty())
      BOOST_TEST_MESSAGE(name << ": known library bug seen: " << e->meta.known_issue << hang);
    if (r.hang_report.empty())
      BOOST_TEST(r.max_readers_seen == count, name << " count " << count << " reached "
                                                 << r.max_readers_seen);
  }
}

// The checkers' positive controls (the whole busted zoo runs in selftest).
BOOST_AUTO_TEST_CASE(busted_semaphore_and_mutex_fail) {
  for (const char* name : {"busted-sem-double-up", "busted-racy-tas", "busted-noop"}) {
    const LockEntry* e = find_lock(name);
    BOOST_REQUIRE(e);
    Scenario sc = test::short_scenario(machine(), e->meta.family == Family::kRwlock ? 2 : 0, 4,
                                       std::chrono::milliseconds(300));
    sc.family = e->meta.family;
    RunResult r = e->run(sc, e->meta);
    BOOST_TEST(r.verdict == Verdict::kFail, name);
  }
}

BOOST_AUTO_TEST_CASE(registry_names_are_unique_and_described) {
  std::vector<std::string> seen;
  for (const auto& e : lock_registry()) {
    BOOST_TEST(!e.meta.name.empty());
    BOOST_TEST(!e.meta.origin.empty());
    BOOST_TEST((std::find(seen.begin(), seen.end(), e.meta.name) == seen.end()));
    seen.emplace_back(e.meta.name);
  }
  BOOST_TEST(!registered(Family::kRwlock).empty());
  BOOST_TEST(!registered(Family::kSemaphore).empty());
  BOOST_TEST(!registered(Family::kMutex).empty());
  int busted = 0;
  for (const auto& e : lock_registry()) busted += e.meta.busted;
  BOOST_TEST(busted >= 12);
}

// A lock is its header, its registry line and its docs line: every
// registered implementation has a row in docs/locks.md's tables.
BOOST_AUTO_TEST_CASE(every_registered_lock_has_its_docs_line) {
  const std::string docs = test::slurp(std::string(RWSTRESS_SOURCE_DIR) + "/docs/locks.md");
  BOOST_REQUIRE(!docs.empty());
  for (const auto& e : lock_registry()) {
    const std::string row = "| `" + std::string(e.meta.name) + "` |";
    BOOST_TEST((docs.find(row) != std::string::npos), "docs/locks.md has no row " << row);
  }
}

// The hooks seam reaches the slow paths: under contention every in-tree
// sleeping rwsem enqueues, sleeps, is woken and wakes others through it.
template <class Lock>
void check_hooks_reached() {
  CountingHooks::reset();
  LockMeta meta{"hooked", Family::kRwlock, Fairness::kTaskFair, "test", capabilities_of<Lock>(),
                false};
  RunResult r = run_rwlock<Lock>(test::short_scenario(machine(), 3, 3, std::chrono::milliseconds(300)),
                                 meta);
  BOOST_TEST(r.violation_count == 0u,
             (r.first_violations.empty() ? std::string() : r.first_violations[0].detail));
  BOOST_TEST(CountingHooks::count(HookPoint::kAfterEnqueue) > 0u);
  BOOST_TEST(CountingHooks::count(HookPoint::kBeforeSleep) > 0u);
  BOOST_TEST(CountingHooks::count(HookPoint::kAfterWake) > 0u);
  BOOST_TEST(CountingHooks::count(HookPoint::kBeforeWake) > 0u);
}

BOOST_AUTO_TEST_CASE(hooks_reach_aa_rwsem_slow_paths) { check_hooks_reached<RwsemAa<CountingHooks>>(); }
BOOST_AUTO_TEST_CASE(hooks_reach_aa_rwsem_fair_slow_paths) {
  check_hooks_reached<RwsemAaFair<CountingHooks>>();
}
BOOST_AUTO_TEST_CASE(hooks_reach_xadd_slow_paths) { check_hooks_reached<RwsemXadd<CountingHooks>>(); }
BOOST_AUTO_TEST_CASE(hooks_reach_generic_spin_slow_paths) {
  check_hooks_reached<RwsemSpinlock<CountingHooks>>();
}

BOOST_AUTO_TEST_CASE(xadd_count_layout_matches_2_4_4) {
  using X = RwsemXadd<>;
  static_assert(X::kActiveWriteBias == -0xffff);  // 0xffff0001 as a signed 32-bit word
  X x;
  BOOST_TEST(x.count_for_test() == 0);
  x.down_read();
  x.down_read();
  BOOST_TEST(x.count_for_test() == 2);
  x.up_read();
  x.up_read();
  x.down_write();
  BOOST_TEST(std::uint32_t(x.count_for_test()) == 0xffff0001u);
  x.downgrade_write();
  BOOST_TEST(x.count_for_test() == 1);
  x.up_read();
  BOOST_TEST(x.count_for_test() == 0);
}

// The April 2001 aa-rwsem's down_read is recursive (Arcangeli's "task0
// down_read, task1 down_write, task0 down_read" does not deadlock): a
// reader waits only for a writer that holds, never for one that waits.
BOOST_AUTO_TEST_CASE(aa_rwsem_down_read_is_recursive) {
  RwsemAa<> sem;
  sem.down_read();
  std::atomic<bool> writer_in{false};
  std::thread writer([&] {
    sem.down_write();
    writer_in = true;
    sem.up_write();
  });
  while (!sem.writer_queued_for_test()) std::this_thread::yield();
  std::atomic<bool> second_read{false};
  std::thread reader([&] {
    sem.down_read();  // past the queued writer
    second_read = true;
  });
  reader.join();
  BOOST_TEST(second_read.load());
  BOOST_TEST(sem.count_for_test() == 2);
  BOOST_TEST(!writer_in.load());
  sem.up_read();
  sem.up_read();
  writer.join();
  BOOST_TEST(writer_in.load());
  BOOST_TEST(sem.count_for_test() == 0);
}

// rwsem-fair-20: sleepers leave their bias in the count (a sleeping reader
// counts as a writer), and the queue is FIFO: a reader behind a queued
// writer waits for it.
BOOST_AUTO_TEST_CASE(aa_rwsem_fair_count_layout_and_fifo) {
  using F = RwsemAaFair<>;
  static_assert(F::kWriteBias == -(1L << 32));
  F sem;
  sem.down_read();
  BOOST_TEST(sem.count_for_test() == 1);
  std::atomic<int> order{0};
  int writer_at = 0, reader_at = 0;
  std::thread writer([&] {
    sem.down_write();
    writer_at = ++order;
    sem.up_write();
  });
  while (sem.count_for_test() != 1 + F::kWriteBias) std::this_thread::yield();
  std::thread reader([&] {
    sem.down_read();
    reader_at = ++order;
    sem.up_read();
  });
  while (sem.count_for_test() != 1 + 2 * F::kWriteBias) std::this_thread::yield();
  sem.up_read();
  writer.join();
  reader.join();
  BOOST_TEST(writer_at == 1);
  BOOST_TEST(reader_at == 2);
  BOOST_TEST(sem.count_for_test() == 0);
}

// A writer queued behind readers must not be overtaken by later readers in
// the task-fair xadd, and the unfair variant's wake must still serve it.
BOOST_AUTO_TEST_CASE(xadd_waiting_writer_blocks_new_readers) {
  RwsemXadd<> x;
  x.down_read();
  std::atomic<bool> writer_in{false};
  std::thread writer([&] {
    x.down_write();
    writer_in = true;
    x.up_write();
  });
  while (x.count_for_test() >= 0) std::this_thread::yield();  // writer has queued
  BOOST_TEST(!x.down_read_trylock());
  x.up_read();
  writer.join();
  BOOST_TEST(writer_in.load());
  BOOST_TEST(x.count_for_test() == 0);
}

// rwsem_grant_batch / rwsem_grant_all grant every waiter exactly once,
// whichever CPU each queued on (remote ones first, then local ones through a
// chain rebuilt from links read before any grant).
BOOST_AUTO_TEST_CASE(grant_batch_grants_every_waiter_remote_first) {
  const int here = sched_getcpu();
  std::vector<std::unique_ptr<RwsemWaiter>> ws;
  for (int i = 0; i < 7; ++i) {
    ws.push_back(std::make_unique<RwsemWaiter>(false));
    ws.back()->cpu = i % 2 ? here : here + 1;
  }
  GrantBatch batch;
  for (int i = 6; i >= 0; --i) {
    ws[i]->next = batch.first;
    batch.first = ws[i].get();
  }
  batch.readers = 7;
  rwsem_grant_batch(batch);
  for (const auto& w : ws) BOOST_TEST(w->waiting.load() == 0u);

  std::vector<RwsemWaiter*> arr;
  for (auto& w : ws) {
    w->waiting.store(1);
    arr.push_back(w.get());
  }
  rwsem_grant_all(arr.data(), int(arr.size()));
  for (const auto& w : ws) BOOST_TEST(w->waiting.load() == 0u);
}

// Regression: before wake-ups went to remote CPUs first, xadd's writer got
// 500-4300 operations in 1 s against 2 readers on 2 CPUs (at most 0.03% of
// the mean per thread), asleep in the lock behind a granted reader whose
// waker had been preempted. After: 0.1%-3.8% in most runs, but in about one
// run in five on the 2-vCPU development VM the writer still gets 0.01-0.1%
// because the scheduler keeps it in a run queue 98-99% of the second
// (30 runs of `rwstress --lock xadd --readers 2 --writers 1 --duration 1s`,
// all PASS, 9 with the writer under 0.1%, every one held back by the
// scheduler; a CI run saw 0.047%). So the test asserts what the verdict
// judges: the writer either got its share or was held back by the scheduler,
// never starved waiting in the lock, and the run is not STARVED.
BOOST_AUTO_TEST_CASE(xadd_writer_not_starved_by_a_preempted_waker) {
  const LockEntry* e = find_lock("xadd");
  BOOST_REQUIRE(e);
  RunResult r = e->run(test::short_scenario(machine(), 2, 1, std::chrono::milliseconds(1000)),
                       e->meta);
  BOOST_REQUIRE(r.threads.size() == 3u);
  BOOST_TEST(r.violation_count == 0u);
  BOOST_TEST(r.verdict != Verdict::kStarved);
  const double mean = double(r.reads + r.writes) / 3.0;
  const ThreadResult& writer = r.threads[2];
  if (double(writer.ops) * kStarvedShare < mean)
    BOOST_TEST(int(starvation_cause(writer)) == int(StarvationCause::kScheduler),
               "writer " << writer.ops << " ops, mean " << mean << ", " << writer.runq_wait_s
                         << " s of " << writer.wall_s << " s in a run queue: "
                         << starvation_cause_text(starvation_cause(writer)));
}

// --xadd-wake unfair: the same lock, run with the knob, is judged as an
// unfair lock and stays correct.
BOOST_AUTO_TEST_CASE(xadd_wake_knob_changes_the_fairness_class_not_correctness) {
  const LockEntry* e = find_lock("xadd");
  BOOST_REQUIRE(e);
  Scenario sc = test::short_scenario(machine(), 4, 2, std::chrono::milliseconds(300));
  sc.tuning.xadd_unfair_wake = true;
  RunResult r = e->run(sc, e->meta);
  BOOST_TEST(r.fairness == Fairness::kUnfair);
  BOOST_TEST(r.violation_count == 0u);
  sc.tuning.xadd_unfair_wake = false;
  BOOST_TEST(e->run(sc, e->meta).fairness == Fairness::kTaskFair);
}
