// Placement plans against hwloc synthetic topologies, and pinning on this
// machine.
#define BOOST_TEST_MODULE test_placement
#include <boost/test/unit_test.hpp>

#include <sched.h>

#include <thread>
#include <vector>

#include "platform/topology.h"

using namespace rwstress;
using V = std::vector<int>;

namespace {

// Two packages, a NUMA node each, 8 cores per package, 2 hardware threads
// per core: OS PU numbers 0..15 on package 0, 16..31 on package 1, siblings
// adjacent (0,1 share core 0).
const char* kTwoSocketSmt = "pack:2 [numa] core:8 pu:2";

V first(const V& v, size_t n) { return V(v.begin(), v.begin() + long(n)); }

}  // namespace

BOOST_AUTO_TEST_CASE(synthetic_topology_summary) {
  Topology t = Topology::synthetic(kTwoSocketSmt);
  BOOST_TEST(t.is_synthetic());
  BOOST_TEST(t.allowed_cpu_count() == 32);
  BOOST_TEST(t.summary().find("2 packages, 2 NUMA nodes, 16 cores, 32 PUs") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(compact_fills_siblings_then_cores_then_packages) {
  Topology t = Topology::synthetic(kTwoSocketSmt);
  V order = t.placement_order(Placement::kCompact);
  BOOST_TEST(first(order, 4) == (V{0, 1, 2, 3}), boost::test_tools::per_element());
  PlacementPlan p24 = t.plan(24, t.select_cpus(Placement::kCompact, 24));
  V expect24;
  for (int i = 0; i < 24; ++i) expect24.push_back(i);  // all of package 0, half of package 1
  BOOST_TEST(p24.cpu_of_thread == expect24, boost::test_tools::per_element());
  BOOST_TEST(!p24.oversubscribed);
}

BOOST_AUTO_TEST_CASE(scatter_spreads_packages_then_cores_then_siblings) {
  Topology t = Topology::synthetic(kTwoSocketSmt);
  PlacementPlan p4 = t.plan(4, t.select_cpus(Placement::kScatter, 4));
  BOOST_TEST(p4.cpu_of_thread == (V{0, 16, 2, 18}), boost::test_tools::per_element());

  PlacementPlan p24 = t.plan(24, t.select_cpus(Placement::kScatter, 24));
  V expect24 = {0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30,  // every core once
                1, 17, 3, 19, 5, 21, 7, 23};                                // then siblings
  BOOST_TEST(p24.cpu_of_thread == expect24, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(more_threads_than_cpus_wrap_and_are_flagged) {
  Topology t = Topology::synthetic(kTwoSocketSmt);
  PlacementPlan p = t.plan(40, t.placement_order(Placement::kCompact));
  BOOST_TEST(p.oversubscribed);
  BOOST_TEST(p.cpu_of_thread.size() == 40u);
  BOOST_TEST(p.cpu_of_thread[32] == p.cpu_of_thread[0]);
  BOOST_TEST(p.describe().find("oversubscribed") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(cpu_lists_are_checked_and_kept_in_placement_order) {
  Topology t = Topology::synthetic(kTwoSocketSmt);
  BOOST_TEST(t.select_cpus(Placement::kScatter, V{0, 1, 16, 17}) == (V{0, 16, 1, 17}),
             boost::test_tools::per_element());
  BOOST_CHECK_THROW(t.select_cpus(Placement::kCompact, V{0, 32}), TopologyError);
  BOOST_CHECK_THROW(t.select_cpus(Placement::kCompact, 33), TopologyError);
  BOOST_CHECK_THROW(t.select_cpus(Placement::kCompact, 0), TopologyError);
}

BOOST_AUTO_TEST_CASE(binding_on_a_synthetic_topology_is_an_error_not_a_no_op) {
  Topology t = Topology::synthetic(kTwoSocketSmt);
  BOOST_TEST(!t.bind_current_thread(0).empty());
}

BOOST_AUTO_TEST_CASE(bad_synthetic_description_throws) {
  BOOST_CHECK_THROW(Topology::synthetic("pack:two core:x"), TopologyError);
}

BOOST_AUTO_TEST_CASE(this_machine_pins_threads_where_the_plan_says) {
  Topology t = Topology::load_system();
  V cpus = t.placement_order(Placement::kCompact);
  BOOST_REQUIRE(!cpus.empty());
  for (int cpu : cpus) {
    int seen = -1;
    std::string err;
    std::thread th([&] {
      err = t.bind_current_thread(cpu);
      seen = sched_getcpu();
    });
    th.join();
    BOOST_TEST(err.empty(), err);
    BOOST_TEST(seen == cpu);
  }
  BOOST_TEST(!t.bind_current_thread(100000).empty());
}
