// The conformance suite: every registered rwlock through the same torture,
// plus the hooks seam and the XADD count layout.
#define BOOST_TEST_MODULE test_locks
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "injectors/counting_hooks.h"
#include "locks/rwlock/rwsem_aa.h"
#include "locks/rwlock/rwsem_spinlock.h"
#include "locks/rwlock/rwsem_xadd.h"
#include "stress/registry.h"
#include "stress/rwlock_run.h"
#include "tests/test_support.h"

using namespace rwstress;
namespace bdata = boost::unit_test::data;

namespace {

// Boost.Test keeps a reference to a dataset's container: keep them alive.
const std::vector<std::string>& registered(bool busted) {
  static const auto collect = [](bool want_busted) {
    std::vector<std::string> names;
    for (const auto& e : lock_registry())
      if (e.meta.family == Family::kRwlock && e.meta.busted == want_busted)
        names.emplace_back(e.meta.name);
    return names;
  };
  static const std::vector<std::string> correct = collect(false), busted_ones = collect(true);
  return busted ? busted_ones : correct;
}

const Topology& machine() {
  static Topology topo = Topology::load_system();
  return topo;
}

}  // namespace

// Exclusion, torn record, trylock truth, downgrade (probe and stress) and
// final state all hold; readers share; every optional operation was used.
BOOST_DATA_TEST_CASE(correct_rwlock_passes_the_torture, bdata::make(registered(false)), name) {
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
  BOOST_TEST(r.max_readers_seen >= 2, name << " never let two readers in together");
  std::uint64_t tries = 0, downgrades = 0;
  for (const auto& t : r.threads) {
    tries += t.trylock_attempts;
    downgrades += t.downgrades;
  }
  if (e->meta.caps.read_trylock || e->meta.caps.write_trylock) BOOST_TEST(tries > 0u);
  if (e->meta.caps.downgrade) BOOST_TEST(downgrades > 0u);
  BOOST_TEST(r.verdict != Verdict::kFail);
  BOOST_TEST(r.verdict != Verdict::kHang);
}

BOOST_DATA_TEST_CASE(busted_rwlock_fails, bdata::make(registered(true)), name) {
  const LockEntry* e = find_lock(name);
  BOOST_REQUIRE(e);
  RunResult r = e->run(test::short_scenario(machine(), 2, 2, std::chrono::milliseconds(300)),
                       e->meta);
  BOOST_TEST(r.verdict == Verdict::kFail);
  BOOST_TEST(r.violation_count > 0u);
}

BOOST_AUTO_TEST_CASE(registry_names_are_unique_and_described) {
  std::vector<std::string> seen;
  for (const auto& e : lock_registry()) {
    BOOST_TEST(!e.meta.name.empty());
    BOOST_TEST(!e.meta.origin.empty());
    BOOST_TEST((std::find(seen.begin(), seen.end(), e.meta.name) == seen.end()));
    seen.emplace_back(e.meta.name);
  }
  BOOST_TEST(registered(false).size() == 7u);  // the foundation's seven real rwlocks
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
  BOOST_TEST(r.violation_count == 0u);
  BOOST_TEST(CountingHooks::count(HookPoint::kAfterEnqueue) > 0u);
  BOOST_TEST(CountingHooks::count(HookPoint::kBeforeSleep) > 0u);
  BOOST_TEST(CountingHooks::count(HookPoint::kAfterWake) > 0u);
  BOOST_TEST(CountingHooks::count(HookPoint::kBeforeWake) > 0u);
}

BOOST_AUTO_TEST_CASE(hooks_reach_aa_rwsem_slow_paths) { check_hooks_reached<RwsemAa<CountingHooks>>(); }
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
